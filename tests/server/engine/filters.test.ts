import t from 'tap';
import { testApp, type TestApp } from '../../helpers.js';

async function seed(t: Parameters<typeof testApp>[0]) {
  const ctx = await testApp(t);
  const token = await ctx.login('owner@example.com');
  const post = (url: string, payload: object) => ctx.request({ method: 'POST', url: `/api/v1/default${url}`, token, payload });
  const env = (await post('/tag_types', { name: 'Environment' })).body;
  const team = (await post('/tag_types', { name: 'Team' })).body;
  const rows = [
    { name: 'alpha', tag_type_id: env.id, count: 5, uri: 'https://a.example' },
    { name: 'beta', tag_type_id: env.id, count: 10 },
    { name: 'gamma', tag_type_id: team.id, count: 15, discoverable: false },
    { name: 'Delta', tag_type_id: team.id, count: 20, uri: 'https://d.example' },
  ];
  for (const row of rows) t.equal((await post('/tags', row)).status, 201);
  return { ...ctx, token };
}

const names = (res: { body: { items: { name: string }[] } }) => res.body.items.map((i) => i.name);

t.test('every filter operator, nesting, q, paging and sorting', async (t) => {
  const { request, token } = await seed(t);
  const list = (query: Record<string, string>) => request({ method: 'GET', url: '/api/v1/default/tags', token, query });
  const where = async (filter: unknown, query: Record<string, string> = {}) => names(await list({ filter: JSON.stringify(filter), sortBy: 'name', ...query }));

  t.same(names(await list({})), ['alpha', 'beta', 'Delta', 'gamma'], 'default sort is name ascending');
  t.same(await where({ and: [{ field: 'name', op: '==', value: 'beta' }] }), ['beta']);
  t.same(await where({ and: [{ field: 'name', op: '!=', value: 'beta' }] }), ['alpha', 'Delta', 'gamma']);
  t.same(await where({ and: [{ field: 'count', op: '>', value: 10 }] }), ['Delta', 'gamma']);
  t.same(await where({ and: [{ field: 'count', op: '<', value: 10 }] }), ['alpha']);
  t.same(await where({ and: [{ field: 'count', op: '>=', value: 10 }] }), ['beta', 'Delta', 'gamma']);
  t.same(await where({ and: [{ field: 'count', op: '<=', value: '10' }] }), ['alpha', 'beta'], 'numeric strings are accepted for numbers');
  t.same(await where({ and: [{ field: 'name', op: 'like', value: '%ta' }] }), ['beta', 'Delta']);
  t.same(await where({ and: [{ field: 'name', op: 'like', value: 'd%' }] }), [], 'like is case-sensitive');
  t.same(await where({ and: [{ field: 'name', op: 'ilike', value: 'd%' }] }), ['Delta']);
  t.same(await where({ and: [{ field: 'name', op: 'not_ilike', value: '%a' }] }), []);
  t.same(await where({ and: [{ field: 'name', op: 'in', value: ['alpha', 'gamma', 'zeta'] }] }), ['alpha', 'gamma']);
  t.same(await where({ and: [{ field: 'name', op: 'not_in', value: ['alpha', 'gamma'] }] }), ['beta', 'Delta']);
  t.same(await where({ and: [{ field: 'name', op: 'in', value: [] }] }), [], 'an empty in-list matches nothing');
  t.same(await where({ and: [{ field: 'uri', op: 'is_null' }] }), ['beta', 'gamma']);
  t.same(await where({ and: [{ field: 'uri', op: 'is_not_null' }] }), ['alpha', 'Delta']);
  t.same(await where({ and: [{ field: 'discoverable', op: '==', value: false }] }), ['gamma']);
  t.same(await where({ and: [{ model: 'Tag', field: 'count', op: '==', value: 5 }] }), ['alpha'], 'the model of the list itself');
  t.same(await where({ and: [{ model: 'TagType', field: 'name', op: '==', value: 'Team' }] }), ['Delta', 'gamma'], 'a related model');
  t.same(
    await where({
      or: [
        { and: [{ field: 'count', op: '>', value: 12 }, { not: [{ field: 'name', op: '==', value: 'gamma' }] }] },
        { field: 'name', op: '==', value: 'alpha' },
      ],
    }),
    ['alpha', 'Delta'],
    'or of and with not',
  );
  t.same(
    await where({
      or: [
        { field: 'name', op: '==', value: 'beta' },
        { field: 'name', op: '==', value: 'gamma' },
      ],
    }),
    ['beta', 'gamma'],
    'or of equalities on one field (compiled as in)',
  );
  t.same(
    await where({
      or: [
        { field: 'count', op: '==', value: 5 },
        { field: 'count', op: '==', value: '10' },
      ],
    }),
    ['alpha', 'beta'],
    'the same with numbers, one given as a string',
  );
  t.same(
    await where({
      or: [
        { field: 'name', op: '==', value: 'beta' },
        { field: 'count', op: '==', value: 5 },
      ],
    }),
    ['alpha', 'beta'],
    'or across fields',
  );
  const mixed = await list({
    filter: JSON.stringify({
      or: [
        { field: 'count', op: '==', value: 5 },
        { field: 'count', op: '==', value: 'five' },
      ],
    }),
  });
  t.equal(mixed.status, 422, 'a bad value in a merged or is still refused');
  t.same(mixed.body.detail[0].loc, ['query', 'filter', 'or', 1, 'value'], 'naming the condition it came from');
  t.same(await where([{ field: 'name', op: '==', value: 'beta' }]), ['beta'], 'a bare list means and');
  t.same(await where({}), ['alpha', 'beta', 'Delta', 'gamma'], 'an empty filter filters nothing');

  t.same(names(await list({ q: 'ALP' })), ['alpha'], 'q searches case-insensitively');
  t.same(names(await list({ q: '%' })), [], 'q wildcards are taken literally');
  t.same(names(await list({ sortBy: 'count', descending: 'true' })), ['Delta', 'gamma', 'beta', 'alpha']);
  t.same(names(await list({ 'sortBy[]': 'tag_type_id', 'descending[]': 'true', itemsPerPage: '-1' })).length, 4, 'itemsPerPage -1 returns all');
  const page2 = await list({ itemsPerPage: '3', page: '2' });
  t.same(
    { items: names(page2), total: page2.body.total, page: page2.body.page, itemsPerPage: page2.body.itemsPerPage },
    { items: ['gamma'], total: 4, page: 2, itemsPerPage: 3 },
  );
});

t.test('list columns: any and not_any on list fields', async (t) => {
  const { request, login } = await testApp(t);
  const token = await login('owner@example.com');
  await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Red', custom_ttp_patterns: ['T1059', 'T1003'] } });
  await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Blue', custom_ttp_patterns: ['T1566'] } });
  const where = async (filter: unknown) =>
    names(await request({ method: 'GET', url: '/api/v1/default/projects', token, query: { filter: JSON.stringify(filter) } }));
  t.same(await where({ and: [{ field: 'custom_ttp_patterns', op: 'any', value: 'T1003' }] }), ['Red']);
  t.same(
    await where({ and: [{ field: 'custom_ttp_patterns', op: 'not_any', value: 'T1003' }] }),
    ['Blue', 'Default'],
    'and the seeded Default project, which has no patterns',
  );
  const misuse = await request({
    method: 'GET',
    url: '/api/v1/default/projects',
    token,
    query: { filter: JSON.stringify({ and: [{ field: 'name', op: 'any', value: 'x' }] }) },
  });
  t.equal(misuse.status, 422);
  t.match(misuse.body.detail[0].msg, /'name' is not one/);
});

t.test('bad list parameters are 422 naming the problem, never a 500', async (t) => {
  const { request, token } = await seed(t);
  const bad = async (query: Record<string, string>, pattern: RegExp) => {
    const res = await request({ method: 'GET', url: '/api/v1/default/tags', token, query });
    t.equal(res.status, 422, JSON.stringify(query));
    t.match(res.body.detail[0].msg, pattern);
    return res;
  };
  const unknownField = await bad({ filter: JSON.stringify({ and: [{ field: 'password', op: '==', value: 1 }] }) }, /Unknown filter field 'password'/);
  t.same(unknownField.body.detail[0].loc, ['query', 'filter', 'and', 0, 'field']);
  await bad({ filter: JSON.stringify({ and: [{ field: 'name', op: 'regex', value: '.*' }] }) }, /Unknown filter operator 'regex'/);
  await bad({ filter: JSON.stringify({ and: [{ field: 'name', op: '==', value: 'x', extra: 1 }] }) }, /Unknown key 'extra'/);
  await bad({ filter: JSON.stringify({ and: [{ model: 'Secret', field: 'name', op: '==', value: 'x' }] }) }, /Unknown filter field 'Secret.name'/);
  await bad({ filter: '{"and": [' }, /not valid JSON/);
  await bad({ filter: JSON.stringify({ and: [{ field: 'count', op: '>', value: 'many' }] }) }, /needs a number value/);
  await bad({ filter: JSON.stringify({ and: [{ field: 'name', op: 'in', value: 'alpha' }] }) }, /needs a list of string values/);
  await bad({ filter: JSON.stringify({ and: 'x' }) }, /must hold a list/);
  await bad({ filter: JSON.stringify({ and: [{ op: '==', value: 1 }] }) }, /needs a 'field'/);
  await bad({ filter: JSON.stringify(Array.from({ length: 10 }).reduce((n) => ({ and: [n] }), { field: 'name', op: '==', value: 'x' })) }, /nested deeper/);
  await bad({ sortBy: 'password_hash' }, /Cannot sort by unknown field 'password_hash'/);
  await bad({ page: '0' }, /./);
  await bad({ itemsPerPage: 'lots' }, /./);
  const extra = await bad({ unexpected: '1' }, /Unknown field 'unexpected'/);
  t.same(extra.body.detail[0].loc, ['querystring', 'unexpected']);
});

t.test('default page sizes and sorts', async (t) => {
  const { request, login, organization }: TestApp = await testApp(t);
  const token = await login('zed@example.com');
  await login('amy@example.com');
  await login('mid@example.com');
  const users = await request({ method: 'GET', url: '/api/v1/default/users', token });
  t.same(
    users.body.items.map((u: { email: string }) => u.email),
    ['zed@example.com', 'mid@example.com', 'amy@example.com'],
    'users by e-mail descending',
  );
  t.equal(users.body.itemsPerPage, 10);
  await organization('beta-org', 'zed@example.com');
  await organization('alpha-org', 'zed@example.com');
  const orgs = await request({ method: 'GET', url: '/api/v1/default/organizations', token });
  t.equal(orgs.body.itemsPerPage, 50);
  t.same(
    orgs.body.items.map((o: { name: string }) => o.name),
    ['alpha-org', 'beta-org', 'Default'],
    'organizations by name, ignoring case',
  );
  const projects = await request({ method: 'GET', url: '/api/v1/default/projects', token });
  t.equal(projects.body.itemsPerPage, 9999);
});
