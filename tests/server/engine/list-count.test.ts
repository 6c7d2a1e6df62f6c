import { sql } from 'drizzle-orm';
import t from 'tap';
import { testApp } from '../../helpers.js';

// Lists count at most COUNT_CAP (1,000) rows past the window the page sits in (server/engine/list-query.ts).
t.test('list totals: exact below the cap, capped and flagged above it, growing as the caller pages on', async (t) => {
  const { request, login, database } = await testApp(t);
  const token = await login('owner@example.com');
  const type = await request({ method: 'POST', url: '/api/v1/default/tag_types', token, payload: { name: 'Service' } });
  // 1,030 tags straight into the table (as the organization's own rows); every 10th one from jira.
  await database.db.execute(sql`
    insert into tags (organization_id, tag_type_id, name, source)
    select o.id, ${type.body.id}, 'svc-' || lpad(i::text, 4, '0'), case when i % 10 = 0 then 'jira' else 'product' end
    from organizations o cross join generate_series(1, 1030) i where o.slug = 'default'`);

  const first = await request({ method: 'GET', url: '/api/v1/default/tags?itemsPerPage=25', token });
  t.equal(first.status, 200);
  t.same(
    { total: first.body.total, totalCapped: first.body.totalCapped, items: first.body.items.length },
    { total: 1000, totalCapped: true, items: 25 },
    'more than 1,000: total is the cap, flagged',
  );
  t.equal(first.body.items[0].name, 'svc-0001');

  const page40 = await request({ method: 'GET', url: '/api/v1/default/tags?itemsPerPage=25&page=40', token });
  t.same(
    { total: page40.body.total, totalCapped: page40.body.totalCapped, first: page40.body.items[0].name },
    { total: 1030, totalCapped: false, first: 'svc-0976' },
    'paging past the cap counts further: the real total',
  );

  const last = await request({ method: 'GET', url: '/api/v1/default/tags?itemsPerPage=25&page=42', token });
  t.same(
    { total: last.body.total, names: last.body.items.map((i: { name: string }) => i.name) },
    { total: 1030, names: Array.from({ length: 5 }, (_, i) => `svc-${1026 + i}`) },
  );

  const filter = encodeURIComponent(JSON.stringify({ and: [{ field: 'source', op: '==', value: 'jira' }] }));
  const jira = await request({ method: 'GET', url: `/api/v1/default/tags?itemsPerPage=25&filter=${filter}`, token });
  t.same(
    { total: jira.body.total, totalCapped: jira.body.totalCapped },
    { total: 103, totalCapped: false },
    'a filtered list below the cap is counted exactly',
  );

  const searched = await request({ method: 'GET', url: '/api/v1/default/tags?q=svc-00', token });
  t.same({ total: searched.body.total, totalCapped: searched.body.totalCapped }, { total: 99, totalCapped: false }, 'q counts exactly below the cap');

  const all = await request({ method: 'GET', url: '/api/v1/default/tags?itemsPerPage=-1', token });
  t.same(
    { items: all.body.items.length, total: all.body.total, totalCapped: all.body.totalCapped },
    { items: 1030, total: 1030, totalCapped: false },
    '"all" is counted as far as it reads',
  );

  const beyond = await request({ method: 'GET', url: '/api/v1/default/tags?itemsPerPage=25&page=500', token });
  t.same({ items: beyond.body.items, total: beyond.body.total }, { items: [], total: 1030 }, 'a page past the end still says how many there are');
});

t.test('a failed list leaves nothing behind: later reads and writes on the same pool work', async (t) => {
  const { request, login } = await testApp(t);
  const token = await login('owner@example.com');
  const type = await request({ method: 'POST', url: '/api/v1/default/tag_types', token, payload: { name: 'Team' } });
  // More failed lists than the pool has connections: each must roll back and hand its connection back.
  for (let i = 0; i < 12; i++) {
    const bad = await request({ method: 'GET', url: '/api/v1/default/tags?sortBy=nope', token });
    t.equal(bad.status, 422);
  }
  const created = await request({ method: 'POST', url: '/api/v1/default/tags', token, payload: { name: 'sre', tag_type_id: type.body.id } });
  t.equal(created.status, 201);
  const listed = await request({ method: 'GET', url: '/api/v1/default/tags', token });
  t.same(
    listed.body.items.map((i: { name: string }) => i.name),
    ['sre'],
  );
});
