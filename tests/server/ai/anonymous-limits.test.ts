import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import t from 'tap';
import { removeExpiredAnonymous } from '../../../server/ai/anonymous-cleanup.js';
import { anonymousSessions, chatMessages, chats, organizations, projects, submissions } from '../../../server/schema.js';
import { rowsOf, testApp } from '../../helpers.js';
import { SocketClient } from './socket-client.js';

const count = async (db: any, table: any) => Number((await db.select({ n: sql<number>`count(*)::int` }).from(table))[0].n);

t.test('new anonymous sessions are limited per address and per organization', async (t) => {
  const { app, database } = await testApp(t, { ANONYMOUS_RATE_LIMIT: '3' });
  const start = (address: string, org = 'default') => app.inject({ method: 'POST', url: `/api/v1/${org}/auth/anonymous`, remoteAddress: address });

  for (let i = 0; i < 3; i++) t.equal((await start('10.1.0.1')).statusCode, 201);
  const refused = await start('10.1.0.1');
  t.equal(refused.statusCode, 429, 'the fourth from one address is refused');
  t.match(refused.json(), { detail: [{ msg: /^Too many attempts/, loc: [], type: 'rate_limited' }] });
  t.equal(await count(database.db, anonymousSessions), 3, 'and adds no session');

  // Ten times the address limit per organization, whatever the addresses.
  for (let i = 2; i <= 10; i++) for (let j = 0; j < 3; j++) t.equal((await start(`10.1.0.${i}`)).statusCode, 201);
  const spread = await start('10.1.0.11');
  t.equal(spread.statusCode, 429, 'the organization allowance (30) is used up from fresh addresses too');
  t.equal(await count(database.db, anonymousSessions), 30);
});

t.test('anonymous writes (projects over REST, uploads and chat over the socket) are limited', async (t) => {
  const { app, database } = await testApp(t, { ANONYMOUS_RATE_LIMIT: '4' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const key = (await app.inject({ method: 'POST', url: '/api/v1/default/auth/anonymous', remoteAddress: '127.0.0.1' })).json().key;
  // The organization's own projects (its seeded Default) are not the visitor's writes.
  const seeded = await count(database.db, projects);
  const project = (name: string) =>
    app.inject({ method: 'POST', url: `/api/v1/default/projects/anonymous/${key}`, payload: { name }, remoteAddress: '127.0.0.1' });
  const first = await project('one');
  t.equal(first.statusCode, 201);
  t.equal((await project('two')).statusCode, 201);

  const visitor = await SocketClient.open(`ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws?key=${key}`);
  t.teardown(() => visitor.close());
  const up = await visitor.request('text_submission', { text: 'Visitor text about the status page.', project_id: first.json().id }, 'submit_text_response');
  t.equal(up.data.status, 'success', 'an upload is the third write');
  const talk = await visitor.request('chat', { project_id: first.json().id, text: 'Where is the status page?' }, 'chat_done');
  t.equal(talk.type, 'chat_done', 'a chat message is the fourth');

  const upload = await visitor.request('text_submission', { text: 'One more.', project_id: first.json().id }, 'submit_text_response');
  t.match(upload, { type: 'error', data: { detail: [{ type: 'rate_limited' }] } }, 'the fifth, an upload, is refused');
  const chat = await visitor.request('chat', { project_id: first.json().id, text: 'And again?' }, 'chat_done');
  t.match(chat, { type: 'error', data: { detail: [{ type: 'rate_limited' }] } }, 'a chat message too');
  const third = await project('three');
  t.equal(third.statusCode, 429, 'and a project');
  t.equal(third.json().detail[0].type, 'rate_limited');
  t.equal(await count(database.db, projects), seeded + 2, 'nothing more was written');
  t.equal(await count(database.db, submissions), 1);
  t.equal(await count(database.db, chatMessages), 2, 'one question, one answer');
});

t.test('an Owner switches anonymous access off: no new session, and existing keys stop working', async (t) => {
  const { app, request, login, database } = await testApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const owner = await login('owner@example.com', { role: 'Owner' });
  const admin = await login('admin@example.com', { role: 'Admin' });
  const [org] = await database.db.select().from(organizations).where(eq(organizations.slug, 'default'));
  t.equal(org!.anonymous_access, true, 'on by default');
  const key = (await request({ method: 'POST', url: '/api/v1/default/auth/anonymous' })).body.key;

  const byAdmin = await request({ method: 'PUT', url: `/api/v1/default/organizations/${org!.id}`, token: admin, payload: { anonymous_access: false } });
  t.equal(byAdmin.status, 403, 'an Admin may not');
  t.equal(byAdmin.body.detail[0].msg, 'Only an Owner may switch anonymous access.');
  const byOwner = await request({ method: 'PUT', url: `/api/v1/default/organizations/${org!.id}`, token: owner, payload: { anonymous_access: false } });
  t.equal(byOwner.status, 200);
  t.equal(byOwner.body.anonymous_access, false);

  const start = await request({ method: 'POST', url: '/api/v1/default/auth/anonymous' });
  t.same(start, {
    status: 403,
    body: { detail: [{ msg: 'This organization does not accept anonymous visitors.', loc: [], type: 'anonymous_access_off' }] },
    headers: start.headers,
  });
  t.equal((await request({ method: 'GET', url: `/api/v1/default/auth/anonymous/me/${key}` })).status, 401, 'an existing key no longer opens anything');
  t.equal((await request({ method: 'POST', url: `/api/v1/default/projects/anonymous/${key}`, payload: { name: 'x' } })).status, 401);
  const visitor = await SocketClient.open(`ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws?key=${key}`);
  t.teardown(() => visitor.close());
  t.match(await visitor.request('fetch_limits', {}, 'limits'), { type: 'error', data: { detail: [{ type: 'no_session' }] } }, 'nor the socket');
  t.equal(await count(database.db, anonymousSessions), 1, 'no session was added');

  t.equal((await request({ method: 'PUT', url: `/api/v1/default/organizations/${org!.id}`, token: owner, payload: { anonymous_access: true } })).status, 200);
  t.equal((await request({ method: 'GET', url: `/api/v1/default/auth/anonymous/me/${key}` })).status, 200, 'switched on again, the key works');
});

t.test("what an expired session created is removed by the scheduled sweep; members' work stays", async (t) => {
  const { app, request, login, database, ticket } = await testApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const wsBase = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws`;
  const token = await login('owner@example.com');
  const members = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Members' } })).body;
  const member = await SocketClient.open(`${wsBase}?ticket=${await ticket(token)}`);
  t.teardown(() => member.close());
  const public1 = await member.request(
    'text_submission',
    { text: 'The status page is status.example.com.', project_id: members.id, sensitivityLevel: 'public' },
    'submit_text_response',
  );
  await member.next((f) => f.type === 'submission_status' && f.data.submission_id === public1.data.submission_id && f.data.status === 'indexed');

  const visit = async () => {
    const key = (await request({ method: 'POST', url: '/api/v1/default/auth/anonymous' })).body.key;
    const own = (await request({ method: 'POST', url: `/api/v1/default/projects/anonymous/${key}`, payload: { name: `Visitor ${key.slice(-4)}` } })).body;
    const socket = await SocketClient.open(`${wsBase}?key=${key}`);
    t.teardown(() => socket.close());
    const up = await socket.request('text_submission', { text: 'A visitor note about outages.', project_id: own.id }, 'submit_text_response');
    await socket.next((f) => f.type === 'submission_status' && f.data.submission_id === up.data.submission_id && f.data.status === 'indexed');
    await socket.request('chat', { project_id: own.id, text: 'outages?' }, 'chat_done');
    await socket.request('chat', { project_id: members.id, text: 'Where is the status page?' }, 'chat_done');
    return key as string;
  };
  const leaving = await visit();
  const staying = await visit();
  t.equal(await count(database.db, projects), 4, "Default, Members and two visitors' projects");
  t.equal(await count(database.db, chats), 4);
  t.equal(await count(database.db, submissions), 3);

  await database.db
    .update(anonymousSessions)
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where(sql`id = (select min(id) from anonymous_sessions)`);
  const counts = await removeExpiredAnonymous(database.db);
  t.same(
    counts,
    { sessions: 1, projects: 1, submissions: 0, chats: 1 },
    "the expired session, its project (its upload and chat go with it) and its chat in the members' project",
  );
  t.equal(await count(database.db, anonymousSessions), 1);
  t.same(
    (await database.db.select({ name: projects.name }).from(projects).orderBy(projects.name)).map((p) => p.name),
    ['Default', 'Members', `Visitor ${staying.slice(-4)}`],
  );
  t.equal(await count(database.db, chats), 2, "the other visitor's chats stay");
  t.equal(await count(database.db, submissions), 2, "the members' upload and the other visitor's stay");
  const orphans = rowsOf<{ n: number }>(
    await database.db.execute(
      sql`select count(*)::int as n from chunks c where not exists (select 1 from submissions s where s.organization_id = c.organization_id and s.id = c.submission_id)`,
    ),
  );
  t.equal(Number(orphans[0]!.n), 0, 'no passage is left without its submission');
  t.equal((await request({ method: 'GET', url: `/api/v1/default/auth/anonymous/me/${leaving}` })).status, 401);
  const answer = await member.request('chat', { project_id: members.id, text: 'Where is the status page?' }, 'chat_done');
  t.match(answer.data.answer, /status\.example\.com/, "members' material still answers");

  const schedule = rowsOf<{ name: string; cron: string }>(
    await database.db.execute(sql`select name, cron from pgboss.schedule where name = 'anonymous-cleanup'`),
  );
  t.same(
    schedule.map((s) => ({ ...s })),
    [{ name: 'anonymous-cleanup', cron: '23 * * * *' }],
    "the sweep is on the queue's schedule (hourly)",
  );
});
