/**
 * Issue 40: `npm run demo` as a newcomer runs it, on a fresh embedded data folder (no PostgreSQL
 * needed): the whole command (start, migrations, the demo, exit) and the demo's own part (the `ms`
 * of its "demo data loaded" log line); then the same command again on the loaded folder (the demo
 * finds its flag and does nothing). Target: the first run under 10 s. Needs GNU time (/usr/bin/time).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';

const TARGET_SECONDS = 10;
const root = join(import.meta.dirname, '..', '..');

/**
 * `npm run demo`'s command on `dataDir`: its wall seconds, its CPU seconds (user + system, from GNU
 * time: a figure the machine's load inflates far less than the wall's) and the demo's own milliseconds.
 */
function demo(dataDir: string) {
  // The embedded database, whatever the bench's environment names.
  const { DATABASE_URL: _url, ...env } = process.env;
  const started = Date.now();
  const child = spawn('/usr/bin/time', ['-f', 'cpu %U %S', process.execPath, '--import', 'tsx', join(root, 'server', 'server.ts'), '--demo-only'], {
    cwd: root,
    env: { ...env, DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let [output, errors] = ['', ''];
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  return new Promise<{ seconds: number; cpu: number; demoMs: number; loaded: boolean }>((resolve, reject) =>
    child.on('close', (code) => {
      const line = output.split('\n').find((l) => l.includes('"msg":"demo data'));
      const cpu = /cpu ([\d.]+) ([\d.]+)/.exec(errors);
      if (code !== 0 || !line || !cpu) return reject(new Error(`npm run demo exited ${code}: ${output.slice(-300)} ${errors.slice(-300)}`));
      const log = JSON.parse(line) as { ms: number; loaded: boolean };
      resolve({ seconds: (Date.now() - started) / 1000, cpu: Number(cpu[1]) + Number(cpu[2]), demoMs: log.ms, loaded: log.loaded });
    }),
  );
}

const suite: Suite = {
  name: 'demo',
  description: `npm run demo on a fresh embedded data folder; target under ${TARGET_SECONDS} s`,
  async run() {
    const dataDir = mkdtempSync(join(tmpdir(), 'firewatch-demo-'));
    try {
      const load = loadavg()[0]!.toFixed(1);
      const first = await demo(dataDir);
      const afterFirst = loadavg()[0]!.toFixed(1);
      const again = await demo(dataDir);
      const passed = first.loaded && first.seconds < TARGET_SECONDS;
      printTable(
        ['run', 'npm run demo (s)', 'its CPU (s)', 'the demo itself (s)', 'loaded', 'load before', 'load after', 'target'],
        [
          ['fresh data folder', first.seconds, first.cpu, first.demoMs / 1000, String(first.loaded), load, afterFirst, passed ? 'met' : 'missed'],
          ['again (already loaded)', again.seconds, again.cpu, again.demoMs / 1000, String(again.loaded), afterFirst, loadavg()[0]!.toFixed(1), '-'],
        ],
      );
      return { passed };
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};

export default suite;
