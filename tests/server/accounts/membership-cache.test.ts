import t from 'tap';
import { testApp } from '../../helpers.js';

/** Routes that answer without a tenant transaction follow a membership change at once. */
t.test('a removed member loses access at once on every route; a role change shows at once', async (t) => {
  const { request, login } = await testApp(t);
  const owner = await login('owner@example.com');
  const member = await login('member@example.com', { role: 'Member' });
  const admin = await login('admin@example.com', { role: 'Admin' });
  const routes = ['/auth/me', '/projects/user', '/meta/resources', '/tags'];
  const get = (url: string, token: string) => request({ method: 'GET', url: `/api/v1/default${url}`, token });
  const users = (await get('/users?itemsPerPage=-1', owner)).body.items as { id: number; email: string }[];
  const idOf = (email: string) => users.find((u) => u.email === email)!.id;

  // Each caller's membership is fresh in the cache.
  for (const url of routes) t.equal((await get(url, member)).status, 200, `member: ${url}`);
  t.equal((await get('/auth/me', admin)).body.role, 'Admin');

  t.equal((await request({ method: 'DELETE', url: `/api/v1/default/users/${idOf('member@example.com')}`, token: owner })).status, 204);
  for (const url of routes) {
    const res = await get(url, member);
    t.equal(res.status, 403, `removed: ${url}`);
    t.equal(res.body.detail?.[0]?.type, 'forbidden');
  }

  t.equal((await request({ method: 'PUT', url: `/api/v1/default/users/${idOf('admin@example.com')}`, token: owner, payload: { role: 'Member' } })).status, 200);
  t.equal((await get('/auth/me', admin)).body.role, 'Member', '/auth/me tells the new role at once');
  t.equal(
    (await request({ method: 'POST', url: '/api/v1/default/users', token: admin, payload: { email: 'x@example.com' } })).status,
    403,
    'and it acts on it',
  );

  // Leaving by oneself too.
  const leaver = await login('leaver@example.com', { role: 'Member' });
  t.equal((await get('/meta/resources', leaver)).status, 200);
  const leaverId = (await get('/auth/me', leaver)).body.id;
  t.equal((await request({ method: 'DELETE', url: `/api/v1/default/users/${leaverId}`, token: leaver })).status, 204);
  t.equal((await get('/meta/resources', leaver)).status, 403, 'who left is out at once');
});
