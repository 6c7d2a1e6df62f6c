import type { AddressInfo } from 'node:net';
import t from 'tap';
import { testApp } from '../../helpers.js';
import { SocketClient } from './socket-client.js';

t.test("signed-in chats also cite the organization's incidents they may see", async (t) => {
  const { app, request, login, ticket } = await testApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const owner = await login('owner@example.com');
  const member = await login('member@example.com', { role: 'Member' });
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token: owner, payload: { name: 'Ops' } })).body;
  const open = await request({
    method: 'POST',
    url: '/api/v1/default/iaos',
    token: owner,
    payload: {
      title: 'Wombat queue backlog',
      description: 'The wombat queue backed up after the consumer deploy; rolling back the consumer drained it.',
      project_id: project.id,
    },
  });
  t.equal(open.status, 201, 'open incident created');
  const restricted = await request({
    method: 'POST',
    url: '/api/v1/default/iaos',
    token: owner,
    payload: {
      title: 'Wombat credentials leak',
      description: 'Restricted details about the wombat credentials.',
      project_id: project.id,
      visibility: 'Restricted',
    },
  });
  t.equal(restricted.status, 201, 'restricted incident created');
  const unrelated = await request({
    method: 'POST',
    url: '/api/v1/default/iaos',
    token: owner,
    payload: { title: 'Customer reports double charge', description: 'A customer was charged twice for one order; we refunded it.', project_id: project.id },
  });
  t.equal(unrelated.status, 201);

  const ws = await SocketClient.open(`ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws?ticket=${await ticket(member)}`);
  t.teardown(() => ws.close());
  const done = await ws.request('chat', { project_id: project.id, text: 'What happened with the wombat queue?' }, 'chat_done');
  const titles = done.data.sources.map((s: { title: string }) => s.title);
  t.ok(
    titles.some((x: string) => /Incident .*Wombat queue backlog/.test(x)),
    'the open incident is cited',
  );
  t.notOk(
    titles.some((x: string) => /credentials leak/.test(x)),
    'the restricted one is not, for a member who is not a participant',
  );
  t.match(done.data.answer, /rolling back the consumer drained it/);
  t.match(
    done.data.sources.find((s: { object_type: string }) => s.object_type === 'incident'),
    { url: /^iaos\/.+\/view$/ },
  );

  // The floor: sharing one word ("report") with a question does not make an incident an answer to it.
  const procps = await ws.request('chat', { project_id: project.id, text: 'Where should I report a bug in procps, and what should I send?' }, 'chat_done');
  t.notOk(
    procps.data.sources.some((s: { title: string }) => /double charge/.test(s.title)),
    'an unrelated incident is not cited',
  );
  const charged = await ws.request('chat', { project_id: project.id, text: 'Why was the customer charged twice?' }, 'chat_done');
  t.ok(
    charged.data.sources.some((s: { title: string }) => /double charge/.test(s.title)),
    'it is cited for a question about it',
  );

  const ownerWs = await SocketClient.open(`ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws?ticket=${await ticket(owner)}`);
  t.teardown(() => ownerWs.close());
  const asOwner = await ownerWs.request('chat', { project_id: project.id, text: 'wombat credentials' }, 'chat_done');
  t.ok(
    asOwner.data.sources.some((s: { title: string }) => /credentials leak/.test(s.title)),
    'an owner sees the restricted incident',
  );
});
