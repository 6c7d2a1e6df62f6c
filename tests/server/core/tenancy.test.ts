import { sql } from 'drizzle-orm';
import t from 'tap';
import { tags } from '../../../server/schema.js';
import { POOL_CLOSE_SECONDS } from '../../../server/core/db/client.js';
import { withTenant } from '../../../server/core/db/tenant.js';
import { literalLimit, textSortKey } from '../../../server/engine/list-query.js';
import { rowsOf, testApp } from '../../helpers.js';

t.test('organization A never reads, lists, changes or deletes what belongs to B', async (t) => {
  const { request, organization, database } = await testApp(t);
  const a = await organization('org-a');
  const b = await organization('org-b');
  const post = (org: string, token: string, url: string, payload: object) => request({ method: 'POST', url: `/api/v1/${org}${url}`, token, payload });
  const typeA = (await post(a.slug, a.token, '/tag_types', { name: 'Env' })).body;
  const typeB = (await post(b.slug, b.token, '/tag_types', { name: 'Env' })).body;
  const tagB = (await post(b.slug, b.token, '/tags', { name: 'secret-b', tag_type_id: typeB.id })).body;
  await post(a.slug, a.token, '/tags', { name: 'mine', tag_type_id: typeA.id });

  t.equal((await request({ method: 'GET', url: `/api/v1/${b.slug}/tags`, token: a.token })).status, 403, "another organization's path is refused");
  const get = await request({ method: 'GET', url: `/api/v1/${a.slug}/tags/${tagB.id}`, token: a.token });
  t.equal(get.status, 404, 'by id: not found, as if it did not exist');
  const put = await request({ method: 'PUT', url: `/api/v1/${a.slug}/tags/${tagB.id}`, token: a.token, payload: { name: 'hijacked' } });
  t.equal(put.status, 404);
  t.equal((await request({ method: 'DELETE', url: `/api/v1/${a.slug}/tags/${tagB.id}`, token: a.token })).status, 404);
  const byFilter = await request({
    method: 'GET',
    url: `/api/v1/${a.slug}/tags`,
    token: a.token,
    query: { filter: JSON.stringify({ and: [{ field: 'id', op: 'in', value: [tagB.id] }] }) },
  });
  t.same(byFilter.body.items, [], 'by filter: nothing');
  const list = await request({ method: 'GET', url: `/api/v1/${a.slug}/tags`, token: a.token, query: { itemsPerPage: '-1' } });
  t.same(
    list.body.items.map((x: { name: string }) => x.name),
    ['mine'],
  );

  const crossRef = await post(a.slug, a.token, '/tags', { name: 'sneaky', tag_type_id: typeB.id });
  t.equal(crossRef.status, 422, "a body naming B's id is refused");
  t.equal(crossRef.body.detail[0].msg, `Tag type '${typeB.id}' could not be found.`);
  t.same(crossRef.body.detail[0].loc, ['body', 'tag_type_id']);

  const still = await request({ method: 'GET', url: `/api/v1/${b.slug}/tags/${tagB.id}`, token: b.token });
  t.equal(still.body.name, 'secret-b', "B's tag is unchanged");
  const count = await database.db.select({ n: sql<number>`count(*)::int` }).from(tags);
  t.equal(count[0]!.n, 2, 'nothing was created by the refused requests');

  const orgs = await request({ method: 'GET', url: `/api/v1/${a.slug}/organizations`, token: a.token });
  t.same(
    orgs.body.items.map((o: { slug: string }) => o.slug),
    ['org-a'],
    'organizations: only those one belongs to',
  );
  const editB = await request({ method: 'PUT', url: `/api/v1/${a.slug}/organizations/${b.id}`, token: a.token, payload: { description: 'mine now' } });
  t.equal(editB.status, 404);
  const members = await request({ method: 'GET', url: `/api/v1/${a.slug}/users`, token: a.token });
  t.same(
    members.body.items.map((u: { email: string }) => u.email),
    ['owner@org-a.test'],
    "B's members stay hidden",
  );
});

t.test('row level security: a query without the organization condition sees only its own rows', async (t) => {
  const { request, organization, database } = await testApp(t);
  const a = await organization('rls-a');
  const b = await organization('rls-b');
  for (const o of [a, b]) {
    const type = (await request({ method: 'POST', url: `/api/v1/${o.slug}/tag_types`, token: o.token, payload: { name: 'T' } })).body;
    await request({ method: 'POST', url: `/api/v1/${o.slug}/tags`, token: o.token, payload: { name: `tag-of-${o.slug}`, tag_type_id: type.id } });
  }
  const seenByA = await withTenant(database.db, { orgId: a.id, userId: null }, (tx) => tx.select({ name: tags.name }).from(tags));
  t.same(
    seenByA.map((r) => r.name),
    ['tag-of-rls-a'],
    'a forgotten WHERE still returns only A',
  );
  const unscoped = await database.db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('role', 'firewatch_app', true)`);
    return tx.select({ name: tags.name }).from(tags);
  });
  t.same(unscoped, [], 'the application role with no organization set sees nothing');
  await t.rejects(
    withTenant(database.db, { orgId: a.id, userId: null }, (tx) => tx.update(tags).set({ organization_id: b.id })),
    'moving rows into another organization is refused',
  );
});

t.test('unknown organization is a 404 naming it', async (t) => {
  const { request, login } = await testApp(t);
  const token = await login('x@example.com');
  const res = await request({ method: 'GET', url: '/api/v1/nowhere/tags', token });
  t.equal(res.status, 404);
  t.equal(res.body.detail[0].msg, "Organization 'nowhere' could not be found.");
  const login404 = await request({ method: 'POST', url: '/api/v1/nowhere/auth/login', payload: { email: 'x@example.com' } });
  t.equal(login404.status, 404);
});

t.test('bad bodies change nothing and answer in the detail shape', async (t) => {
  const { request, login } = await testApp(t, { BODY_LIMIT: '2048' });
  const token = await login('x@example.com');
  const send = (payload: string, type = 'application/json') =>
    request({ method: 'POST', url: '/api/v1/default/tag_types', token, payload, headers: { 'content-type': type } });
  const before = (await request({ method: 'GET', url: '/api/v1/default/tag_types', token })).body.total;
  const malformed = await send('{"name": ');
  t.equal(malformed.status, 400);
  t.equal(malformed.body.detail[0].msg, 'The request body is not valid JSON.');
  const huge = await send(JSON.stringify({ name: 'x'.repeat(5000) }));
  t.equal(huge.status, 413);
  t.ok(Array.isArray(huge.body.detail));
  const wrongType = await send(JSON.stringify({ name: 42 }));
  t.equal(wrongType.status, 422);
  t.same(wrongType.body.detail[0].loc, ['body', 'name']);
  const unknown = await send(JSON.stringify({ name: 'ok', colour: 'red' }));
  t.equal(unknown.status, 422);
  t.equal(unknown.body.detail[0].msg, "Unknown field 'colour'.");
  const missing = await send(JSON.stringify({}));
  t.equal(missing.body.detail[0].msg, 'This field is required');
  const blank = await send(JSON.stringify({ name: '   ' }));
  t.equal(blank.body.detail[0].msg, 'This field is required');
  const list = await request({ method: 'GET', url: '/api/v1/default/tag_types', token });
  t.equal(list.body.total, before, 'none of them created anything');
  const badId = await request({ method: 'GET', url: '/api/v1/default/tag_types/abc', token });
  t.equal(badId.status, 422);
  const orgName = await request({ method: 'POST', url: '/api/v1/default/organizations', token, payload: { description: 'd' } });
  t.equal(orgName.body.detail[0].msg, 'This field is required');
  const org = await request({ method: 'POST', url: '/api/v1/default/organizations', token, payload: { name: 'Acme', description: 'd' } });
  t.equal(org.status, 201);
  t.equal(org.body.banner_color, '#1565C0');
  t.equal(org.body.plan, 'free');
  t.ok(new Date(org.body.free_trial_end).getTime() - Date.now() > 13 * 86400_000, 'a 14-day trial');
  const rename = await request({ method: 'PUT', url: `/api/v1/default/organizations/${org.body.id}`, token, payload: { name: 'Other' } });
  t.equal(rename.status, 422);
  t.equal(rename.body.detail[0].msg, 'This field cannot be changed after creation.');
});

t.test('a membership changed after it was looked up applies at once to every tenant transaction', async (t) => {
  const { request, login, database } = await testApp(t);
  const token = await login('admin@cache.test', { role: 'Admin' });
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } })).body;
  const apiKey = (description: string) => request({ method: 'POST', url: '/api/v1/default/apikeys', token, payload: { project_id: project.id, description } });
  t.equal((await apiKey('first')).status, 201, 'an Admin may create API keys');
  // The role is now cached; change it behind the app's back, as another process would.
  await login('admin@cache.test', { role: 'Member' });
  const refused = await apiKey('second');
  t.equal(refused.status, 403, 'the demotion holds for the very next write');
  const list = await request({ method: 'GET', url: '/api/v1/default/tags', token });
  t.equal(list.status, 200, 'a Member still reads');

  await database.db.execute(sql`delete from memberships where user_id = (select id from users where email = 'admin@cache.test')`);
  const gone = await request({ method: 'GET', url: '/api/v1/default/tags', token });
  t.equal(gone.status, 403, 'a removed member is refused at once, though the membership was cached');
  t.match(gone.body.detail[0].msg, /not a member of organization 'default'/);
  const keys = await request({ method: 'GET', url: '/api/v1/default/apikeys', token: await login('owner@cache.test') });
  t.same(
    keys.body.items.map((k: { description: string }) => k.description),
    ['first'],
    'the refused write left nothing behind',
  );
});

t.test('a one-round transaction refuses a query sent after its COMMIT instead of running it unscoped', async (t) => {
  const { database, organization } = await testApp(t);
  if (database.kind !== 'postgres') return t.plan(0, 'COMMIT is pipelined on PostgreSQL only');
  const a = await organization('one-round');
  const scope = { orgId: a.id, userId: null };
  const oneRound = { oneRound: true };
  const first = await withTenant(
    database.db,
    scope,
    (tx) => Promise.all([tx.select().from(tags), tx.execute(sql`select current_setting('app.org_id') as org`)]),
    oneRound,
  );
  t.same((first[1] as unknown as { org: string }[])[0], { org: String(a.id) }, 'queries sent at once run inside the scoped transaction');
  const late = await withTenant(
    database.db,
    scope,
    async (tx) => {
      await tx.select().from(tags);
      return tx.execute(sql`select current_setting('app.org_id', true) as org`);
    },
    oneRound,
  ).catch((err: Error) => err);
  t.match((late as Error & { cause?: Error }).cause?.message, /sent a query after its COMMIT/, 'a second round is refused');
});

t.test('closing the pool right after a read-only answer waits for its COMMIT, not for the pool to cut connections', async (t) => {
  const { database, organization } = await testApp(t);
  if (database.kind !== 'postgres') return t.plan(0, 'COMMIT follows the answer on PostgreSQL only');
  const a = await organization('closing');
  // The answer comes before its COMMIT returns (TenantOptions.readOnly): the COMMIT is still out.
  await withTenant(database.db, { orgId: a.id, userId: null }, (tx) => tx.select().from(tags), { readOnly: true });
  // postgres.js cuts the connections still busy when a timer of POOL_CLOSE_SECONDS fires.
  const realSetTimeout = globalThis.setTimeout;
  let cut = false;
  globalThis.setTimeout = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) =>
    realSetTimeout(ms === POOL_CLOSE_SECONDS * 1000 ? (...late: unknown[]) => ((cut = true), fn(...late)) : fn, ms, ...args)) as typeof setTimeout;
  try {
    await database.close();
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
  t.notOk(cut, 'the pool closed once the COMMIT was through, not when its timeout cut the connection');
});

t.test('an unfiltered list page plans once: generic plans for the transaction, its LIMIT written out', async (t) => {
  const { database, organization, request } = await testApp(t);
  const a = await organization('generic-plans');
  const mode = (opts: { genericPlans?: boolean }) =>
    withTenant(
      database.db,
      { orgId: a.id, userId: null },
      async (tx) => rowsOf(await tx.execute(sql`select current_setting('plan_cache_mode') as mode`))[0]!.mode,
      opts,
    );
  t.equal(await mode({ genericPlans: true }), 'force_generic_plan', 'asked for: the transaction runs generic plans');
  t.equal(await mode({}), 'auto', 'otherwise, and after it, PostgreSQL chooses per run');

  if (database.kind !== 'postgres') return;
  const type = (await request({ method: 'POST', url: `/api/v1/${a.slug}/tag_types`, token: a.token, payload: { name: 'T' } })).body;
  await database.db.execute(
    sql.raw(`insert into tags (organization_id, tag_type_id, name) select ${a.id}, ${type.id}, 'tag-' || i from generate_series(1, 3000) i`),
  );
  await database.db.execute(sql`analyze tags`);
  // The page's id window as the list route builds it: what does its generic plan expect to read?
  const window = (limit: number) =>
    database.db
      .select({ id: tags.id })
      .from(tags)
      .where(sql`${tags.organization_id} = ${a.id}`)
      .orderBy(textSortKey(tags.name), tags.id)
      .limit(limit)
      .offset(25)
      .toSQL();
  const plannedRows = (query: { sql: string; params: unknown[] }) =>
    database.db.transaction(async (tx) => {
      await tx.execute(sql`set local plan_cache_mode = force_generic_plan`);
      await tx.execute(sql.raw(`prepare page_window as ${query.sql}`));
      const args = query.params.map((p) => (typeof p === 'number' ? String(p) : `'${String(p)}'`)).join(', ');
      const plan = rowsOf(await tx.execute(sql.raw(`explain (format json) execute page_window(${args})`)))[0]!['QUERY PLAN'] as unknown as [
        { Plan: { 'Plan Rows': number } },
      ];
      await tx.execute(sql.raw('deallocate page_window'));
      return plan[0].Plan['Plan Rows'];
    });
  t.equal(await plannedRows(window(literalLimit(25))), 25, 'with the limit written out, the generic plan reads a page');
  t.ok((await plannedRows(window(25))) > 25, 'as a parameter, PostgreSQL would plan for a guess (a tenth of the table)');
});

t.test('searches under row level security can use their indexes (ILIKE and @@ are leakproof)', async (t) => {
  const { database, organization, request } = await testApp(t);
  const a = await organization('lp-a');
  const type = (await request({ method: 'POST', url: `/api/v1/${a.slug}/tag_types`, token: a.token, payload: { name: 'T' } })).body;
  await database.db.execute(
    sql.raw(`insert into tags (organization_id, tag_type_id, name) select ${a.id}, ${type.id}, 'tag-' || md5(i::text) from generate_series(1, 3000) i`),
  );
  await database.db.execute(sql`insert into tags (organization_id, tag_type_id, name) values (${a.id}, ${type.id}, 'api-latency')`);
  await database.db.execute(sql`vacuum analyze tags`); // vacuum also empties the GIN pending list
  const plan = (query: string) =>
    withTenant(database.db, { orgId: a.id, userId: null }, async (tx) => {
      // Small enough to scan whole; forbid that, so the plan shows which index may serve the ILIKE.
      await tx.execute(sql`set local enable_seqscan = off`);
      return rowsOf(await tx.execute(sql.raw(`explain ${query}`)))
        .map((r) => Object.values(r)[0])
        .join('\n');
    });
  t.match(
    await plan(`select id from tags where organization_id = ${a.id} and name ilike '%latency%'`),
    /Index Cond: .*~~\*/,
    'q on tags: the trigram index takes the ILIKE',
  );
  const marked = await database.db.execute(
    sql`select proname from pg_proc where proleakproof and proname in ('ts_match_vq', 'texticlike', 'texticnlike', 'textlike') order by proname`,
  );
  const names = rowsOf<{ proname: string }>(marked).map((r) => r.proname);
  t.same(names, ['texticlike', 'texticnlike', 'textlike', 'ts_match_vq'], 'full-text match (chat retrieval) and LIKE are leakproof too');
});
