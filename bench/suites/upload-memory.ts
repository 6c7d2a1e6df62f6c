/**
 * Review F25: the server's resident memory while one large HTTP upload is stored, on the embedded
 * database and on PostgreSQL, at two sizes. Each upload runs in a process of its own
 * (bench/lib/upload-memory.ts), so the peak belongs to it alone. The file is stored a part at a time
 * (server/ai/ingest.ts), so the growth must not follow the file's size.
 *
 * BENCH_UPLOAD_MB sets the sizes (default `10,50`), BENCH_UPLOAD_DB the databases (default both).
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchDatabaseUrl, ensureDatabase } from '../lib/database.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';

const SIZES = (process.env.BENCH_UPLOAD_MB ?? '10,50').split(',').map(Number);
const KINDS = (process.env.BENCH_UPLOAD_DB ?? 'pglite,postgres').split(',');
/** Peak growth allowed while storing, whatever the file's size: a few parts and the app's own buffers. */
const TARGET_MB = 64;

interface Measured {
  kind: string;
  upload_mb: number;
  status: number;
  seconds: number;
  rss_before_mb: number;
  rss_peak_mb: number;
  rss_after_mb: number;
  rss_after_gc_mb: number;
  answer?: string;
}

async function run(): Promise<{ passed: boolean }> {
  if (KINDS.includes('postgres')) await ensureDatabase(benchDatabaseUrl());
  const rows: (string | number)[][] = [];
  let passed = true;
  for (const kind of KINDS) {
    for (const megabytes of SIZES) {
      const child = spawnSync(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', fileURLToPath(new URL('../lib/upload-memory.ts', import.meta.url)), String(megabytes), kind],
        { encoding: 'utf8', maxBuffer: 1 << 20, env: { ...process.env, DATABASE_URL: benchDatabaseUrl() } },
      );
      const line = child.stdout.trim().split('\n').at(-1) ?? '';
      if (child.status !== 0 || !line.startsWith('{')) {
        console.log(`${kind} ${megabytes} MB: the upload run failed: ${child.stderr.slice(-500)}`);
        passed = false;
        continue;
      }
      const m = JSON.parse(line) as Measured;
      const growth = m.rss_peak_mb - m.rss_before_mb;
      const kept = m.rss_after_gc_mb - m.rss_before_mb;
      passed &&= m.status === 201 && growth <= TARGET_MB;
      rows.push([
        kind,
        m.upload_mb,
        m.status,
        m.seconds,
        m.rss_before_mb,
        m.rss_peak_mb,
        growth,
        m.rss_after_gc_mb,
        kept,
        loadavg()
          .map((l) => l.toFixed(1))
          .join(' '),
      ]);
      if (m.answer) console.log(`${kind} ${megabytes} MB answered ${m.status}: ${m.answer}`);
    }
  }
  printTable(['database', 'upload MB', 'status', 'seconds', 'RSS before MB', 'peak MB', 'peak growth MB', 'after GC MB', 'kept MB', 'load average'], rows);
  console.log(`\ntarget: peak growth <= ${TARGET_MB} MB whatever the upload's size: ${passed ? 'met' : 'MISSED'}`);
  return { passed };
}

const suite: Suite = {
  name: 'upload-memory',
  description: `RSS while one large HTTP upload (${SIZES.join(' and ')} MB, buildIndex=false) is stored, ${KINDS.join(' and ')}, a process per upload`,
  run,
};
export default suite;
