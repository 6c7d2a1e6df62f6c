/**
 * Review F4: what syncing each commit costs on the embedded database (PGlite on disk). The real app on
 * a PGlite data folder answers POST /tag_types (a create, acknowledged 201) from 1 and from 10
 * connections, once with every commit synced (fsync, the default) and once without (PGlite's own
 * behaviour before: commits left in the OS page cache).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../server/app.js';
import { loadConfig } from '../../server/core/config.js';
import { openDatabase } from '../../server/core/db/client.js';
import { users } from '../../server/schema.js';
import { createOrganization } from '../../server/accounts/service.js';
import { startSession } from '../../server/core/sessions.js';
import { listen } from '../lib/server.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';

const SECONDS = Number(process.env.BENCH_DURATION ?? 10);

async function measure(dir: string, sync: boolean, connections: number, round: number) {
  const database = await openDatabase({ dataDir: dir, sync });
  const config = loadConfig({ ...process.env, DATABASE_URL: '', DATA_DIR: dir, LOG_LEVEL: 'warn', ADMIN_DIST: 'dist/no-admin-in-bench' });
  const app = await buildApp({ config, database, logger: false });
  try {
    const base = await listen(app);
    const email = `durability-${round}@bench.local`;
    const [user] = await app.db.insert(users).values({ email }).returning();
    const org = await createOrganization(
      app.db,
      { name: 'Durability bench', description: 'durability bench', slug: `bench-durability-${round}` },
      user!.id,
      14,
    );
    const headers = { authorization: `Bearer ${await startSession(app, { id: user!.id, email }, '1h')}`, 'content-type': 'application/json' };
    const latencies: number[] = [];
    let failures = 0;
    let firstFailure = '';
    const end = performance.now() + SECONDS * 1000;
    const client = async (c: number) => {
      for (let n = 0; performance.now() < end; n++) {
        const t0 = performance.now();
        const res = await fetch(`${base}/api/v1/${org.slug}/tag_types`, { method: 'POST', headers, body: JSON.stringify({ name: `c${c} n${n}` }) });
        const answer = await res.text();
        if (res.status === 201) latencies.push(performance.now() - t0);
        else if (failures++ === 0) firstFailure = `${res.status} ${answer.slice(0, 200)}`;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: connections }, (_, c) => client(c)));
    const elapsed = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
    return { perSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), failures, firstFailure };
  } finally {
    await app.close();
    await database.close();
  }
}

async function run(): Promise<{ passed: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-bench-durability-'));
  try {
    // Migrated once (the first open), then reopened per line.
    await (await openDatabase({ dataDir: dir })).close();
    const rows: (string | number)[][] = [];
    let round = 0;
    let failures = 0;
    for (const connections of [1, 10]) {
      for (const sync of [true, false]) {
        const r = await measure(dir, sync, connections, ++round);
        failures += r.failures;
        if (r.firstFailure) console.log(`first refused write: ${r.firstFailure}`);
        rows.push([sync ? 'fsync each commit' : 'no sync (before)', connections, r.perSecond, r.p50, r.p99, r.failures]);
      }
    }
    printTable(['commits', 'connections', 'acked writes/s', 'p50 ms', 'p99 ms', 'failures'], rows);
    return { passed: failures === 0 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const suite: Suite = {
  name: 'durability',
  description: `embedded PGlite on disk: acknowledged creates (POST /tag_types) per second and latency, every commit synced vs not, ${SECONDS} s per line`,
  run,
};
export default suite;
