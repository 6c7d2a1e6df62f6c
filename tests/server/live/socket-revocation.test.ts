import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { startSession } from '../../../server/core/sessions.js';
import { apiKeys, sessions, users } from '../../../server/schema.js';
import { testApp } from '../../helpers.js';
import { SocketClient } from '../ai/socket-client.js';

// Issue 17 (F7): a socket outlives what opened it, so it must close when that ends. Sign-out and a
// password change are covered in tests/server/accounts/sessions.test.ts; these are the other ends: an API
// key revoked (deleted, or deleted with its project, or gone without any announcement) and a session
// that runs out.

const REVOKED = { code: 4001, reason: 'The API key was revoked.' };
const EXPIRED = { code: 4001, reason: 'Your session has expired. Please sign in again.' };
const ENDED = { code: 4001, reason: 'Your session has ended. Please sign in again.' };

type Closed = { code: number; reason: string; at: number };
const closes = new WeakMap<SocketClient, Promise<Closed>>();
/** Records the socket's close from the moment it opens (a close may come before the test waits for it). */
const recordClose = (client: SocketClient) => {
  closes.set(client, new Promise((resolve) => client.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString(), at: Date.now() }))));
  return client;
};
/** How the server closed the socket (code and reason), or 'open' if it still is after `ms`. */
const closedWithin = async (client: SocketClient, ms: number) => {
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([closes.get(client)!, new Promise<'open'>((resolve) => (timer = setTimeout(() => resolve('open'), ms)))]);
  clearTimeout(timer);
  return result === 'open' ? result : { code: result.code, reason: result.reason };
};

t.test('revoking an API key closes the sockets it opened, in every way a key can go', async (t) => {
  const { app, request, login, database } = await testApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const wsUrl = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws`;
  const owner = await login('owner@example.com');
  const newProject = async (name: string) =>
    (await request({ method: 'POST', url: '/api/v1/default/projects', token: owner, payload: { name } })).body.id as number;
  const newKey = async (project: number, description: string) => {
    const res = await request({ method: 'POST', url: '/api/v1/default/apikeys', token: owner, payload: { project_id: project, description } });
    t.equal(res.status, 201, `key '${description}' created`);
    return { id: res.body.id as number, secret: res.body.key as string };
  };
  const socketOf = async (secret: string) => {
    const client = recordClose(await SocketClient.open(wsUrl, { authorization: `Bearer ${secret}` }));
    t.teardown(() => client.ws.close());
    t.match((await client.request('fetch_limits', {}, 'limits')).data, { plan: String }, 'the key opened a working socket');
    return client;
  };

  const ops = await newProject('Ops');
  const ingest = await newKey(ops, 'ingest script');
  const report = await newKey(ops, 'report script');
  const ingestTabs = [await socketOf(ingest.secret), await socketOf(ingest.secret)];
  const reportTab = await socketOf(report.secret);

  // 1. Deleted through the API (DELETE /apikeys/{id}): its sockets close at the commit, saying why.
  t.equal((await request({ method: 'DELETE', url: `/api/v1/default/apikeys/${ingest.id}`, token: owner })).status, 204, 'the key is deleted');
  t.same(await Promise.all(ingestTabs.map((tab) => closedWithin(tab, 10_000))), [REVOKED, REVOKED], 'each socket of the deleted key is closed, saying why');
  t.equal(await closedWithin(reportTab, 300), 'open', "another key's socket stays open");
  t.match((await reportTab.request('fetch_limits', {}, 'limits')).data, { plan: String }, 'and still answers');
  const refused = recordClose(await SocketClient.open(wsUrl, { authorization: `Bearer ${ingest.secret}` }));
  t.teardown(() => refused.ws.close());
  t.equal((await refused.request('fetch_limits', {}, 'limits')).data.detail[0].type, 'no_session', 'the revoked key opens no signed-in socket again');

  // 2. Deleted with its project: the project's keys are revoked too.
  const scratch = await newProject('Scratch');
  const scratchKey = await newKey(scratch, 'scratch script');
  const scratchTab = await socketOf(scratchKey.secret);
  t.equal((await request({ method: 'DELETE', url: `/api/v1/default/projects/${scratch}`, token: owner })).status, 204, 'the project is deleted');
  t.same(await closedWithin(scratchTab, 10_000), REVOKED, "deleting the project closes its key's socket");
  t.equal(await closedWithin(reportTab, 300), 'open', "another project's key keeps its socket");

  // 3. Gone with no announcement (as when its organization is deleted, or by hand): the periodic check closes it.
  const silentTab = await socketOf(report.secret);
  await database.db.delete(apiKeys).where(eq(apiKeys.id, report.id));
  t.equal(app.live.sessions.size(), 2, 'both sockets of the removed key are still tracked until the check');
  t.equal(await app.live.sessions.check(), 2, "the check closes the removed key's two sockets");
  t.same(await Promise.all([closedWithin(reportTab, 10_000), closedWithin(silentTab, 10_000)]), [REVOKED, REVOKED], 'saying why');
  t.equal(app.live.sessions.size(), 0, 'closed sockets are no longer tracked');
});

t.test("a session's sockets close when it runs out; a session removed without notice is caught by the check", async (t) => {
  const { app, login, ticket, database } = await testApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const wsUrl = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws`;
  const socketOf = async (token: string) => {
    const client = recordClose(await SocketClient.open(`${wsUrl}?ticket=${await ticket(token)}`));
    t.teardown(() => client.ws.close());
    t.match((await client.request('fetch_limits', {}, 'limits')).data, { plan: String }, 'the socket is signed in');
    return client;
  };

  const longToken = await login('member@example.com', { role: 'Member' });
  const [member] = await database.db.select().from(users).where(eq(users.email, 'member@example.com'));
  // A session of 10 seconds (its token's exp and the session's end are the same moment).
  const shortToken = await startSession(app, { id: member!.id, email: member!.email }, 10);
  const { sid, exp } = app.jwt.decode(shortToken) as { sid: string; exp: number };
  const [session] = await database.db.select().from(sessions).where(eq(sessions.id, sid));
  const shortTab = await socketOf(shortToken);
  const longTab = await socketOf(longToken);

  const closed = await closes.get(shortTab)!;
  t.same({ code: closed.code, reason: closed.reason }, EXPIRED, "the short session's socket is closed when it runs out, saying why");
  t.ok(closed.at >= session!.expires_at.getTime() - 5, `not before the session's end (closed ${closed.at - session!.expires_at.getTime()} ms after it)`);
  t.ok(closed.at >= exp * 1000 - 1000, "nor before the token's exp");
  t.equal(await closedWithin(longTab, 300), 'open', 'a session still running keeps its socket');
  t.match((await longTab.request('fetch_limits', {}, 'limits')).data, { plan: String }, 'and still answers');

  // Removed without an announcement (by hand, or a lost notification): the periodic check closes its sockets.
  const { sid: longSid } = app.jwt.decode(longToken) as { sid: string };
  await database.db.delete(sessions).where(eq(sessions.id, longSid));
  t.equal(await app.live.sessions.check(), 1, 'the check finds the one socket whose session is gone');
  t.same(await closedWithin(longTab, 10_000), ENDED, 'and closes it');
  t.equal(app.live.sessions.size(), 0, 'no socket is tracked any more');
});
