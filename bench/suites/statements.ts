/**
 * Review F9: the number of prepared statements per connection stays bounded whatever page sizes callers
 * send. Two runs, each through the real app on PostgreSQL with a fresh pool: the control sends every list
 * (GET /tags) as a page of 25, the other LISTS distinct page sizes and then LISTS more (every size up to
 * MAX_PAGE_SIZE once, then on further pages), CLIENTS at a time so they spread over the pool. Each measures the memory of the database backends serving the app: their
 * private memory from /proc (what the kernel charges them; the database runs on this machine), their
 * memory contexts by name and their prepared statements (pg_backend_memory_contexts and
 * pg_prepared_statements, asked on every pooled connection).
 *
 * The start is taken after a warm-up that lets every pooled backend open every table once (lists of 25,
 * then a plan of each table on each connection): a backend keeps each table and index it has opened in
 * its catalog caches (CacheMemoryContext, index info), which the background work sharing the pool fills
 * over time whatever the lists send. Those caches are bounded by the schema; the statements are what the
 * page sizes could grow.
 * Target: after LISTS distinct sizes, within TARGET_GROWTH of the start and within CONTROL_MARGIN of the
 * control's growth; no more prepared statements on a connection than the control has.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { sql as dsql, type SQL } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { createOrganization } from '../../server/accounts/service.js';
import { rowsOf } from '../../server/core/db/client.js';
import { MAX_PAGE_SIZE } from '../../server/engine/list-query.js';
import { startSession } from '../../server/core/sessions.js';
import { users } from '../../server/schema.js';
import { benchDatabaseUrl, connect, ensureDatabase } from '../lib/database.js';
import { startApp } from '../lib/server.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';

/** Lists in each half of a run (in the distinct run no two of the 2 × LISTS ask for the same page size and page). */
const LISTS = Number(process.env.BENCH_STATEMENT_LISTS ?? 6000);
const CLIENTS = 10;
/** The app's pool size (startApp uses the default of server/core/db/client.ts). */
const POOL = 10;
const WARMUP = 300;
/** How many distinct page sizes the run sends: 2 to MAX_PAGE_SIZE, the largest a list accepts. */
const SIZES = MAX_PAGE_SIZE - 1;
const TARGET_GROWTH = 0.1;
/** How far the distinct sizes' growth may exceed the control's (percentage points over the same requests). */
const CONTROL_MARGIN = 0.03;
/** Memory contexts that hold prepared statements and their plans. */
const PLAN_CONTEXTS = ['CachedPlan', 'CachedPlanSource', 'CachedPlanQuery'];
/** BENCH_STATEMENT_OPEN_TABLES=no leaves out opening every table in the warm-up, to see the catalog caches fill during the run. */
const OPEN_TABLES = process.env.BENCH_STATEMENT_OPEN_TABLES !== 'no';
type Sizes = 'one' | 'distinct';
/** BENCH_STATEMENT_SIZES=one or =distinct runs only that one; both by default, the control first. */
const RUNS: Sizes[] =
  process.env.BENCH_STATEMENT_SIZES === 'one' ? ['one'] : process.env.BENCH_STATEMENT_SIZES === 'distinct' ? ['distinct'] : ['one', 'distinct'];

/**
 * A backend's memory (kB) from /proc, or null when it cannot be read (another machine or user). Private
 * counts every page only this process maps, including pages of shared buffers no other process has
 * touched; anonymous is its own heap alone (what catalog caches and prepared statements take).
 */
function procKb(pid: number): { private: number; anonymous: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
    return { private: kb('Private_Clean') + kb('Private_Dirty'), anonymous: kb('Anonymous') };
  } catch {
    return null;
  }
}

interface Connection {
  statements: number;
  byName: Record<string, number>;
}

interface Snapshot {
  /** Pids of the pooled connections measured. */
  pids: number[];
  /** Private and anonymous memory of all the app's backends (pool and LISTEN connection), NaN if not readable. */
  privateMb: number;
  anonymousMb: number;
  contextsMb: number;
  planContextsMb: number;
  minStatements: number;
  maxStatements: number;
  /** The pool's memory by context name. */
  byName: Record<string, number>;
}

/**
 * Runs `statement` once on each of the pool's POOL connections: POOL transactions held open together each
 * take a connection of their own. Background work holding a connection meanwhile makes one transaction
 * reuse another's, so it tries again until every connection has answered.
 */
async function onEveryConnection<T>(app: FastifyInstance, statement: SQL, first?: SQL): Promise<Map<number, T>> {
  const seen = new Map<number, T>();
  for (let attempt = 0; attempt < 5 && seen.size < POOL; attempt++)
    await Promise.all(
      Array.from({ length: POOL }, () =>
        app.db.transaction(async (tx) => {
          if (first) await tx.execute(first);
          const [row] = rowsOf<T & { pid: number }>(await tx.execute(statement));
          await tx.execute(dsql`select pg_sleep(0.3)`);
          seen.set(row!.pid, row!);
        }),
      ),
    );
  if (seen.size < POOL) throw new Error(`reached ${seen.size} of the pool's ${POOL} connections`);
  return seen;
}

/** Plans a read of every table once on this connection, which opens it and its indexes into the backend's caches. */
const OPEN_EVERY_TABLE = dsql.raw(`do $$
  declare t regclass;
  begin
    for t in select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p', 'm') and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'
    loop
      execute format('select * from %s limit 0', t);
    end loop;
  end $$`);

async function measurePool(app: FastifyInstance, admin: ReturnType<typeof connect>): Promise<Snapshot> {
  const connections = await onEveryConnection<Connection>(
    app,
    dsql`select pg_backend_pid() as pid, (select count(*)::int from pg_prepared_statements) as statements,
      (select jsonb_object_agg(name, bytes) from (select name, sum(total_bytes)::bigint as bytes from pg_backend_memory_contexts group by name) c) as "byName"`,
  );
  // The app's backends (its pool and its LISTEN connection), all but this suite's own.
  const backends = (
    await admin`select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()`
  ).map((r) => Number(r.pid));
  const kbs = backends.map(procKb);
  const readable = kbs.every((k) => k !== null);
  const list = [...connections.values()];
  const byName = list.reduce<Record<string, number>>((sum, c) => {
    for (const [name, bytes] of Object.entries(c.byName)) sum[name] = (sum[name] ?? 0) + Number(bytes);
    return sum;
  }, {});
  const mb = (bytes: number) => bytes / 1048576;
  return {
    pids: [...connections.keys()].sort((a, b) => a - b),
    privateMb: readable ? kbs.reduce((s, k) => s + k!.private, 0) / 1024 : NaN,
    anonymousMb: readable ? kbs.reduce((s, k) => s + k!.anonymous, 0) / 1024 : NaN,
    contextsMb: mb(Object.values(byName).reduce((s, b) => s + b, 0)),
    planContextsMb: mb(PLAN_CONTEXTS.reduce((s, name) => s + (byName[name] ?? 0), 0)),
    minStatements: Math.min(...list.map((c) => c.statements)),
    maxStatements: Math.max(...list.map((c) => c.statements)),
    byName,
  };
}

interface RunResult {
  sizes: Sizes;
  /** After the warm-up's lists, before every table was opened. */
  listsOnly: Snapshot;
  start: Snapshot;
  half: Snapshot;
  end: Snapshot;
  seconds: number;
  failed: number;
}

/** One run on a fresh app (so a fresh pool of backends): warm-up, start, LISTS lists, LISTS more. */
async function runOnce(url: string, sizes: Sizes, admin: ReturnType<typeof connect>): Promise<RunResult> {
  const { app, baseUrl } = await startApp(url);
  try {
    const email = `statements-bench@${randomBytes(4).toString('hex')}.bench`;
    const [user] = await app.db.insert(users).values({ email }).returning();
    const org = await createOrganization(
      app.db,
      { name: 'Statements bench', description: 'statements bench', slug: `bench-stmts-${randomBytes(4).toString('hex')}` },
      user!.id,
      14,
    );
    const token = await startSession(app, user!);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const api = `${baseUrl}/api/v1/${org.slug}`;
    const post = (path: string, body: object) =>
      fetch(`${api}${path}`, { method: 'POST', headers, body: JSON.stringify(body) }).then((r) => r.json() as Promise<{ id: number }>);
    const type = await post('/tag_types', { name: `Service ${randomBytes(2).toString('hex')}` });
    for (let i = 0; i < 30; i++) await post('/tags', { name: `svc-${String(i).padStart(2, '0')}`, tag_type_id: type.id });

    let failed = 0;
    const lists = async (pages: { size: number; page: number }[]) => {
      let next = 0;
      const client = async () => {
        while (next < pages.length) {
          const { size, page } = pages[next++]!;
          const res = await fetch(`${api}/tags?itemsPerPage=${size}&page=${page}`, { headers });
          if (res.status !== 200) failed++;
          await res.arrayBuffer();
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, client));
    };

    // Warm-up: the list's statements on every connection (pages 1 to 3, as below), one measurement (its
    // own statements are then prepared too), then every table opened on every connection.
    await lists(Array.from({ length: WARMUP }, (_, i) => ({ size: 25, page: 1 + (i % 3) })));
    const listsOnly = await measurePool(app, admin);
    if (OPEN_TABLES) await onEveryConnection(app, dsql`select pg_backend_pid() as pid`, OPEN_EVERY_TABLE);

    const start = await measurePool(app, admin);
    const started = performance.now();
    // Every size from 2 to MAX_PAGE_SIZE once, in a scattered order (7919 is prime to the count of
    // sizes), then again on further pages: every request a page size and page not asked before.
    const all = Array.from({ length: 2 * LISTS }, (_, i) =>
      sizes === 'one' ? { size: 25, page: 1 + (i % 3) } : { size: 2 + ((i * 7919) % SIZES), page: 1 + (i % 3) + 3 * Math.floor(i / SIZES) },
    );
    await lists(all.slice(0, LISTS));
    const half = await measurePool(app, admin);
    await lists(all.slice(LISTS));
    const end = await measurePool(app, admin);
    return { sizes, listsOnly, start, half, end, seconds: (performance.now() - started) / 1000, failed };
  } finally {
    await app.close();
  }
}

const growth = (a: number, b: number) => (b - a) / a;
const pct = (g: number) => `${g >= 0 ? '+' : ''}${(g * 100).toFixed(1)} %`;
/** The larger of the two memory measures' growth (private memory is NaN where /proc cannot be read). */
const grew = (a: Snapshot, b: Snapshot) => Math.max(growth(a.privateMb, b.privateMb) || 0, growth(a.contextsMb, b.contextsMb));

async function run(): Promise<{ passed: boolean }> {
  const url = benchDatabaseUrl();
  await ensureDatabase(url);
  const admin = connect(url, 1);
  const results: RunResult[] = [];
  try {
    for (const sizes of RUNS) results.push(await runOnce(url, sizes, admin));
  } finally {
    await admin.end();
  }
  const label = (r: RunResult) => (r.sizes === 'one' ? 'control (25)' : 'distinct sizes');
  const rows: string[][] = [];
  for (const r of results) {
    const row = (measure: string, value: (s: Snapshot) => number, digits = 1) => [
      label(r),
      measure,
      value(r.start).toFixed(digits),
      value(r.half).toFixed(digits),
      value(r.end).toFixed(digits),
      pct(growth(value(r.start), value(r.half))),
      pct(growth(value(r.half), value(r.end))),
    ];
    rows.push(
      row('private memory of the app backends, MB (/proc)', (s) => s.privateMb),
      row('their heap (anonymous memory), MB (/proc)', (s) => s.anonymousMb),
      row('memory contexts of the pool, MB', (s) => s.contextsMb),
      row('of which prepared statements and plans, MB', (s) => s.planContextsMb, 2),
      [
        label(r),
        'prepared statements on a connection (min-max)',
        `${r.start.minStatements}-${r.start.maxStatements}`,
        `${r.half.minStatements}-${r.half.maxStatements}`,
        `${r.end.minStatements}-${r.end.maxStatements}`,
        '-',
        '-',
      ],
    );
  }
  printTable(
    ['run', 'measure', 'start (after warm-up)', `after ${LISTS}`, `after ${2 * LISTS}`, `growth to ${LISTS}`, `growth ${LISTS} to ${2 * LISTS}`],
    rows,
  );
  for (const r of results) {
    const samePool = r.start.pids.join() === r.end.pids.join();
    console.log(
      `${label(r)}: ${2 * LISTS} lists ${r.sizes === 'one' ? 'all pages of 25' : `with distinct page sizes 2..${Math.min(2 * LISTS + 1, MAX_PAGE_SIZE)}, none with the same page twice`} in ${r.seconds.toFixed(1)} s (${r.failed} not 200), ${CLIENTS} at a time, ${samePool ? 'the same' : 'NOT the same'} ${POOL} backends throughout`,
    );
  }
  // Opening every table raises the start, so the growth also in MB and against the start before it.
  for (const r of results) {
    const mb = (a: number, b: number) => `${b - a >= 0 ? '+' : ''}${(b - a).toFixed(1)} MB`;
    console.log(
      `${label(r)}: over the first ${LISTS} private ${mb(r.start.privateMb, r.half.privateMb)}, contexts ${mb(r.start.contextsMb, r.half.contextsMb)}; ` +
        `against the memory before the tables were opened (${r.listsOnly.privateMb.toFixed(1)} MB private, ${r.listsOnly.contextsMb.toFixed(1)} MB contexts): ` +
        `${pct((r.half.privateMb - r.start.privateMb) / r.listsOnly.privateMb)}, ${pct((r.half.contextsMb - r.start.contextsMb) / r.listsOnly.contextsMb)}`,
    );
  }
  console.log(
    OPEN_TABLES
      ? `warm-up: ${WARMUP} lists of 25, then every table opened on every pooled connection`
      : `warm-up: ${WARMUP} lists of 25 only (BENCH_STATEMENT_OPEN_TABLES=no)`,
  );
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (a shared machine: /proc figures move with other work)`,
  );

  // The contexts that moved most in any run, in kB over each half.
  const moved = (r: RunResult, a: Snapshot, b: Snapshot, name: string) => ((b.byName[name] ?? 0) - (a.byName[name] ?? 0)) / 1024;
  const names = [...new Set(results.flatMap((r) => Object.keys(r.end.byName)))]
    .map((name) => [name, Math.max(...results.map((r) => Math.abs(moved(r, r.start, r.half, name)) + Math.abs(moved(r, r.half, r.end, name))))] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([name]) => name);
  console.log("\nthe pool's memory contexts that moved most, kB");
  printTable(
    ['context', ...results.flatMap((r) => [`${label(r)}: to ${LISTS}`, `${LISTS} to ${2 * LISTS}`])],
    names.map((name) => [name, ...results.flatMap((r) => [moved(r, r.start, r.half, name).toFixed(0), moved(r, r.half, r.end, name).toFixed(0)])]),
  );

  const distinct = results.find((r) => r.sizes === 'distinct');
  const control = results.find((r) => r.sizes === 'one');
  const readable = results.every((r) => Number.isFinite(r.end.privateMb));
  const failed = results.reduce((s, r) => s + r.failed, 0);
  const checks: [string, boolean][] = [];
  if (distinct) {
    checks.push([
      `distinct sizes: memory after ${LISTS} within ${TARGET_GROWTH * 100} % of the start (${pct(grew(distinct.start, distinct.half))})`,
      grew(distinct.start, distinct.half) <= TARGET_GROWTH,
    ]);
    if (control) {
      const excess = grew(distinct.start, distinct.half) - grew(control.start, control.half);
      checks.push([`distinct sizes grew at most ${CONTROL_MARGIN * 100} points more than the control (${pct(excess)})`, excess <= CONTROL_MARGIN]);
      checks.push([
        `no more prepared statements on a connection than the control (${distinct.end.maxStatements} vs ${control.end.maxStatements})`,
        distinct.end.maxStatements <= control.end.maxStatements,
      ]);
    } else
      checks.push([
        `prepared statements on a connection level off (${distinct.half.maxStatements} after ${LISTS}, ${distinct.end.maxStatements} after ${2 * LISTS})`,
        distinct.end.maxStatements <= distinct.half.maxStatements,
      ]);
  }
  checks.push([`every list answered 200 (${failed} did not)`, failed === 0]);
  if (!readable) checks.push(['/proc of the backends readable (run on the database machine as root or postgres)', false]);
  console.log('');
  for (const [what, ok] of checks) console.log(`${ok ? 'PASS' : 'FAIL'}  ${what}`);
  const passed = checks.every(([, ok]) => ok) && Boolean(distinct);
  console.log(`target (F9): ${passed ? 'met' : distinct ? 'MISSED' : 'not judged (the control alone)'}`);
  return { passed };
}

const suite: Suite = {
  name: 'statements',
  description: `F9: ${(2 * LISTS).toLocaleString('en-US')} list requests with distinct page sizes beside ${(2 * LISTS).toLocaleString('en-US')} of one size; PostgreSQL backends' memory and prepared statements`,
  run,
};
export default suite;
