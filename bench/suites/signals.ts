/**
 * Signals: sustained ingest through the real app (ingest key, shared rate limit, tenancy, row level
 * security, the instances committed before the 202: group commit puts the deliveries that arrive
 * while an insert is in flight into the next one), with extraction, dedup and case creation running
 * in the background processor meanwhile; beside a floor, a bare Fastify route that inserts the same
 * instance rows by hand with postgres.js, one transaction and one insert per request. Three lines:
 *  - Alertmanager, one alert per delivery (the worst case: one request per signal);
 *  - Alertmanager, grouped deliveries as Alertmanager sends them (every alert of a group in one
 *    webhook): 1 to 10 alerts each, uniformly, mean 5.5;
 *  - the native batch form, 50 signals a request (an exporter or a queue consumer forwarding).
 * Each line runs twice against each server: at saturation (BENCH_CONNECTIONS pushing as fast as they
 * can: signals/s, whose latency is only connections / throughput), then at a fixed offered rate
 * (open loop, bench/lib/paced.ts), where the accept latency is judged: 2,000 signals/s for the grouped and
 * batch lines; for the single-alert line, whose floor cannot reach that (a transaction per request),
 * 80% of the floor's saturated rate measured just before. After each line: how long signals took to
 * reach their case (accept → processed, measured while the load ran), and whether any alert series
 * got two cases.
 */
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import type postgres from 'postgres';
import { SCOPE_SQL } from '../../server/core/db/tenant.js';
import { newIngestKey } from '../../server/signals/resources.js';
import { drainSignals } from '../../server/signals/ingest.js';
import { benchDatabaseUrl, connect, ensureDatabase, standInForAutovacuum } from '../lib/database.js';
import { postgresCpuBetween, postgresCpuMs } from '../lib/load.js';
import { paced } from '../lib/paced.js';
import { diagnose } from '../lib/signal-diagnostics.js';
import { signalBursts } from '../lib/signal-bursts.js';
import { listen, startApp } from '../lib/server.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';

const SERIES = 500;
const TARGET_SIGNALS = 2000;
const TARGET_P99_MS = 50;
const TARGET_CASE_P95_MS = 2000;
/** The single-alert line's offered rate, as a share of its floor's saturated rate. */
const SINGLE_RATE_SHARE = 0.8;

const NATIVE_BATCH = 50;
/** How long a line waits after its load for processing to catch up before it reports what is left (BENCH_DRAIN_S). */
const DRAIN_S = Number(process.env.BENCH_DRAIN_S ?? 60);

interface Alert {
  fingerprint: string;
  [k: string]: unknown;
}

/** One firing alert of series `i` (SERIES distinct label sets, so most alerts are duplicates). */
function alert(i: number): Alert {
  return {
    status: 'firing',
    labels: { alertname: 'HighErrorRate', instance: `api-${i}.prod.example.com:9100`, job: 'api', severity: 'page' },
    annotations: { summary: `Error rate above 5% on api-${i}.prod.example.com`, description: `Owner: team-${i % 20}@example.com` },
    startsAt: '2026-11-24T13:58:10.123Z',
    endsAt: '0001-01-01T00:00:00Z',
    fingerprint: i.toString(16).padStart(16, '0'),
  };
}

interface Line {
  key: string;
  name: string;
  path: string;
  /** The request bodies each connection cycles through, and the alerts in each. */
  bodies: { body: string; alerts: Alert[] }[];
}

function lines(): Line[] {
  const group = (alerts: Alert[]) =>
    JSON.stringify({ version: '4', status: 'firing', receiver: 'firewatch', groupKey: `{}:{alertname="HighErrorRate"}`, alerts });
  let n = 0;
  const single = Array.from({ length: SERIES }, () => {
    const a = [alert(n++ % SERIES)];
    return { body: group(a), alerts: a };
  });
  // Group sizes 1..10 in a fixed shuffled order (mean 5.5); the alerts of a group are distinct series.
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const grouped = Array.from({ length: SERIES }, () => {
    const size = 1 + Math.floor(rand() * 10);
    const a = Array.from({ length: size }, () => alert(n++ % SERIES));
    return { body: group(a), alerts: a };
  });
  const native = Array.from({ length: 100 }, () => {
    const a = Array.from({ length: NATIVE_BATCH }, () => alert(n++ % SERIES));
    return { body: JSON.stringify({ items: a.map((x) => ({ raw: x, dedup_key: x.fingerprint })) }), alerts: a };
  });
  const all = [
    { key: 'single', name: 'Alertmanager, 1 alert a delivery', path: '/signals/alertmanager', bodies: single },
    {
      key: 'grouped',
      name: `Alertmanager groups of 1-10 (mean ${(grouped.reduce((s, b) => s + b.alerts.length, 0) / grouped.length).toFixed(1)})`,
      path: '/signals/alertmanager',
      bodies: grouped,
    },
    { key: 'native', name: `native batch of ${NATIVE_BATCH}`, path: '/signals/instances/batch', bodies: native },
  ];
  // BENCH_LINES=single,grouped runs those lines only.
  const only = process.env.BENCH_LINES?.split(',').map((l) => l.trim());
  return all.filter((l) => !only || only.includes(l.key));
}

const headers = (key: string) => ({ 'content-type': 'application/json', authorization: `Bearer ${key}` });

async function post(url: string, key: string, bodies: Line['bodies'], seconds: number, connections: number) {
  const r = await autocannon({
    url,
    connections,
    duration: seconds,
    workers: 1,
    requests: bodies.map((b) => ({ method: 'POST', headers: headers(key), body: b.body })),
  } as never);
  return { rps: r.requests.total / seconds, p50: r.latency.p50, p99: r.latency.p99, failures: r.non2xx + r.errors + r.timeouts, total: r.requests.total };
}

/** `rps` requests a second offered, open loop (bench/lib/paced.ts), whatever the answers. */
const offer = (url: string, key: string, bodies: Line['bodies'], seconds: number, rps: number) =>
  paced(
    url,
    bodies.map((b) => ({ headers: headers(key), body: b.body })),
    rps,
    seconds,
    TARGET_P99_MS,
  );

const suite: Suite = {
  name: 'signals',
  description:
    'Alertmanager (single and grouped) and native batch ingest through the app (accept, then extraction, dedup and cases in jobs) vs a floor inserting the same rows',
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
      const [host] =
        await sql`insert into entity_types (organization_id, name, jpath, regular_expression) values (${org!.id}, ${'Host ' + Date.now()}, ${"$..['instance']"}, ${'^([a-z0-9.-]+?)(?::\\d+)?$'}) returning id`;
      // Load-independent figures beside the rates (this machine is shared): CPU of this process (server
      // and load generator) and PostgreSQL commits per accepted signal, processing included for the app.
      const commits = async () => Number((await sql`select xact_commit from pg_stat_database where datname = current_database()`)[0]!.xact_commit);
      // PostgreSQL CPU: of the backends connected to this database only (others' work on the machine left out).
      const backends = async () => (await sql`select pid::text from pg_stat_activity where datname = current_database()`).map((r) => r.pid as string);
      const measure = async <T>(fn: () => Promise<T>) => {
        const [cpu, c0, pg0] = [process.cpuUsage(), await commits(), postgresCpuMs(await backends())];
        const result = await fn();
        await new Promise((r) => setTimeout(r, 1500)); // statistics reach pg_stat_database within a second or so
        const used = process.cpuUsage(cpu);
        const pg = postgresCpuBetween(pg0, postgresCpuMs(await backends()));
        return { result, cpuMs: (used.user + used.system) / 1000, pgMs: pg, commits: (await commits()) - c0 };
      };
      const rows: (string | number)[][] = [];
      const notes: string[] = [];
      // Between phases, never during one: what autovacuum would have done meanwhile, where it is off.
      const tidied = new Set<string>();
      const tidy = async () => {
        for (const t of await standInForAutovacuum(sql)) tidied.add(t);
      };
      const misses: string[] = [];
      const rated: (string | number)[][] = [];
      for (const line of lines()) {
        // A signal definition (and ingest key) per line, so each line's instances and cases are its own.
        const secret = newIngestKey();
        const [signal] = await sql`insert into signals (organization_id, project_id, name, ingest_key_hash, entity_type_ids, rate_limit_per_minute)
          values (${org!.id}, ${project!.id}, ${'bench ' + line.name}, ${secret.hash}, array[${host!.id}::integer], 100000000) returning id`;
        const floor = Fastify({ logger: false, bodyLimit: 1 << 20 });
        // The floor: the request's rows inserted by hand in one tenant transaction, one statement, as the app's group commit does.
        floor.post('/ingest', async (req, reply) => {
          const body = req.body as { alerts?: Alert[]; items?: { raw: Alert }[] };
          const alerts = body.alerts ?? body.items!.map((i) => i.raw);
          await sql.begin(async (tx: postgres.TransactionSql) => {
            await tx.unsafe(SCOPE_SQL, [String(org!.id), '', '', '']);
            // Marked processed, or the app's processor (running in this process) would take the floor's rows up;
            // and deduplicated, so that no search entry is written for them: the app's accept writes none either.
            await tx`insert into signal_instances (organization_id, project_id, signal_id, source, dedup_key, raw, processed_at, filter_action)
              select ${org!.id}, ${project!.id}, ${signal!.id}, 'alertmanager', r.raw->>'fingerprint', r.raw, now(), 'deduplicate'
              from jsonb_array_elements(${sql.json(alerts as never)}::jsonb) as r(raw)`;
          });
          return reply.status(202).send({ ok: true });
        });
        const floorBase = await listen(floor);
        const count = async () => Number((await sql`select count(*)::int as n from signal_instances where signal_id = ${signal!.id}`)[0]!.n);
        const lastId = async () => Number((await sql`select coalesce(max(id), 0)::int as id from signal_instances where signal_id = ${signal!.id}`)[0]!.id);
        const meanAlerts = line.bodies.reduce((n, b) => n + b.alerts.length, 0) / line.bodies.length;
        await tidy();
        console.error(`${line.name}: floor at saturation…`);
        const floorMeasured = await measure(() => post(`${floorBase}/ingest`, secret.key, line.bodies, seconds, connections));
        const floorLoad = loadavg()[0]!.toFixed(1);
        const floorSignals = await count();
        // The offered rate: 2,000 signals/s, or for a line whose floor cannot take that, a share of the floor's rate.
        const offered = line.key === 'single' ? Math.round((floorSignals / seconds) * SINGLE_RATE_SHARE) : TARGET_SIGNALS;
        const offeredRps = offered / meanAlerts;
        console.error(`${line.name}: floor at ${offered} signals/s offered…`);
        const floorWatch = diagnose();
        const floorRated = await offer(`${floorBase}/ingest`, secret.key, line.bodies, seconds, offeredRps);
        const floorDiagnosis = floorWatch.report(floorRated.slow);
        const floorRatedLoad = loadavg()[0]!.toFixed(1);
        await sql`delete from signal_instances where signal_id = ${signal!.id}`;
        await floor.close();

        // Bounded: a processor that cannot keep up is reported (what is left, and as a miss), not waited for.
        const drain = async () => {
          const left = await drainSignals(app, org!.id, DRAIN_S * 1000).then(
            () => 0,
            async () => Number((await sql`select count(*)::int as n from signal_instances where signal_id = ${signal!.id} and processed_at is null`)[0]!.n),
          );
          if (left) console.error(`${line.name}: ${left} signals still unprocessed ${DRAIN_S} s after the load ended (BENCH_DRAIN_S); reported as a miss`);
          return left;
        };
        // Accept → case of the instances after `after`: from the insert to its processing (unprocessed ones count as still waiting now).
        const lagSince = async (after: number) =>
          (
            await sql`select percentile_cont(0.95) within group (order by extract(epoch from coalesce(processed_at, clock_timestamp()) - created_at) * 1000) as p95,
              max(extract(epoch from coalesce(processed_at, clock_timestamp()) - created_at) * 1000) as max
            from signal_instances where signal_id = ${signal!.id} and id > ${after}`
          )[0]!;

        await tidy();
        console.error(`${line.name}: app at saturation…`);
        const started = Date.now();
        let appRun!: Awaited<ReturnType<typeof post>>;
        let load = '';
        let left = 0;
        const appMeasured = await measure(async () => {
          appRun = await post(`${baseUrl}/api/v1/default${line.path}`, secret.key, line.bodies, seconds, connections);
          load = loadavg()[0]!.toFixed(1);
          left = await drain();
        });
        const drained = (Date.now() - started) / 1000;
        const appSignals = await count();
        const lag = await lagSince(0);

        // The same offered rate through the app, its series' cases already open (the steady state: most signals join one).
        await tidy();
        console.error(`${line.name}: app at ${offered} signals/s offered…`);
        const before = await lastId();
        let appRated!: Awaited<ReturnType<typeof offer>>;
        let ratedLoad = '';
        let ratedLeft = 0;
        let diagnosis = '';
        const ratedMeasured = await measure(async () => {
          const watch = diagnose();
          appRated = await offer(`${baseUrl}/api/v1/default${line.path}`, secret.key, line.bodies, seconds, offeredRps);
          diagnosis = watch.report(appRated.slow);
          ratedLoad = loadavg()[0]!.toFixed(1);
          ratedLeft = await drain();
        });
        const ratedSignals = (await count()) - appSignals;
        const ratedLag = await lagSince(before);

        const [dups] = await sql`select count(*)::int as keys, count(distinct case_id)::int as cases, count(*) filter (where n > 1)::int as doubled
          from (select dedup_key, count(distinct case_id) as n, min(case_id) as case_id from signal_instances where signal_id = ${signal!.id} group by dedup_key) k`;
        const f = floorMeasured.result;
        const per = (m: { cpuMs: number; pgMs: number | null; commits: number }, n: number) =>
          `${((m.cpuMs * 1000) / n).toFixed(0)} µs CPU + ${m.pgMs === null ? '–' : ((m.pgMs * 1000) / n).toFixed(0)} µs PostgreSQL CPU, ${(m.commits / n).toFixed(2)} commits`;
        rows.push([`floor: ${line.name}`, Math.round(floorSignals / seconds), Math.round(f.rps), f.p50, f.p99, f.failures, '', '', floorLoad]);
        rows.push([
          `app: ${line.name}`,
          Math.round(appSignals / seconds),
          Math.round(appRun.rps),
          appRun.p50,
          appRun.p99,
          appRun.failures,
          Math.round(Number(lag.p95)),
          dups!.doubled,
          load,
        ]);
        const rate = `${offered} (${Math.round(offeredRps)})`;
        const achieved = (r: { answered: number; failures: number; seconds: number }) =>
          Math.round(((r.answered - r.failures) * meanAlerts) / Math.max(seconds, r.seconds));
        rated.push([`floor: ${line.name}`, rate, achieved(floorRated), floorRated.p50, floorRated.p99, floorRated.failures, '', floorRatedLoad]);
        rated.push([`app: ${line.name}`, rate, achieved(appRated), appRated.p50, appRated.p99, appRated.failures, Math.round(Number(ratedLag.p95)), ratedLoad]);
        notes.push(
          `${line.name}: app ${Math.round(appSignals / seconds)} signals/s at saturation = ${((appSignals / floorSignals) * 100).toFixed(0)}% of the floor's; ${appSignals} signals (${dups!.keys} series, ${dups!.cases} cases), ` +
            `${left ? `${left} NOT processed ${drained.toFixed(1)} s` : `all processed ${drained.toFixed(1)} s`} after the load began (max accept→processed ${Math.round(Number(lag.max))} ms); ` +
            `per signal: floor ${per(floorMeasured, floorSignals)}; app ${per(appMeasured, appSignals)} (accept and processing, new cases included); ` +
            `at ${offered} signals/s offered: app ${per(ratedMeasured, ratedSignals)} (joining open cases)`,
        );
        notes.push(`${line.name}, floor at ${offered} signals/s offered: ${floorDiagnosis}`);
        notes.push(`${line.name}, app at ${offered} signals/s offered: ${diagnosis}`);
        const miss = [
          appSignals / seconds < TARGET_SIGNALS ? `< ${TARGET_SIGNALS} signals/s at saturation` : '',
          appRated.p99 > TARGET_P99_MS ? `p99 > ${TARGET_P99_MS} ms at ${offered} signals/s offered` : '',
          Number(lag.p95) > TARGET_CASE_P95_MS || Number(ratedLag.p95) > TARGET_CASE_P95_MS ? `p95 to case > ${TARGET_CASE_P95_MS} ms` : '',
          dups!.doubled ? 'duplicate cases' : '',
          left || ratedLeft ? `${left + ratedLeft} unprocessed after ${DRAIN_S} s` : '',
          appRun.failures || appRated.failures ? 'failures' : '',
        ].filter(Boolean);
        misses.push(`${line.name}: ${miss.length ? `MISS ${miss.join(', ')}` : 'PASS'}`);
      }
      console.log(`At saturation: ${connections} connections sending as fast as answered, ${seconds} s (signals/s; p99 here is connections / throughput)\n`);
      printTable(['server', 'signals/s', 'requests/s', 'p50 ms', 'p99 ms', 'failures', 'to case p95 ms', 'dup. series', 'load 1 min'], rows);
      console.log(
        `
At a fixed offered rate (open loop: requests evenly spaced, each latency from its scheduled send time; ${seconds} s): 2,000 signals/s, or for the single-alert line ${SINGLE_RATE_SHARE * 100}% of its floor's saturated rate; accept latency judged here against ${TARGET_P99_MS} ms
`,
      );
      printTable(['server', 'offered signals/s (req/s)', 'achieved signals/s', 'p50 ms', 'p99 ms', 'failures', 'to case p95 ms', 'load 1 min'], rated);
      console.log('');
      for (const n of notes) console.log(n);
      if (tidied.size)
        console.log(
          `autovacuum is off on this server: between phases the bench ran VACUUM (ANALYZE) where autovacuum's thresholds were passed (${[...tidied].join(', ')})`,
        );
      console.log(
        `load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
      );
      // The bursts of new alerts (bench/lib/signal-bursts.ts); BENCH_LINES=burst runs them alone.
      if (!process.env.BENCH_LINES || process.env.BENCH_LINES.includes('burst')) {
        await tidy();
        const b = await signalBursts(sql, baseUrl, { id: org!.id }, project!.id);
        console.log('\nBursts of new alerts: 40 Alertmanager webhooks of 50 alerts sent at once\n');
        printTable(b.headers, b.rows);
        for (const n of b.notes) console.log(n);
        misses.push(...(b.misses.length ? b.misses.map((m) => `MISS ${m}`) : ['bursts: PASS']));
      }
      for (const m of misses) console.log(m);
      return { passed: misses.every((m) => m.endsWith('PASS')) };
    } finally {
      await sql.end();
      await app.close();
    }
  },
};
export default suite;
