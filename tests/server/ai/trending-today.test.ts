import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import t from 'tap';
import { testApp } from '../../helpers.js';
import { SocketClient } from './socket-client.js';

t.test("the landing page's Trending: today's most-asked visitor questions, else the curated content", async (t) => {
  const { app, database, request, login, ticket } = await testApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const wsBase = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws`;
  const token = await login('owner@example.com');
  const curated = await request({
    method: 'POST',
    url: '/api/v1/default/curated_content',
    token,
    payload: { text: 'Postmortem culture', link: 'https://example.com/a' },
  });
  t.equal(curated.status, 201);

  const visitor = async () => {
    const key = (await request({ method: 'POST', url: '/api/v1/default/auth/anonymous' })).body.key as string;
    const socket = await SocketClient.open(`${wsBase}?key=${key}`);
    t.teardown(() => socket.close());
    const ask = async (text: string) => t.ok((await socket.request('chat', { project_id: null, text }, 'chat_done')).data.chat_id, `asked: ${text}`);
    return { key, ask };
  };
  const trending = async (key: string) => {
    const res = await request({ method: 'GET', url: `/api/v1/default/curated_content/anonymous/trending/${key}` });
    t.equal(res.status, 200);
    return res.body as { items: { text: string }[]; questions: { text: string; asked: number; last_asked_at: string }[]; asked_today: number };
  };

  const a = await visitor();
  const b = await visitor();
  const c = await visitor();
  const before = await trending(a.key);
  t.same(before.questions, [], 'nothing asked today');
  t.same(
    before.items.map((i) => i.text),
    ['Postmortem culture'],
    'the curated content to fall back on',
  );

  await a.ask('How do I rotate the on-call?');
  await b.ask('how do I  rotate the ON-CALL');
  await c.ask('How do I rotate the on-call ?');
  await a.ask('Where is the status page?');
  await a.ask('Where is the status page?');
  await b.ask('where is the status page');
  // Asked twice, by one visitor only: their words are not shown to others.
  await c.ask('Is my laptop serial AB-123 covered?');
  await c.ask('Is my laptop serial AB-123 covered?');
  // A member's question is not the public page's.
  const member = await SocketClient.open(`${wsBase}?ticket=${await ticket(token)}`);
  t.teardown(() => member.close());
  const projectId = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } })).body.id;
  for (let i = 0; i < 3; i++) await member.request('chat', { project_id: projectId, text: 'Where is the status page?' }, 'chat_done');

  const today = await trending(b.key);
  t.same(
    today.questions.map((q) => [q.text, q.asked]),
    [
      ['How do I rotate the on-call ?', 3],
      ['where is the status page', 2],
    ],
    'by how many visitors asked, each in its latest wording',
  );
  t.ok(today.questions.every((q) => Date.parse(q.last_asked_at) <= Date.now()));
  t.equal(today.asked_today, 8, "every visitor question today, the one-visitor ones too; not the member's");
  t.same(
    today.items.map((i) => i.text),
    ['Postmortem culture'],
    'the curated content is still answered beside them',
  );

  // Yesterday's questions are not today's: Trending falls back to the curated content.
  await database.db.execute(sql`update chat_messages set created_at = created_at - interval '1 day' where user_id is null`);
  t.same((await trending(c.key)).questions, [], 'none asked today');
});
