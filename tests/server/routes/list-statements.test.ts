import t from 'tap';
import { StatementCache } from '../../../server/db/compiled-select.js';
import { testApp } from '../../helpers.js';

// Lists of the same shape share one compiled statement (server/lib/list-query.ts, compileList); what
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
    const res = await request({ method: 'GET', url: `/api/v1/${slug}/users`, token: a.token, query: { filter: JSON.stringify([{ field: 'email', op: '==', value: 'both@roles.test' }]) } });
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
