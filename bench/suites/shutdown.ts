/**
 * Review F19: what clients see when the server process gets SIGTERM while 8 writers POST on
 * kept-alive connections and reconnect at once after each 503 (bench/lib/shutdown-resets.ts, a
 * process per run). Every transport failure other than a refused connection is counted: a reset
 * there may have lost a request.
 *
 * BENCH_SHUTDOWN_RUNS sets the runs per database (default 3), BENCH_SHUTDOWN_DB the databases
 * (default both; PostgreSQL is the bench database).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchDatabaseUrl, ensureDatabase } from '../lib/database.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';

const RUNS = Number(process.env.BENCH_SHUTDOWN_RUNS ?? 3);
const KINDS = (process.env.BENCH_SHUTDOWN_DB ?? 'pglite,postgres').split(',');

async function run(): Promise<{ passed: boolean }> {
  if (KINDS.includes('postgres')) await ensureDatabase(benchDatabaseUrl());
  const rows: (string | number)[][] = [];
  let passed = true;
  for (const kind of KINDS) {
    for (let r = 1; r <= RUNS; r++) {
      const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../lib/shutdown-resets.ts', import.meta.url)), kind], {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
        env: { ...process.env, DATABASE_URL: benchDatabaseUrl() },
      });
      const line = child.stdout.trim().split('\n').at(-1) ?? '';
      if (child.status !== 0 || !line.startsWith('{')) {
        console.log(`${kind} run ${r} failed: ${child.stderr.slice(-500)}`);
        passed = false;
        continue;
      }
      const m = JSON.parse(line) as {
        answers: Record<string, number>;
        failures: { code: string; connection: string; ms: number }[];
        acked: number;
        missing: number;
        exit: number;
        exit_ms: number;
        listener_closed_ms: number | null;
      };
      passed &&= m.failures.length === 0 && m.missing === 0 && m.exit === 0;
      rows.push([
        kind,
        r,
        m.answers['201'] ?? 0,
        m.answers['503'] ?? 0,
        m.answers.refused ?? 0,
        m.failures.length,
        m.failures.map((f) => `${f.code} ${f.connection} ${f.ms} ms`).join('; ') || '-',
        m.listener_closed_ms ?? '-',
        m.exit_ms,
        m.missing,
      ]);
    }
  }
  printTable(['database', 'run', '201', '503', 'refused', 'resets', 'each (ms after SIGTERM)', 'listener closed ms', 'exit ms', 'acked missing'], rows);
  console.log(`\ntarget: no reset and no acknowledged write missing: ${passed ? 'met' : 'MISSED'}`);
  return { passed };
}

const suite: Suite = {
  name: 'shutdown',
  description: `SIGTERM with 8 kept-alive writers that reconnect at once after a 503, ${RUNS} runs on ${KINDS.join(' and ')}`,
  run,
};
export default suite;
