import t from 'tap';
import { testApp } from '../../helpers.js';

t.test('tag types and tags: create, list, get, update, delete', async (t) => {
  const { request, login } = await testApp(t);
  const token = await login('owner@example.com');
  const type = await request({ method: 'POST', url: '/api/v1/default/tag_types', token, payload: { name: 'Environment' } });
  t.equal(type.status, 201);
  const tag = await request({ method: 'POST', url: '/api/v1/default/tags', token, payload: { name: 'prod', tag_type_id: type.body.id } });
  t.equal(tag.status, 201);
  t.equal(tag.body.description, 'Generic tag', 'server-side default');
  const list = await request({ method: 'GET', url: '/api/v1/default/tags', token });
  t.same({ total: list.body.total, page: list.body.page, itemsPerPage: list.body.itemsPerPage }, { total: 1, page: 1, itemsPerPage: 10 });
  const updated = await request({ method: 'PUT', url: `/api/v1/default/tags/${tag.body.id}`, token, payload: { name: 'production' } });
  t.equal(updated.body.name, 'production');
  t.equal((await request({ method: 'DELETE', url: `/api/v1/default/tags/${tag.body.id}`, token })).status, 204);
  const missing = await request({ method: 'GET', url: `/api/v1/default/tags/${tag.body.id}`, token });
  t.equal(missing.status, 404);
  t.same(missing.body.detail[0].msg, `Tag '${tag.body.id}' could not be found.`);
});
