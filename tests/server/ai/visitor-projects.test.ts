import type { AddressInfo } from 'node:net';
import t from 'tap';
import { testApp } from '../../helpers.js';
import { SocketClient } from './socket-client.js';

/**
 * A project a landing-page visitor creates is theirs alone: members (an Owner included) neither list
 * nor open it, file incidents, uploads or chats into it; the visitor's key reaches it.
 */
t.test("a visitor's project is reached only with the visitor's key", async (t) => {
  const { app, request, login, ticket } = await testApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const wsBase = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws`;
  const owner = await login('owner@example.com');
  const member = await login('member@example.com', { role: 'Member' });
  const key = (await request({ method: 'POST', url: '/api/v1/default/auth/anonymous' })).body.key as string;
  const made = await request({ method: 'POST', url: `/api/v1/default/projects/anonymous/${key}`, payload: { name: 'Visitor scratch' } });
  t.equal(made.status, 201);
  const id = made.body.id as number;

  for (const [who, token] of [
    ['an Owner', owner],
    ['a Member', member],
  ] as const) {
    const listed = await request({ method: 'GET', url: '/api/v1/default/projects?itemsPerPage=-1', token });
    t.equal(listed.status, 200);
    t.notOk(
      listed.body.items.some((p: { id: number }) => p.id === id),
      `${who}'s project list leaves it out (so it cannot become their default)`,
    );
    t.equal((await request({ method: 'GET', url: `/api/v1/default/projects/${id}`, token })).status, 404, `${who} cannot open it`);
    t.equal((await request({ method: 'PUT', url: `/api/v1/default/projects/${id}`, token, payload: { name: 'Mine now' } })).status, 404);
  }
  const incident = await request({ method: 'POST', url: '/api/v1/default/iaos', token: member, payload: { title: 'x', project_id: id } });
  t.equal(incident.status, 422, 'no incident goes into it');
  const upload = await request({
    method: 'POST',
    url: `/api/v1/default/submissions/upload?project_id=${id}&fileName=a.md`,
    token: member,
    payload: 'hello',
    headers: { 'content-type': 'text/markdown' },
  });
  t.equal(upload.status, 422, 'no member upload goes into it');

  const ws = await SocketClient.open(`${wsBase}?ticket=${await ticket(member)}`);
  t.teardown(() => ws.close());
  t.equal((await ws.request('fetch_submissions', { project_id: id }, 'submissions')).type, 'error', 'its sources are not listed to a member');
  t.equal((await ws.request('chat', { project_id: id, text: 'hello there' }, 'chat_done')).type, 'error', 'a member cannot chat in it');

  const visitor = await SocketClient.open(`${wsBase}?key=${key}`);
  t.teardown(() => visitor.close());
  t.equal((await visitor.request('fetch_submissions', { project_id: id }, 'submissions')).type, 'submissions', 'the visitor reaches it');
  t.match((await request({ method: 'GET', url: `/api/v1/default/projects/anonymous/user/${key}` })).body, { total: 1, items: [{ id }] });
});
