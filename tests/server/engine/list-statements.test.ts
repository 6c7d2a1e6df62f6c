import t from 'tap';
import { sql } from 'drizzle-orm';
import { compileSelect, StatementCache } from '../../../server/engine/compiled-select.js';
import { tags } from '../../../server/schema.js';
import { oneListPlan, type ListQuery } from '../../../server/engine/list-query.js';
import { incidentResource } from '../../../server/incidents/resources.js';
import { tagResource } from '../../../server/tags/resources.js';
import { withTenant } from '../../../server/core/db/tenant.js';
import { rowsOf, testApp } from '../../helpers.js';

// Lists of the same shape share one compiled statement (server/engine/list-query.ts, compileList); what
// differs between requests (organization, page, search text) must still reach the database.

t.test('one compiled list statement serves every organization, page and search text with their own rows', async (t) => {
  const { request, organization } = await testApp(t);
  const a = await organization('shared-a');
  const b = await organization('shared-b');
  const seed = async (org: { slug: string; token: string }, names: string[]) => {
    const type = (await request({ method: 'POST', url: `/api/v1/${org.slug}/tag_types`, token: org.token, payload: { name: 'Service' } })).body;
    for (const name of names) await request({ method: 'POST', url: `/api/v1/${org.slug}/tags`, token: org.token, payload: { name, tag_type_id: type.id } });
  };
  await seed(a, ['a-api', 'a-billing', 'a-cache', 'a-dns', 'a-edge']);
  await seed(b, ['b-api', 'b-auth', 'b-cdn']);
  const list = async (org: { slug: string; token: string }, query: Record<string, string>) => {
    const res = await request({ method: 'GET', url: `/api/v1/${org.slug}/tags`, token: org.token, query });
    t.equal(res.status, 200);
    return { names: res.body.items.map((i: { name: string }) => i.name), total: res.body.total };
  };

  const page = { itemsPerPage: '2' };
  t.same(await list(a, { ...page, page: '1' }), { names: ['a-api', 'a-billing'], total: 5 });
  t.same(await list(b, { ...page, page: '1' }), { names: ['b-api', 'b-auth'], total: 3 }, 'the same shape in another organization: its own rows and count');
  t.same(await list(a, { ...page, page: '2' }), { names: ['a-cache', 'a-dns'], total: 5 }, 'another page: another window');
  t.same(await list(b, { ...page, page: '2' }), { names: ['b-cdn'], total: 3 });

  t.same(await list(a, { q: 'api' }), { names: ['a-api'], total: 1 });
  t.same(await list(a, { q: 'dns' }), { names: ['a-dns'], total: 1 }, 'another search text through the same statement');
  t.same(await list(b, { q: 'api' }), { names: ['b-api'], total: 1 });
  t.same(await list(a, { q: '%' }), { names: [], total: 0 }, 'LIKE wildcards in q are matched literally');

  const byName = (org: { slug: string; token: string }, name: string) => list(org, { filter: JSON.stringify([{ field: 'name', op: '==', value: name }]) });
  t.same(await byName(a, 'a-edge'), { names: ['a-edge'], total: 1 });
  t.same(await byName(a, 'b-cdn'), { names: [], total: 0 }, "a filter naming B's tag finds nothing in A");
  t.same(await byName(b, 'b-cdn'), { names: ['b-cdn'], total: 1 }, 'filter values are part of the shape: each filter text gets its own statement');
});

t.test('lists whose statements depend on the caller are not shared: each organization shows its own roles', async (t) => {
  const { request, organization, login } = await testApp(t);
  // The users list computes each user's role in the caller's organization (a value of the caller).
  const a = await organization('roles-a', 'both@roles.test');
  await organization('roles-b');
  await login('both@roles.test', { org: 'roles-b', role: 'Member' });
  const roleIn = async (slug: string) => {
    const res = await request({
      method: 'GET',
      url: `/api/v1/${slug}/users`,
      token: a.token,
      query: { filter: JSON.stringify([{ field: 'email', op: '==', value: 'both@roles.test' }]) },
    });
    t.equal(res.status, 200);
    return res.body.items.map((u: { role: string }) => u.role);
  };
  t.same(await roleIn('roles-a'), ['Owner']);
  t.same(await roleIn('roles-b'), ['Member'], 'the same request in another organization: the role there');
  t.same(await roleIn('roles-a'), ['Owner']);
});

t.test('the statement cache keeps at most its bound, dropping the oldest shape first', async (t) => {
  const cache = new StatementCache<string>(2);
  let builds = 0;
  const get = (key: string) => cache.get(key, () => `${key}#${++builds}`);
  t.equal(get('a'), 'a#1');
  t.equal(get('a'), 'a#1', 'a hit does not build again');
  get('b');
  get('c');
  t.equal(cache.size, 2);
  t.equal(get('b'), 'b#2', 'the newer shapes stay');
  t.equal(get('a'), 'a#4', 'the oldest was dropped and is built again');
});

t.test('a list keeps one plan for every run unless a value can change the best one', async (t) => {
  const query = (extra: Partial<ListQuery>): ListQuery => ({ page: 1, itemsPerPage: 25, ...extra });
  const filter = (...leaves: { field: string; value: unknown; model?: string }[]) => JSON.stringify({ and: leaves.map((l) => ({ op: '==', ...l })) });
  t.ok(oneListPlan(tagResource, query({})), 'a plain page');
  t.ok(
    oneListPlan(tagResource, query({ filter: filter({ field: 'source', value: 'jira' }, { field: 'discoverable', value: true }) })),
    'columns no index leads: read along the sort whatever the value',
  );
  t.notOk(
    oneListPlan(
      tagResource,
      query({ filter: JSON.stringify({ or: [{ field: 'source', op: '==', value: 'jira' }, { not: [{ field: 'count', op: '>', value: 3 }] }] }) }),
    ),
    'one nested condition on a column that leads an index (count, most used first) is enough',
  );
  t.notOk(
    oneListPlan(tagResource, query({ filter: filter({ field: 'tag_type_id', value: 1 }) })),
    'tag_type_id leads a unique index: a rare type is read from it',
  );
  t.notOk(oneListPlan(tagResource, query({ filter: filter({ field: 'id', value: 7 }) })), 'ids (getMany) come from the primary key');
  t.notOk(
    oneListPlan(tagResource, query({ filter: filter({ model: 'TagType', field: 'name', value: 'Team' }) })),
    'a custom filter (a subquery) is planned per value',
  );
  t.notOk(oneListPlan(tagResource, query({ q: 'kafka', sortBy: 'count', descending: 'true' })), 'an ILIKE search pattern is planned per value');
  t.ok(oneListPlan(tagResource, query({ q: 'kafka' })), 'a search from the word index keeps one plan (its values are read in steps of their own)');
  t.notOk(oneListPlan(tagResource, query({ filter: '{"and": [' })), 'text the filter parser refuses');
  t.notOk(oneListPlan(incidentResource, query({ filter: filter({ field: 'status', value: 'Active' }) })), 'incident status leads an index of its own');
  t.ok(oneListPlan(incidentResource, query({ filter: filter({ field: 'visibility', value: 'Open' }) })), 'incident visibility does not');
});

t.test('a list on generic plans runs without JIT compilation (its bound LIMIT is planned as a tenth of the rows)', async (t) => {
  const { database, organization } = await testApp(t);
  const a = await organization('no-jit');
  const setting = (opts: { genericPlans?: boolean }) =>
    withTenant(database.db, { orgId: a.id, userId: null }, async (tx) => rowsOf(await tx.execute(sql`select current_setting('jit') as jit`))[0]!.jit, opts);
  const server = rowsOf(await database.db.execute(sql`select current_setting('jit') as jit`))[0]!.jit;
  t.equal(await setting({ genericPlans: true }), 'off', 'generic plans: no JIT, whatever the estimate');
  t.equal(await setting({}), server, "other transactions keep the server's setting");
  t.equal(rowsOf(await database.db.execute(sql`select current_setting('jit') as jit`))[0]!.jit, server, 'and so does the connection afterwards');
});

t.test('list timestamps are the ISO text a Date gives, read straight from what PostgreSQL sends', async (t) => {
  const { request, organization, database } = await testApp(t);
  const a = await organization('stamps');
  const type = (await request({ method: 'POST', url: `/api/v1/${a.slug}/tag_types`, token: a.token, payload: { name: 'T' } })).body;
  const tag = (await request({ method: 'POST', url: `/api/v1/${a.slug}/tags`, token: a.token, payload: { name: 'stamped', tag_type_id: type.id } })).body;
  // Microseconds, whole seconds and a tenth: each must print as Date.toJSON does (milliseconds, Z).
  for (const stamp of ['2026-03-01 12:34:56.123456+00', '2026-03-01 12:34:56+00', '2026-03-01 12:34:56.5+00']) {
    await database.db
      .update(tags)
      .set({ updated_at: sql`${stamp}::timestamptz` })
      .where(sql`${tags.id} = ${tag.id}`);
    const listed = (await request({ method: 'GET', url: `/api/v1/${a.slug}/tags`, token: a.token })).body.items[0];
    const single = (await request({ method: 'GET', url: `/api/v1/${a.slug}/tags/${tag.id}`, token: a.token })).body;
    t.equal(listed.updated_at, new Date(stamp.replace('+00', 'Z')).toJSON(), `${stamp} as JSON`);
    t.equal(listed.updated_at, single.updated_at, 'the list and the record agree');
    t.equal(listed.created_at, single.created_at);
  }

  const [decode] = compileSelect(database.db.select({ at: tags.created_at }).from(tags), { at: tags.created_at }).decoders;
  const json = (text: string) => JSON.stringify(decode!.mapFromDriverValue(text));
  t.equal(json('2026-03-01 13:34:56.25+01'), JSON.stringify(new Date('2026-03-01T12:34:56.250Z')), 'another session time zone goes through a Date');
  t.equal(json('0044-03-15 12:00:00+00 BC'), JSON.stringify(new Date('0044-03-15 12:00:00+00 BC')), 'so does a date BC');
  t.equal(json('12026-03-01 12:34:56+00'), JSON.stringify(new Date('12026-03-01 12:34:56+00')), 'and a year past 9999');
});
