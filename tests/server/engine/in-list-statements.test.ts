import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import t from 'tap';
import { filterCondition } from '../../../server/engine/filters.js';
import { tags } from '../../../server/schema.js';
import { rowsOf, testApp } from '../../helpers.js';

// Review F9: an `in` list of each length was a statement text of its own, prepared and kept on every
// pooled PostgreSQL connection (+372 MB over 2,000 lengths). `in` and `not_in` now send one array
// parameter (`= any($1::type[])`, `<> all(...)`): one statement whatever the length.

const LENGTHS = 50;
const TAGS = 12;

async function setup(t: Parameters<typeof testApp>[0]) {
  const ctx = await testApp(t);
  const org = await ctx.organization('in-lists');
  const call = (query: Record<string, string>) => ctx.request({ method: 'GET', url: `/api/v1/${org.slug}/tags`, token: org.token, query });
  const type = (await ctx.request({ method: 'POST', url: `/api/v1/${org.slug}/tag_types`, token: org.token, payload: { name: 'Service' } })).body;
  const made: { id: number; name: string; created_at: string }[] = [];
  for (let i = 0; i < TAGS; i++) {
    const tag = (
      await ctx.request({ method: 'POST', url: `/api/v1/${org.slug}/tags`, token: org.token, payload: { name: `svc-"${i}"\\`, tag_type_id: type.id } })
    ).body;
    // Whole milliseconds, so the API's timestamps name them exactly.
    const stamp = new Date(Date.UTC(2026, 2, 1 + i, 12, 0, 0, 123)).toISOString();
    await ctx.database.db
      .update(tags)
      .set({ created_at: sql`${stamp}::timestamptz` })
      .where(sql`${tags.id} = ${tag.id}`);
    made.push({ id: tag.id, name: tag.name, created_at: stamp });
  }
  /** The ids (sorted) a filter of one condition lists. */
  const ids = async (field: string, op: string, value: unknown[]) => {
    const res = await call({ itemsPerPage: '100', filter: JSON.stringify([{ field, op, value }]) });
    if (res.status !== 200) throw new Error(`${field} ${op}: ${res.status} ${JSON.stringify(res.body)}`);
    return (res.body.items as { id: number }[]).map((i) => i.id).sort((a, b) => a - b);
  };
  return { ...ctx, org, call, made, ids };
}

t.test('in and not_in filter integer, text and date fields correctly at every list length', async (t) => {
  const { made, ids } = await setup(t);
  const all = made.map((m) => m.id);
  for (const field of ['id', 'name', 'created_at'] as const) {
    const of = (m: (typeof made)[number]): unknown => m[field];
    for (const length of [0, 1, 2, 5, TAGS]) {
      // Every other tag, up to `length` of them, then values no tag has to make the list longer.
      const picked = made.filter((_, i) => i % 2 === 0).slice(0, length);
      const filler = field === 'id' ? [999_999] : field === 'name' ? ['nobody'] : ['1999-01-01T00:00:00.000Z'];
      const value = [...picked.map(of), ...(length > 2 ? filler : [])];
      const want = picked.map((m) => m.id).sort((a, b) => a - b);
      t.same(await ids(field, 'in', value), want, `${field} in a list of ${value.length}`);
      t.same(
        await ids(field, 'not_in', value),
        all.filter((id) => !want.includes(id)),
        `${field} not_in a list of ${value.length}`,
      );
    }
  }
  t.same(await ids('name', 'in', ['svc-"3"\\']), [made[3]!.id], 'quotes and backslashes in a text value are matched literally');
});

t.test('the filter SQL is one text whatever the list length', async (t) => {
  const dialect = new PgDialect();
  for (const field of [
    { column: tags.id, type: 'number' as const },
    { column: tags.name, type: 'string' as const },
    { column: tags.created_at, type: 'date' as const },
  ]) {
    for (const op of ['in', 'not_in'] as const) {
      const texts = new Set<string>();
      for (let n = 0; n < LENGTHS; n++) {
        const values = Array.from({ length: n }, (_, i) => (field.type === 'number' ? i : field.type === 'date' ? new Date(i) : `v${i}`));
        texts.add(dialect.sqlToQuery(filterCondition(field, op, values)).sql);
      }
      t.equal(texts.size, 1, `${field.column.name} ${op}: ${[...texts][0]}`);
    }
  }
});

t.test(
  `${LENGTHS} lists with distinct in-list lengths prepare no statement beyond the first one's`,
  { skip: !process.env.DATABASE_URL && 'PostgreSQL only (set DATABASE_URL): PGlite has no pool of prepared connections' },
  async (t) => {
    const { database, call, made } = await setup(t);
    /** The distinct texts prepared over the pool's connections (ten transactions held open together take one each). */
    const prepared = async () => {
      const texts = new Set<string>();
      await Promise.all(
        Array.from({ length: 10 }, () =>
          database.db.transaction(async (tx) => {
            const rows = rowsOf<{ statement: string }>(await tx.execute(sql`select statement from pg_prepared_statements`));
            for (const r of rows) texts.add(r.statement);
            await tx.execute(sql`select pg_sleep(0.2)`);
          }),
        ),
      );
      return texts;
    };
    const list = (n: number) =>
      call({
        filter: JSON.stringify([{ field: 'id', op: 'in', value: Array.from({ length: n }, (_, i) => made[i % TAGS]!.id + (i >= TAGS ? 1000 * i : 0)) }]),
      });
    // Every connection serves the one-value list first.
    for (let round = 0; round < 2; round++) await Promise.all(Array.from({ length: 10 }, () => list(1)));
    const first = await prepared();
    t.ok(
      [...first].some((s) => /"tags"\."id" = any\(\$\d+::integer\[\]\)/.test(s)),
      'the list statement is prepared with an array parameter',
    );
    let ok = 0;
    for (let n = 2; n < 2 + LENGTHS; n += 10) {
      const lengths = Array.from({ length: 10 }, (_, i) => n + i);
      const answers = await Promise.all(lengths.map(list));
      ok += answers.filter((a, i) => a.status === 200 && a.body.total === Math.min(lengths[i]!, TAGS)).length;
    }
    t.equal(ok, LENGTHS, 'every list answered with the rows its values name');
    const after = await prepared();
    const added = [...after].filter((s) => !first.has(s));
    t.equal(added.length, 0, `no new statement text (${added.length} new)`);
  },
);
