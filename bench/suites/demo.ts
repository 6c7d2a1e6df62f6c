/**
 * Issue 40: `npm run demo` as a newcomer runs it, on a fresh embedded data folder (no PostgreSQL
 * needed): the whole command (start, migrations, the demo, exit) and the demo's own part (the `ms`
 * of its "demo data loaded" log line). First with no data-folder template yet (a newcomer's first
 * run: the template is set up), then on another fresh folder copied from that template, then the same
 * command again on the loaded folder (the demo finds its flag and does nothing). The runs get a TMPDIR
 * of their own, where the template goes; tsx keeps its compile cache there too, so an unmeasured run
 * fills that first and its template is removed. Beside it, the floor: a bare PGlite in a process of its
 * own (no app) running initdb and the same migrations, what no first run can skip; the first run is
 * judged by its ratio to that floor. Target: the first run under 10 s. Needs GNU time.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_MEMORY_PARAMS } from '../../server/core/db/client.js';
import { TEMPLATE_PREFIX } from '../../server/core/db/pglite-template.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';

const TARGET_SECONDS = 10;
const root = join(import.meta.dirname, '..', '..');
const floorScript = join(import.meta.dirname, '..', 'lib', 'demo-floor.mjs');

/** `args` run by node under GNU time: its wall seconds, its CPU seconds (user + system: a figure the machine's load inflates far less than the wall's) and its output. */
function timed(args: string[], env: NodeJS.ProcessEnv) {
  const started = Date.now();
  const child = spawn('/usr/bin/time', ['-f', 'cpu %U %S', process.execPath, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let [output, errors] = ['', ''];
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  return new Promise<{ seconds: number; cpu: number; output: string }>((resolve, reject) =>
    child.on('close', (code) => {
      const cpu = /cpu ([\d.]+) ([\d.]+)/.exec(errors);
      if (code !== 0 || !cpu) return reject(new Error(`${args.join(' ')} exited ${code}: ${output.slice(-300)} ${errors.slice(-300)}`));
      resolve({ seconds: (Date.now() - started) / 1000, cpu: Number(cpu[1]) + Number(cpu[2]), output });
    }),
  );
}

/** `npm run demo`'s command on `dataDir`, with the demo's own milliseconds from its log line. */
async function demo(dataDir: string, templates: string) {
  // The embedded database, whatever the bench's environment names.
  const { DATABASE_URL: _url, ...env } = process.env;
  const run = await timed(['--import', 'tsx', join(root, 'server', 'server.ts'), '--demo-only'], {
    ...env,
    DATA_DIR: dataDir,
    TMPDIR: templates,
    LOG_LEVEL: 'info',
  });
  const line = run.output.split('\n').find((l) => l.includes('"msg":"demo data'));
  if (!line) throw new Error(`npm run demo logged no demo line: ${run.output.slice(-300)}`);
  const log = JSON.parse(line) as { ms: number; loaded: boolean };
  return { ...run, demoMs: log.ms, loaded: log.loaded };
}

/** The floor on a fresh `dataDir`: bare PGlite, initdb and the migrations, the setup child's start parameters. */
const floor = (dataDir: string) =>
  timed([floorScript, dataDir, JSON.stringify([...PGlite.defaultStartParams, ...PGLITE_MEMORY_PARAMS]), join(root, 'migrations')], process.env);

const suite: Suite = {
  name: 'demo',
  description: `npm run demo on a fresh embedded data folder; target under ${TARGET_SECONDS} s`,
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'firewatch-demo-'));
    const templates = join(dir, 'tmp');
    mkdirSync(templates);
    try {
      const rows: (string | number)[][] = [];
      const line = async (name: string, dataDir: string, target?: boolean) => {
        const load = loadavg()[0]!.toFixed(1);
        const r = await demo(dataDir, templates);
        const met = r.loaded && r.seconds < TARGET_SECONDS;
        rows.push([name, r.seconds, r.cpu, r.demoMs / 1000, String(r.loaded), load, loadavg()[0]!.toFixed(1), target ? (met ? 'met' : 'missed') : '-']);
        return { met, seconds: r.seconds };
      };
      await demo(join(dir, 'warm-up'), templates);
      for (const made of readdirSync(templates)) if (made.startsWith(TEMPLATE_PREFIX)) rmSync(join(templates, made), { recursive: true });
      const load = loadavg()[0]!.toFixed(1);
      const bare = await floor(join(dir, 'floor'));
      rows.push(['floor: bare PGlite, initdb and the migrations', bare.seconds, bare.cpu, '-', '-', load, loadavg()[0]!.toFixed(1), '-']);
      const first = await line('fresh data folder, no template yet', join(dir, 'first'), true);
      await line('fresh data folder, template set up', join(dir, 'second'));
      await line('again (already loaded)', join(dir, 'second'));
      printTable(['run', 'npm run demo (s)', 'its CPU (s)', 'the demo itself (s)', 'loaded', 'load before', 'load after', 'target'], rows);
      const ratio = first.seconds / bare.seconds;
      console.log(
        `\nfirst run ${first.seconds.toFixed(1)} s = ${ratio.toFixed(2)}x the floor (${bare.seconds.toFixed(1)} s); target < ${TARGET_SECONDS} s: ${first.met ? 'met' : 'missed'}`,
      );
      return { passed: first.met };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default suite;
