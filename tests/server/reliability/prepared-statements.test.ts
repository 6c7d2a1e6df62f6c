import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import t from 'tap';
import { rowsOf, testApp } from '../../helpers.js';

// Review F9: every distinct page size used to leave one more prepared statement on each pooled
// PostgreSQL connection (the LIMIT and count cap were written into the statement's text; later
// rounded to 13 fetch sizes and powers of two, still about 30 statements a list shape), so a Member
// could grow the database's memory with the page sizes they send. Page size, offset and count cap are
// bind parameters now: one statement a list shape. On PGlite there is one connection and no pool to
// grow; this runs on PostgreSQL only (DATABASE_URL).
const REQUESTS = Number(process.env.STATEMENT_REQUESTS ?? 600);

t.test(
  'lists with hundreds of distinct page sizes leave a bounded number of prepared statements per connection',
  { skip: !process.env.DATABASE_URL && 'PostgreSQL only (set DATABASE_URL)' },
  async (t) => {
    const { request, organization, database } = await testApp(t);
    const org = await organization('stmts');
    const type = (await request({ method: 'POST', url: `/api/v1/${org.slug}/tag_types`, token: org.token, payload: { name: 'Service' } })).body;
    for (let i = 0; i < 30; i++)
      await request({
        method: 'POST',
        url: `/api/v1/${org.slug}/tags`,
        token: org.token,
        payload: { name: `svc-${String(i).padStart(2, '0')}`, tag_type_id: type.id },
      });

    /**
     * Each connection of the app's pool: its prepared statements and memory. Ten transactions (the pool's
     * size) held open together each take a connection of their own.
     */
    const connections = async () => {
      const seen = new Map<number, { statements: number; texts: string[]; contexts: number; privateKb: number | null }>();
      await Promise.all(
        Array.from({ length: 10 }, () =>
          database.db.transaction(async (tx) => {
            const [row] = rowsOf<{ pid: number; statements: number; texts: string[]; contexts: string }>(
              await tx.execute(
                sql`select pg_backend_pid() as pid, (select count(*)::int from pg_prepared_statements) as statements, (select coalesce(array_agg(statement), '{}') from pg_prepared_statements) as texts, (select sum(total_bytes) from pg_backend_memory_contexts)::text as contexts`,
              ),
            );
            await tx.execute(sql`select pg_sleep(0.3)`);
            seen.set(row!.pid, { statements: row!.statements, texts: row!.texts, contexts: Number(row!.contexts), privateKb: privateKb(row!.pid) });
          }),
        ),
      );
      return [...seen.values()];
    };
    const summary = (list: Awaited<ReturnType<typeof connections>>) => ({
      connections: list.length,
      maxStatements: Math.max(...list.map((c) => c.statements)),
      // Which connection served which statement first depends on the pool; the pool's distinct statements do not.
      distinctStatements: new Set(list.flatMap((c) => c.texts)).size,
      contextsMb: +(list.reduce((s, c) => s + c.contexts, 0) / 1048576).toFixed(1),
      privateMb: list.every((c) => c.privateKb !== null) ? +(list.reduce((s, c) => s + c.privateKb!, 0) / 1024).toFixed(1) : 'not readable',
    });

    const before = summary(await connections());
    // Every connection of the pool serves pages 1 to 3 of the usual size first (the pages the distinct
    // sizes below ask for): the statements of each shape are then prepared.
    const usual = async () => {
      for (let round = 0; round < 2; round++)
        for (const page of ['1', '2', '3'])
          await Promise.all(
            Array.from({ length: 10 }, () =>
              request({ method: 'GET', url: `/api/v1/${org.slug}/tags`, token: org.token, query: { itemsPerPage: '25', page } }),
            ),
          );
    };
    await usual();
    const usualSize = summary(await connections());
    const sizes = Array.from({ length: REQUESTS }, (_, i) => 2 + (i % 9999));
    let ok = 0;
    let warm: ReturnType<typeof summary> | undefined;
    // Ten at a time, so the requests spread over the pool's connections as a busy server's do.
    for (let i = 0; i < sizes.length; i += 10) {
      // With STATEMENT_REQUESTS above 600: the memory after 600 distinct sizes, to compare the rest with.
      if (i === 600) warm = summary(await connections());
      const answers = await Promise.all(
        sizes
          .slice(i, i + 10)
          .map((n) =>
            request({ method: 'GET', url: `/api/v1/${org.slug}/tags`, token: org.token, query: { itemsPerPage: String(n), page: String(1 + (n % 3)) } }),
          ),
      );
      ok += answers.filter((a) => a.status === 200).length;
    }
    const after = summary(await connections());
    t.equal(ok, REQUESTS, 'every list answered');
    t.comment(
      `F9: ${REQUESTS} lists with distinct itemsPerPage; before ${JSON.stringify(before)}; after lists of 25 ${JSON.stringify(usualSize)};${warm ? ` after 600 ${JSON.stringify(warm)};` : ''} after ${JSON.stringify(after)}`,
    );
    t.ok(
      after.distinctStatements <= usualSize.distinctStatements,
      `${REQUESTS} distinct page sizes prepared no statement the lists of 25 had not (${after.distinctStatements} against ${usualSize.distinctStatements} distinct statements in the pool; ${after.maxStatements} on the busiest connection)`,
    );

    const page = await request({ method: 'GET', url: `/api/v1/${org.slug}/tags`, token: org.token, query: { itemsPerPage: '7', page: '2' } });
    t.same(
      { names: page.body.items.map((i: { name: string }) => i.name), total: page.body.total },
      { names: ['svc-07', 'svc-08', 'svc-09', 'svc-10', 'svc-11', 'svc-12', 'svc-13'], total: 30 },
      'a page size between the fetched sizes still gets exactly its rows',
    );
  },
);

/** Private memory of a PostgreSQL backend on this machine (kB), when /proc lets us read it. */
function privateKb(pid: number): number | null {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
    return kb('Private_Clean') + kb('Private_Dirty');
  } catch {
    return null;
  }
}
