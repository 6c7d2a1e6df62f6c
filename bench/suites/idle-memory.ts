/**
 * The embedded default's memory at rest: `npm start`'s process (the compiled server under
 * bin/with-memory-settings, PGlite, no DATABASE_URL) on a fresh data folder, 15 s after it first
 * listens, then restarted on that folder, and once on a fresh folder without those settings; beside the
 * floor, a bare PGlite with the same settings in a process of its own (and with PostgreSQL's own memory
 * defaults, to show what PGLITE_MEMORY_PARAMS buys). RSS is read from /proc (Linux).
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_MEMORY_PARAMS } from '../../server/core/db/client.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';

const TARGET_MB = 250;
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 15);
const root = fileURLToPath(new URL('../../', import.meta.url));
const probe = fileURLToPath(new URL('../lib/memory-probe.mjs', import.meta.url));
const floorScript = fileURLToPath(new URL('../lib/idle-floor.mjs', import.meta.url));
const serverJs = join(root, 'dist/server/server.js');
const withMemorySettings = join(root, 'bin/with-memory-settings');
/** The environment without the launcher's settings (a caller's own would win over the launcher's). */
const { MALLOC_MMAP_THRESHOLD_: _mmap, MALLOC_ARENA_MAX: _arenas, ...plainEnv } = process.env;

const newest = (dir: string): number =>
  Math.max(...readdirSync(dir, { withFileTypes: true }).map((e) => (e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs)));

/** `npm start` runs the compiled server: compiled again when server/ changed since. */
function ensureBuilt() {
  let built = 0;
  try {
    built = statSync(serverJs).mtimeMs;
  } catch {
    // not built yet
  }
  if (built > newest(join(root, 'server'))) return;
  console.log('building the server (npm run build:server)...');
  execFileSync('npx', ['tsc', '-p', 'tsconfig.server.json'], { cwd: root, stdio: 'inherit' });
}

const statusKb = (pid: number, key: string) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${key}:\\s+(\\d+)`))![1]);
const mb = (bytes: number) => bytes / 1024 / 1024;

interface Idle {
  readySeconds: number;
  rss: number;
  peak: number;
  heap: number;
  /** Outside the JS heap but known to V8: PGlite's WebAssembly memory, mostly. */
  external: number;
}

/**
 * Starts `args` under node with the memory probe (through bin/with-memory-settings unless `plain`),
 * waits for `ready` on its stdout, idles, measures, stops it. The launcher execs node: the pid is node's.
 */
async function idleProcess(args: string[], env: NodeJS.ProcessEnv, ready: RegExp, plain = false): Promise<Idle> {
  const probeFile = join(mkdtempSync(join(tmpdir(), 'fw-idle-probe-')), 'usage.json');
  const started = performance.now();
  const node = [process.execPath, '--import', probe, ...args];
  const [command, ...commandArgs] = plain ? node : [withMemorySettings, ...node];
  const child = spawn(command!, commandArgs, {
    cwd: root,
    env: { ...plainEnv, ...env, MEMORY_PROBE_FILE: probeFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  let output = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const seen = (chunk: Buffer) => {
        output += chunk.toString();
        if (ready.test(output)) resolve();
      };
      child.stdout.on('data', seen);
      child.stderr.on('data', seen);
      void exited.then((code) => reject(new Error(`exited with ${code} before it was ready:\n${output.slice(-2000)}`)));
    });
    const readySeconds = (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const rss = statusKb(child.pid!, 'VmRSS') / 1024;
    const peak = statusKb(child.pid!, 'VmHWM') / 1024;
    child.kill('SIGUSR2');
    let usage: NodeJS.MemoryUsage | undefined;
    for (let i = 0; i < 100 && !usage; i++) {
      await new Promise((r) => setTimeout(r, 50));
      try {
        usage = JSON.parse(readFileSync(probeFile, 'utf8')) as NodeJS.MemoryUsage;
      } catch {
        // not written yet
      }
    }
    return { readySeconds, rss, peak, heap: mb(usage?.heapTotal ?? NaN), external: mb(usage?.external ?? NaN) };
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(join(probeFile, '..'), { recursive: true, force: true });
  }
}

const serverEnv = (dataDir: string): NodeJS.ProcessEnv => ({
  DATABASE_URL: '',
  DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
});

const suite: Suite = {
  name: 'idle-memory',
  description: `RSS of the embedded default (npm start, PGlite) ${IDLE_SECONDS} s after it listens, beside a bare PGlite`,
  async run() {
    ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'fw-idle-'));
    const rows: (string | number)[][] = [];
    const row = (name: string, m: Idle) => rows.push([name, m.readySeconds, m.rss, m.heap, m.external, m.peak]);
    try {
      const listening = /Server listening at/;
      const fresh = await idleProcess([serverJs], serverEnv(join(dir, 'app')), listening);
      row('server, fresh data folder', fresh);
      row('server, started again on it', await idleProcess([serverJs], serverEnv(join(dir, 'app')), listening));
      const plain = await idleProcess([serverJs], serverEnv(join(dir, 'plain')), listening, true);
      row('server, fresh folder, plain node (no memory settings)', plain);
      const floorArgs = [floorScript, join(dir, 'floor'), JSON.stringify([...PGlite.defaultStartParams, ...PGLITE_MEMORY_PARAMS])];
      const floor = await idleProcess(floorArgs, {}, /ready/);
      row('floor: bare PGlite, fresh folder', floor);
      // Its initdb ran in the process above; the server sets up a folder in a child, so this is the like-for-like floor.
      const floorAgain = await idleProcess(floorArgs, {}, /ready/);
      row('floor: bare PGlite, started again on it', floorAgain);
      row(
        'bare PGlite, PostgreSQL memory defaults',
        await idleProcess([floorScript, join(dir, 'defaults'), JSON.stringify(PGlite.defaultStartParams)], {}, /ready/),
      );
      printTable(['process', 'ready s', 'RSS MB', 'JS heap MB', 'external MB', 'peak RSS MB'], rows);
      const passed = fresh.rss < TARGET_MB;
      console.log(
        `\nserver fresh ${fresh.rss.toFixed(0)} MB = ${(fresh.rss / floorAgain.rss).toFixed(2)}x the floor started again (${floorAgain.rss.toFixed(0)} MB; fresh ${floor.rss.toFixed(0)} MB); plain node ${plain.rss.toFixed(0)} MB; target < ${TARGET_MB} MB: ${passed ? 'met' : 'missed'}` +
          ` (load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`,
      );
      return { passed };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default suite;
