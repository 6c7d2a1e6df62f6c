/**
 * Signals: sustained ingest through the Alertmanager endpoint of the real app (ingest key, tenancy,
 * row level security, the instance committed before the 202: group commit puts the deliveries that
 * arrive while an insert is in flight into the next one), with extraction, dedup and case creation
 * running in the background processor meanwhile; beside a floor, a bare Fastify route that inserts
 * the same instance rows by hand with postgres.js, one transaction per request. After the load: how
 * long signals took to reach their case, and whether any alert series got two open cases.
 */
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { SCOPE_SQL } from '../../server/core/db/tenant.js';
import { newIngestKey } from '../../server/signals/resources.js';
import { drainSignals } from '../../server/signals/ingest.js';
import { benchDatabaseUrl, connect, ensureDatabase } from '../lib/database.js';
import { listen, startApp } from '../lib/server.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';

const SERIES = 500;
const TARGET_RPS = 2000;
const TARGET_P99_MS = 50;
const TARGET_CASE_P95_MS = 2000;

let n = 0;
/** One Alertmanager delivery of one alert; SERIES distinct label sets, so most deliveries are duplicates. */
function delivery() {
  const i = n++ % SERIES;
  return JSON.stringify({
    version: '4',
    status: 'firing',
    receiver: 'firewatch',
    groupKey: `{}:{alertname="HighErrorRate"}`,
    alerts: [
      {
        status: 'firing',
        labels: { alertname: 'HighErrorRate', instance: `api-${i}.prod.example.com:9100`, job: 'api', severity: 'page' },
        annotations: { summary: `Error rate above 5% on api-${i}.prod.example.com`, description: `Owner: team-${i % 20}@example.com` },
        startsAt: '2026-11-24T13:58:10.123Z',
        endsAt: '0001-01-01T00:00:00Z',
        fingerprint: i.toString(16).padStart(16, '0'),
      },
    ],
  });
}

async function post(url: string, key: string, seconds: number, connections: number) {
  const r = await autocannon({
    url,
    connections,
    duration: seconds,
    workers: 1,
    // Each connection cycles through one request per alert series (autocannon's workers take no functions).
    requests: Array.from({ length: SERIES }, () => ({ method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: delivery() })),
  } as never);
  return { rps: r.requests.total / seconds, p50: r.latency.p50, p99: r.latency.p99, failures: r.non2xx + r.errors + r.timeouts, total: r.requests.total };
}

const suite: Suite = {
  name: 'signals',
  description: 'Alertmanager ingest through the app (accept, then extraction, dedup and cases in jobs) vs a floor inserting the same rows',
  async run() {
    const url = benchDatabaseUrl();
    await ensureDatabase(url);
    const { app, baseUrl } = await startApp(url);
    const sql = connect(url, 10);
    const seconds = Number(process.env.BENCH_DURATION ?? 10);
    const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
    try {
      const [org] = await sql`select id, slug from organizations where slug = 'default'`;
      const [project] = await sql`insert into projects (organization_id, name) values (${org!.id}, ${'signals-bench-' + Date.now()}) returning id`;
      const secret = newIngestKey();
      const [host] = await sql`insert into entity_types (organization_id, name, jpath, regular_expression) values (${org!.id}, ${'Host ' + Date.now()}, ${"$.labels.instance"}, ${'^([a-z0-9.-]+?)(?::\\d+)?$'}) returning id`;
      const [signal] = await sql`insert into signals (organization_id, project_id, name, ingest_key_hash, entity_type_ids, rate_limit_per_minute) values (${org!.id}, ${project!.id}, 'bench', ${secret.hash}, array[${host!.id}::integer], 100000000) returning id`;

      // The floor: the same instance row inserted by hand, in a tenant transaction, with the same JSON parse.
      const floor = Fastify({ logger: false, bodyLimit: 1 << 20 });
      floor.post('/ingest', async (req, reply) => {
        const body = req.body as { alerts: { fingerprint: string }[] };
        await sql.begin(async (tx) => {
          await tx.unsafe(SCOPE_SQL, [String(org!.id), '', '', '']);
          for (const alert of body.alerts) await tx`insert into signal_instances (organization_id, project_id, signal_id, source, dedup_key, raw) values (${org!.id}, ${project!.id}, ${signal!.id}, 'alertmanager', ${alert.fingerprint}, ${sql.json(alert as never)})`;
        });
        return reply.status(202).send({ ok: true });
      });
      const floorBase = await listen(floor);
      // Load-independent figures beside the rates (this machine is shared): CPU of this process (server
      // and load generator) and PostgreSQL commits per accepted signal, processing included for the app.
      const commits = async () => Number((await sql`select xact_commit from pg_stat_database where datname = current_database()`)[0]!.xact_commit);
      const measure = async <T>(fn: () => Promise<T>) => {
        const [cpu, c0] = [process.cpuUsage(), await commits()];
        const result = await fn();
        await new Promise((r) => setTimeout(r, 1500)); // statistics reach pg_stat_database within a second or so
        const used = process.cpuUsage(cpu);
        return { result, cpuMs: (used.user + used.system) / 1000, commits: (await commits()) - c0 };
      };
      const floorMeasured = await measure(() => post(`${floorBase}/ingest`, secret.key, seconds, connections));
      const floorRun = floorMeasured.result;
      await sql`delete from signal_instances where signal_id = ${signal!.id}`;

      const started = Date.now();
      let appRun!: Awaited<ReturnType<typeof post>>;
      const appMeasured = await measure(async () => {
        appRun = await post(`${baseUrl}/api/v1/default/signals/alertmanager`, secret.key, seconds, connections);
        await drainSignals(app, org!.id, 300_000);
      });
      const drained = (Date.now() - started) / 1000;
      const [lag] = await sql`select count(*)::int as n,
          percentile_cont(0.95) within group (order by extract(epoch from processed_at - created_at) * 1000) as p95,
          max(extract(epoch from processed_at - created_at) * 1000) as max
        from signal_instances where signal_id = ${signal!.id}`;
      const [dups] = await sql`select count(*)::int as keys, count(distinct case_id)::int as cases, count(*) filter (where n > 1)::int as doubled
        from (select dedup_key, count(distinct case_id) as n, min(case_id) as case_id from signal_instances where signal_id = ${signal!.id} group by dedup_key) k`;
      await floor.close();

      printTable(
        ['server', 'accepted/s', 'p50 ms', 'p99 ms', 'failures'],
        [
          ['floor (insert by hand)', Math.round(floorRun.rps), floorRun.p50, floorRun.p99, floorRun.failures],
          ['app (Alertmanager endpoint)', Math.round(appRun.rps), appRun.p50, appRun.p99, appRun.failures],
        ],
      );
      console.log(`\n${lag!.n} signals, all processed ${drained.toFixed(1)} s after the load began; accept→processed p95 ${Math.round(Number(lag!.p95))} ms, max ${Math.round(Number(lag!.max))} ms`);
      const per = (m: { cpuMs: number; commits: number }, n: number) => `${((m.cpuMs * 1000) / n).toFixed(0)} µs CPU, ${(m.commits / n).toFixed(2)} commits`;
      console.log(`per accepted signal: floor ${per(floorMeasured, floorRun.total)}; app ${per(appMeasured, appRun.total)} (accept and processing); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
      console.log(`${dups!.keys} alert series, ${dups!.cases} cases, ${dups!.doubled} series with more than one case`);
      const misses = [
        appRun.rps < TARGET_RPS ? `< ${TARGET_RPS} accepted/s` : '',
        appRun.p99 > TARGET_P99_MS ? `p99 > ${TARGET_P99_MS} ms` : '',
        Number(lag!.p95) > TARGET_CASE_P95_MS ? `p95 to case > ${TARGET_CASE_P95_MS} ms` : '',
        dups!.doubled ? 'duplicate cases' : '',
        appRun.failures ? 'failures' : '',
      ].filter(Boolean);
      console.log(misses.length ? `MISS: ${misses.join(', ')}` : 'PASS');
      return { passed: misses.length === 0 };
    } finally {
      await sql.end();
      await app.close();
    }
  },
};
export default suite;
