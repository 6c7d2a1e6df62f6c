/**
 * Review F12: background work keeps up. Creates INCIDENTS incidents in a burst through the real app
 * (POST /iaos from CLIENTS concurrent connections, a signed-in owner) on PostgreSQL, each queuing its
 * provisioning job (conversation and conference link) in its own transaction, and measures how long
 * until every one of them has its conversation. Target: all within TARGET_S of the burst's start.
 */
import { randomBytes } from 'node:crypto';
import { createOrganization } from '../../server/accounts/service.js';
import { users } from '../../server/schema.js';
import { benchDatabaseUrl, connect, ensureDatabase } from '../lib/database.js';
import { startApp } from '../lib/server.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';

const INCIDENTS = Number(process.env.BENCH_JOBS_INCIDENTS ?? 2000);
const CLIENTS = 20;
const TARGET_S = 60;

async function run(): Promise<{ passed: boolean }> {
  const url = benchDatabaseUrl();
  await ensureDatabase(url);
  const { app, baseUrl } = await startApp(url);
  const sql = connect(url, 2);
  try {
    // An organization of its own per run, so counting its incidents counts this run's.
    const email = `jobs-bench@${randomBytes(4).toString('hex')}.bench`;
    const [user] = await app.db.insert(users).values({ email }).returning();
    const org = await createOrganization(app.db, { name: 'Jobs bench', description: 'jobs bench', slug: `bench-jobs-${randomBytes(4).toString('hex')}` }, user!.id, 14);
    const token = app.jwt.sign({ sub: String(user!.id), email }, { expiresIn: '1h' });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const api = `${baseUrl}/api/v1/${org.slug}`;
    const project = (await (await fetch(`${api}/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'Burst' }) })).json()) as { id: number };

    const pending = async () => Number((await sql`select count(*)::int as n from incidents where organization_id = ${org.id} and conversation_id is null`)[0]!.n);
    const started = performance.now();
    let next = 0;
    let failed = 0;
    let sampler: NodeJS.Timeout | undefined;
    const lags: number[] = [];
    const client = async () => {
      while (next < INCIDENTS) {
        const i = next++;
        const res = await fetch(`${api}/iaos`, { method: 'POST', headers, body: JSON.stringify({ title: `Burst incident ${i}`, project_id: project.id }) });
        if (res.status !== 201) failed++;
        await res.arrayBuffer();
      }
    };
    // The queue's depth while the burst runs (created minus provisioned), once a second.
    sampler = setInterval(() => void pending().then((n) => lags.push(n)), 1000);
    await Promise.all(Array.from({ length: CLIENTS }, client));
    const burstS = (performance.now() - started) / 1000;
    let left = await pending();
    while (left > 0 && performance.now() - started < (TARGET_S + 60) * 1000) {
      await new Promise((r) => setTimeout(r, 200));
      left = await pending();
    }
    clearInterval(sampler);
    sampler = undefined;
    const doneS = (performance.now() - started) / 1000;
    const provisioned = INCIDENTS - failed - left;
    printTable(
      ['measure', 'value'],
      [
        ['incidents created (201)', INCIDENTS - failed],
        ['failed creates', failed],
        ['burst, s', burstS],
        ['creates per s', (INCIDENTS - failed) / burstS],
        ['all conversations by, s', left ? `not within ${(doneS).toFixed(0)} s (${left} left)` : doneS],
        ['conversations after the burst, s', left ? '-' : doneS - burstS],
        ['provisioning jobs per s (overall)', provisioned / doneS],
        ['largest backlog seen', Math.max(0, ...lags)],
      ],
    );
    const passed = !failed && !left && doneS <= TARGET_S;
    console.log(`\ntarget: every conversation within ${TARGET_S} s of the burst's start: ${passed ? 'met' : 'MISSED'}`);
    return { passed };
  } finally {
    await sql.end();
    await app.close();
  }
}

const suite: Suite = {
  name: 'jobs',
  description: `${INCIDENTS.toLocaleString('en-US')} incidents created in a burst (${CLIENTS} connections): time until each has its conversation (background job)`,
  run,
};
export default suite;
