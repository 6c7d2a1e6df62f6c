/**
 * Review F9: the number of prepared statements per connection stays bounded whatever page sizes callers
 * send. Sends LISTS list requests (GET /tags) with distinct itemsPerPage through the real app on
 * PostgreSQL, CLIENTS at a time so they spread over the pool, and measures the memory of the database
 * backends serving the app before and after: each backend's private memory from /proc (what the kernel
 * charges it; the database runs on this machine) and its memory contexts (pg_backend_memory_contexts,
 * asked on each pooled connection). The start is taken after a warm-up with one page size, so the
 * catalog caches any server builds on its first requests are not counted as growth.
 * Target: after the LISTS requests, within TARGET_GROWTH of where it started.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { sql as dsql } from 'drizzle-orm';
import { createOrganization } from '../../server/accounts/service.js';
import { startSession } from '../../server/core/sessions.js';
import { users } from '../../server/schema.js';
import { benchDatabaseUrl, connect, ensureDatabase } from '../lib/database.js';
import { startApp } from '../lib/server.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';

const LISTS = Number(process.env.BENCH_STATEMENT_LISTS ?? 6000);
const CLIENTS = 10;
const WARMUP = 300;
const TARGET_GROWTH = 0.1;
/** BENCH_STATEMENT_SIZES=one: the control, every list a page of 25, to tell growth from distinct sizes apart from the rest. */
const ONE_SIZE = process.env.BENCH_STATEMENT_SIZES === 'one';

/** Private memory of a backend (kB) from /proc, or null when it cannot be read (another machine or user). */
function privateKb(pid: number): number | null {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
    return kb('Private_Clean') + kb('Private_Dirty');
  } catch {
    return null;
  }
}

async function run(): Promise<{ passed: boolean }> {
  const url = benchDatabaseUrl();
  await ensureDatabase(url);
  const { app, baseUrl } = await startApp(url);
  const admin = connect(url, 1);
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
    const lists = async (sizes: number[]) => {
      let next = 0;
      const client = async () => {
        while (next < sizes.length) {
          const n = sizes[next++]!;
          const res = await fetch(`${api}/tags?itemsPerPage=${n}&page=${1 + (n % 3)}`, { headers });
          if (res.status !== 200) failed++;
          await res.arrayBuffer();
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, client));
    };

    /** Every pooled connection at once (ten open transactions take ten connections): pid, statements, contexts. */
    const pool = async () => {
      const seen = new Map<number, { statements: number; contexts: number; byName: Record<string, number> }>();
      await Promise.all(
        Array.from({ length: 10 }, () =>
          app.db.transaction(async (tx) => {
            const result = await tx.execute(
              dsql`select pg_backend_pid() as pid, (select count(*)::int from pg_prepared_statements) as statements, (select sum(total_bytes) from pg_backend_memory_contexts)::text as contexts,
                (select jsonb_object_agg(name, bytes) from (select name, sum(total_bytes)::bigint as bytes from pg_backend_memory_contexts group by name) c) as by_name`,
            );
            const row = (Array.isArray(result) ? result[0] : (result as { rows: unknown[] }).rows[0]) as {
              pid: number;
              statements: number;
              contexts: string;
              by_name: Record<string, number>;
            };
            await tx.execute(dsql`select pg_sleep(0.3)`);
            seen.set(row.pid, { statements: row.statements, contexts: Number(row.contexts), byName: row.by_name });
          }),
        ),
      );
      return seen;
    };
    /** The app's backends (its pool and its LISTEN connection), all but this suite's own. */
    const backends = async () =>
      (await admin`select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()`).map(
        (r) => Number(r.pid),
      );
    const measure = async () => {
      const connections = await pool();
      const pids = await backends();
      const kbs = pids.map(privateKb);
      const privateMb = kbs.every((k) => k !== null) ? kbs.reduce((s, k) => s + k!, 0) / 1024 : NaN;
      return {
        backends: pids.length,
        privateMb,
        contextsMb: [...connections.values()].reduce((s, c) => s + c.contexts, 0) / 1048576,
        maxStatements: Math.max(...[...connections.values()].map((c) => c.statements)),
        // The pool's memory by context name, to show which one grows.
        byName: [...connections.values()].reduce<Record<string, number>>((sum, c) => {
          for (const [name, bytes] of Object.entries(c.byName)) sum[name] = (sum[name] ?? 0) + Number(bytes);
          return sum;
        }, {}),
      };
    };

    await lists(Array.from({ length: WARMUP }, () => 25));
    const before = await measure();
    const started = performance.now();
    // The distinct sizes 2..LISTS+1 in a scattered order (7919 is prime to LISTS), so the first tenth
    // already reaches every fetch size the engine rounds a page to.
    const sizes = Array.from({ length: LISTS }, (_, i) => (ONE_SIZE ? 25 : 2 + ((i * 7919) % LISTS)));
    const tenth = Math.floor(LISTS / 10);
    await lists(sizes.slice(0, tenth));
    const early = await measure();
    await lists(sizes.slice(tenth));
    const seconds = (performance.now() - started) / 1000;
    const after = await measure();
    const growth = (a: number, b: number) => `${(((b - a) / a) * 100).toFixed(1)} %`;
    printTable(
      ['measure', 'at the start', `after ${tenth}`, `after ${LISTS}`, 'growth from the start', `growth after ${tenth}`],
      [
        ['app backends', String(before.backends), String(early.backends), String(after.backends), '-', '-'],
        [
          'private memory of those backends, MB (/proc)',
          before.privateMb.toFixed(1),
          early.privateMb.toFixed(1),
          after.privateMb.toFixed(1),
          growth(before.privateMb, after.privateMb),
          growth(early.privateMb, after.privateMb),
        ],
        [
          'memory contexts of the pool, MB',
          before.contextsMb.toFixed(1),
          early.contextsMb.toFixed(1),
          after.contextsMb.toFixed(1),
          growth(before.contextsMb, after.contextsMb),
          growth(early.contextsMb, after.contextsMb),
        ],
        ['most prepared statements on a connection', String(before.maxStatements), String(early.maxStatements), String(after.maxStatements), '-', '-'],
      ],
    );
    console.log(
      `\n${LISTS} lists with ${ONE_SIZE ? 'one page size (25, the control)' : `distinct page sizes 2..${LISTS + 1}`} in ${seconds.toFixed(1)} s (${failed} not 200), ${CLIENTS} at a time; load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    const grown = Object.entries(after.byName)
      .map(([name, bytes]) => [name, bytes - (before.byName[name] ?? 0)] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5);
    console.log(`the pool's contexts that grew most: ${grown.map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)} kB`).join(', ')}`);
    const grew = Math.max((after.privateMb - before.privateMb) / before.privateMb || 0, (after.contextsMb - before.contextsMb) / before.contextsMb);
    const passed = !failed && Number.isFinite(after.privateMb) && grew <= TARGET_GROWTH;
    console.log(
      `target: the backends' memory within ${TARGET_GROWTH * 100} % of the start: ${passed ? 'met' : 'MISSED'}${Number.isFinite(after.privateMb) ? '' : ' (/proc of the backends not readable: run on the database machine as root or postgres)'}`,
    );
    // Bounded growth (page size, offset and count cap are bind parameters: no statement per size) shows in the last column.
    const lateGrowth = Math.max((after.privateMb - early.privateMb) / early.privateMb || 0, (after.contextsMb - early.contextsMb) / early.contextsMb);
    console.log(`bounded: after the first ${tenth} lists the memory grew ${(lateGrowth * 100).toFixed(1)} % more over the next ${LISTS - tenth}`);
    return { passed };
  } finally {
    await admin.end();
    await app.close();
  }
}

const suite: Suite = {
  name: 'statements',
  description: `F9: ${LISTS.toLocaleString('en-US')} list requests with distinct page sizes; PostgreSQL backends' memory before and after`,
  run,
};
export default suite;
