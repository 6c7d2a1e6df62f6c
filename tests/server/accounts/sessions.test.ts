import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { Writable } from 'node:stream';
import argon2 from 'argon2';
import { eq, sql } from 'drizzle-orm';
import t from 'tap';
import WebSocket from 'ws';
import { buildApp } from '../../../server/app.js';
import { loadConfig } from '../../../server/core/config.js';
import { loginCodes, sessions, socketTickets } from '../../../server/schema.js';
import { freshDatabase, testApp } from '../../helpers.js';
import { SocketClient } from '../ai/socket-client.js';

const OWNER = { FIREWATCH_ADMIN_EMAIL: 'owner@example.com', FIREWATCH_ADMIN_PASSWORD: 'first-password' };
const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)?.[1] ?? '';

t.test('signing out ends that session on the server; the user’s other sessions go on', async (t) => {
  const { request, database } = await testApp(t, OWNER);
  const signIn = async () =>
    (await request({ method: 'POST', url: '/api/v1/default/auth/login', payload: { email: 'owner@example.com', password: 'first-password' } })).body
      .token as string;
  const laptop = await signIn();
  const phone = await signIn();
  t.equal((await request({ method: 'GET', url: '/api/v1/default/auth/me', token: laptop })).status, 200);

  const out = await request({ method: 'POST', url: '/api/v1/default/auth/logout', token: laptop });
  t.equal(out.status, 204);
  const after = await request({ method: 'GET', url: '/api/v1/default/auth/me', token: laptop });
  t.equal(after.status, 401, 'the signed-out token is refused');
  t.equal(after.body.detail[0].msg, 'Your session has ended. Please sign in again.');
  t.equal((await request({ method: 'GET', url: '/api/v1/default/tags', token: laptop })).status, 401, 'on data routes too');
  t.equal((await request({ method: 'GET', url: '/api/v1/default/auth/me', token: phone })).status, 200, 'the other session is untouched');

  const tablet = await signIn();
  await database.db.update(sessions).set({ expires_at: sql`now() - interval '1 second'` });
  t.equal(
    (await request({ method: 'GET', url: '/api/v1/default/tags', token: tablet })).status,
    401,
    'a session past its end is refused, whatever the token says',
  );
  await signIn();
  t.equal((await database.db.select().from(sessions)).length, 1, 'expired sessions are cleared as a new one starts');
});

t.test('a password change ends every other session of the user; the one that made it stays signed in', async (t) => {
  const { request } = await testApp(t, OWNER);
  const signIn = async () =>
    (await request({ method: 'POST', url: '/api/v1/default/auth/login', payload: { email: 'owner@example.com', password: 'first-password' } })).body
      .token as string;
  const mine = await signIn();
  const stolen = await signIn();
  const me = await request({ method: 'GET', url: '/api/v1/default/auth/me', token: stolen });
  t.equal(me.status, 200, 'the other session works before the change (and is remembered in the membership cache)');

  const changed = await request({
    method: 'PUT',
    url: `/api/v1/default/users/${me.body.id}`,
    token: mine,
    payload: { password: 'second-password', current_password: 'first-password' },
  });
  t.equal(changed.status, 200);
  t.equal((await request({ method: 'GET', url: '/api/v1/default/auth/me', token: stolen })).status, 401, 'the token issued before the change is refused');
  t.equal((await request({ method: 'GET', url: '/api/v1/default/auth/me', token: mine })).status, 200, 'the session that changed it goes on');
  const renamed = await request({ method: 'PUT', url: `/api/v1/default/users/${me.body.id}`, token: mine, payload: { display_name: 'Owner' } });
  t.equal(renamed.status, 200, 'another profile edit does not sign anyone out');
  t.equal((await request({ method: 'GET', url: '/api/v1/default/auth/me', token: mine })).status, 200);
});

t.test('a token that never expires, or names no session, is refused even with the right signature', async (t) => {
  const { request, app, login } = await testApp(t);
  const token = await login('someone@example.com');
  const { sub, sid } = app.jwt.decode(token) as { sub: string; sid: string };
  t.equal((await request({ method: 'GET', url: '/api/v1/default/tags', token })).status, 200);
  const forever = app.jwt.sign({ sub, sid, email: 'someone@example.com' });
  t.notOk((app.jwt.decode(forever) as { exp?: number }).exp, 'the forged token has no exp');
  t.equal((await request({ method: 'GET', url: '/api/v1/default/tags', token: forever })).status, 401, 'no exp: refused');
  const sessionless = app.jwt.sign({ sub, email: 'someone@example.com' }, { expiresIn: '1h' });
  t.equal((await request({ method: 'GET', url: '/api/v1/default/tags', token: sessionless })).status, 401, 'no sid: refused');
  const unknown = app.jwt.sign({ sub, sid: 'not-a-session', email: 'someone@example.com' }, { expiresIn: '1h' });
  t.equal((await request({ method: 'GET', url: '/api/v1/default/tags', token: unknown })).status, 401, 'a sid with no session: refused');
  const someoneElses = app.jwt.sign({ sub: String(Number(sub) + 1), sid, email: 'x@example.com' }, { expiresIn: '1h' });
  t.equal((await request({ method: 'GET', url: '/api/v1/default/auth/me', token: someoneElses })).status, 401, "another user's session id: refused");
});

t.test('the socket opens with a single-use ticket for its organization, never with the session token', async (t) => {
  const { app, request, login, organization, database } = await testApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  const token = await login('member@example.com', { role: 'Member' });

  const issued = await request({ method: 'POST', url: '/api/v1/default/auth/ws-ticket', token });
  t.equal(issued.status, 200);
  t.match(issued.body, { ticket: String, expires_in: 60 });
  t.notOk(issued.body.ticket.includes(token.split('.')[1]), 'the ticket is not the token');

  const first = await SocketClient.open(`ws://127.0.0.1:${port}/api/v1/default/ws?ticket=${issued.body.ticket}`);
  t.teardown(() => first.ws.close());
  t.match((await first.request('fetch_limits', {}, 'limits')).data, { plan: String }, 'the ticket opens a signed-in socket');

  const again = await SocketClient.open(`ws://127.0.0.1:${port}/api/v1/default/ws?ticket=${issued.body.ticket}`);
  t.teardown(() => again.ws.close());
  t.match((await again.request('fetch_limits', {}, 'error')).data.detail[0], { type: 'no_session' }, 'a used ticket opens nothing');

  const byToken = await SocketClient.open(`ws://127.0.0.1:${port}/api/v1/default/ws?token=${token}`);
  t.teardown(() => byToken.ws.close());
  t.match((await byToken.request('fetch_limits', {}, 'error')).data.detail[0], { type: 'no_session' }, 'the session token in the URL opens nothing');

  const other = await organization('other');
  const elsewhere = (await request({ method: 'POST', url: `/api/v1/${other.slug}/auth/ws-ticket`, token: other.token })).body.ticket;
  const wrongOrg = await SocketClient.open(`ws://127.0.0.1:${port}/api/v1/default/ws?ticket=${elsewhere}`);
  t.teardown(() => wrongOrg.ws.close());
  t.match((await wrongOrg.request('fetch_limits', {}, 'error')).data.detail[0], { type: 'no_session' }, "another organization's ticket opens nothing here");

  const stale = (await request({ method: 'POST', url: '/api/v1/default/auth/ws-ticket', token })).body.ticket;
  await database.db.update(socketTickets).set({ expires_at: sql`now() - interval '1 second'` });
  const late = await SocketClient.open(`ws://127.0.0.1:${port}/api/v1/default/ws?ticket=${stale}`);
  t.teardown(() => late.ws.close());
  t.match((await late.request('fetch_limits', {}, 'error')).data.detail[0], { type: 'no_session' }, 'an expired ticket opens nothing');

  const pending = (await request({ method: 'POST', url: '/api/v1/default/auth/ws-ticket', token })).body.ticket;
  await request({ method: 'POST', url: '/api/v1/default/auth/logout', token });
  const afterLogout = await SocketClient.open(`ws://127.0.0.1:${port}/api/v1/default/ws?ticket=${pending}`);
  t.teardown(() => afterLogout.ws.close());
  t.match((await afterLogout.request('fetch_limits', {}, 'error')).data.detail[0], { type: 'no_session' }, 'signing out voids the tickets of the session');
  t.equal((await request({ method: 'POST', url: '/api/v1/default/auth/ws-ticket', token })).status, 401, 'and a signed-out token gets no new one');

  const key = (await request({ method: 'POST', url: '/api/v1/default/auth/anonymous' })).body.key;
  const visitor = await SocketClient.open(`ws://127.0.0.1:${port}/api/v1/default/ws?key=${key}`);
  t.teardown(() => visitor.ws.close());
  t.match((await visitor.request('fetch_limits', {}, 'limits')).data, { plan: String }, 'a visitor still opens the socket with their anonymous key');
});

/** Each client's close, recorded from the moment it opens: the server may close it before the test starts waiting. */
const closes = new WeakMap<SocketClient, Promise<{ code: number; reason: string }>>();
const recordClose = (client: SocketClient) => {
  closes.set(client, new Promise((resolve) => client.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() }))));
  return client;
};

/** The code and reason the socket was closed with by the server, or 'open' if it still is after `ms`. */
const closedWithin = (client: SocketClient, ms: number) => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([closes.get(client)!, new Promise<'open'>((resolve) => (timer = setTimeout(() => resolve('open'), ms)))]).finally(() =>
    clearTimeout(timer),
  );
};

t.test("signing out closes that session's open sockets at once; a password change closes every other session's", async (t) => {
  const { app, request } = await testApp(t, OWNER);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const wsUrl = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws`;
  const signIn = async (password = 'first-password') =>
    (await request({ method: 'POST', url: '/api/v1/default/auth/login', payload: { email: 'owner@example.com', password } })).body.token as string;
  const socketOf = async (token: string) => {
    const client = recordClose(
      await SocketClient.open(`${wsUrl}?ticket=${(await request({ method: 'POST', url: '/api/v1/default/auth/ws-ticket', token })).body.ticket}`),
    );
    t.teardown(() => client.ws.close());
    t.match((await client.request('fetch_limits', {}, 'limits')).data, { plan: String }, 'the socket is signed in');
    return client;
  };
  const ended = { code: 4001, reason: 'Your session has ended. Please sign in again.' };

  const laptop = await signIn();
  const phone = await signIn();
  const laptopTabs = [await socketOf(laptop), await socketOf(laptop)];
  const phoneTab = await socketOf(phone);
  const started = Date.now();
  t.equal((await request({ method: 'POST', url: '/api/v1/default/auth/logout', token: laptop })).status, 204);
  t.same(await Promise.all(laptopTabs.map((tab) => closedWithin(tab, 5000))), [ended, ended], 'each socket of the signed-out session is closed, saying why');
  t.ok(Date.now() - started < 5000, `closed ${Date.now() - started} ms after the sign-out (load ${os.loadavg()[0]!.toFixed(1)})`);
  t.equal(await closedWithin(phoneTab, 300), 'open', "the user's other session keeps its socket");
  t.match((await phoneTab.request('fetch_limits', {}, 'limits')).data, { plan: String }, 'and it still answers');

  // A password change made from one session: the others' sockets close, its own stay.
  const mine = await signIn();
  const mineTab = await socketOf(mine);
  const me = (await request({ method: 'GET', url: '/api/v1/default/auth/me', token: mine })).body;
  t.equal(
    (
      await request({
        method: 'PUT',
        url: `/api/v1/default/users/${me.id}`,
        token: mine,
        payload: { password: 'second-password', current_password: 'first-password' },
      })
    ).status,
    200,
  );
  t.same(await closedWithin(phoneTab, 5000), ended, "the other session's socket is closed by the password change");
  t.equal(await closedWithin(mineTab, 300), 'open', 'the session that changed the password keeps its socket');
  t.match((await mineTab.request('fetch_limits', {}, 'limits')).data, { plan: String });

  // An edit that is not a password change closes nothing.
  const later = await socketOf(await signIn('second-password'));
  t.equal((await request({ method: 'PUT', url: `/api/v1/default/users/${me.id}`, token: mine, payload: { display_name: 'Owner' } })).status, 200);
  t.equal(await closedWithin(later, 500), 'open', 'a profile edit leaves sockets open');
  t.equal(app.live.sessions.size(), 2, 'closed sockets are no longer tracked');
});

t.test('a ticket used just as its session ends opens a socket that is closed at once', async (t) => {
  const { app, request, login, database } = await testApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const token = await login('member@example.com', { role: 'Member' });
  const { sid } = app.jwt.decode(token) as { sid: string };
  const ticket = (await request({ method: 'POST', url: '/api/v1/default/auth/ws-ticket', token })).body.ticket;
  // The session ends with no announcement (it runs out) while its fresh ticket is still unused: only the
  // check the socket makes once it is registered can see it, as with a sign-out committed in between.
  await database.db
    .update(sessions)
    .set({ expires_at: sql`now() - interval '1 second'` })
    .where(eq(sessions.id, sid));
  const client = new WebSocket(`ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws?ticket=${ticket}`);
  const code = await new Promise<number>((resolve) => client.once('close', (c) => resolve(c)));
  t.equal(code, 4001, 'the socket of an ended session is closed as soon as it opens');
});

t.test('session tokens, socket tickets and anonymous keys never reach the log; the logged address is the peer', async (t) => {
  const { database } = await freshDatabase(t);
  let log = '';
  const logStream = new Writable({ write: (chunk, _enc, done) => void ((log += String(chunk)), done()) });
  const config = loadConfig({ LOG_LEVEL: 'info', JWT_SECRET: 'test-secret-test-secret-test-secret-42', ADMIN_DIST: 'dist/no-admin-in-tests' });
  const app = await buildApp({ config, database, logStream, mailer: async () => {} });
  t.teardown(() => app.close());
  const jwt = app.jwt.sign({ sub: '1', sid: 'x' }, { expiresIn: '1h' });
  const secrets = { jwt, ticket: 'TICKETSECRET123', key: 'fwanon_KEYSECRET456', pathKey: 'fwanon_PATHSECRET789' };
  await app.inject({ method: 'GET', url: `/api/v1/default/ws?token=${jwt}` });
  await app.inject({ method: 'GET', url: `/api/v1/default/ws?ticket=${secrets.ticket}&x=1` });
  await app.inject({ method: 'GET', url: `/api/v1/default/ws?x=1&key=${secrets.key}` });
  await app.inject({ method: 'GET', url: `/api/v1/default/projects/anonymous/${secrets.pathKey}`, headers: { 'x-forwarded-for': '10.62.0.1' } });
  for (const [name, secret] of Object.entries(secrets)) t.notOk(log.includes(secret), `the ${name} is not in the log`);
  t.match(log, /ws\?token=\[redacted\]/, 'the parameter is still named, its value replaced');
  t.match(log, /ws\?x=1&key=\[redacted\]/);
  t.match(log, /projects\/anonymous\/fwanon_\[redacted\]/);
  t.notOk(log.includes('10.62.0.1'), 'an X-Forwarded-For from no trusted proxy is not logged as the address');
  t.match(log, /"remoteAddress":"127\.0\.0\.1"/);
});

t.test('codes: concurrent guesses share the five tries, and a code signs in once', async (t) => {
  const { request, outbox, database } = await testApp(t, { LOGIN_RATE_LIMIT: '100' });
  const verify = (email: string, code: string) => request({ method: 'POST', url: '/api/v1/default/auth/verify', payload: { email, code } });
  const sendCode = async (email: string) => {
    await request({ method: 'POST', url: '/api/v1/default/auth/login', payload: { email } });
    const code = codeIn(outbox.at(-1)!.text);
    return { code, wrong: code === '999999' ? '888888' : '999999' };
  };

  const a = await sendCode('nine@example.com');
  const nine = await Promise.all(Array.from({ length: 9 }, () => verify('nine@example.com', a.wrong)));
  t.same(
    nine.map((r) => r.status),
    Array(9).fill(400),
    'nine wrong guesses at once: all refused',
  );
  const [row] = await database.db.select().from(loginCodes).where(eq(loginCodes.email, 'nine@example.com'));
  t.equal(row!.attempts, 5, 'each took a try until the five were used; none was compared past them');
  t.equal((await verify('nine@example.com', a.code)).status, 400, 'the right code afterwards is refused');

  const b = await sendCode('five@example.com');
  await Promise.all(Array.from({ length: 5 }, () => verify('five@example.com', b.wrong)));
  const late = await Promise.all(Array.from({ length: 3 }, () => verify('five@example.com', b.code)));
  t.same(
    late.map((r) => r.status),
    [400, 400, 400],
    'after five wrong guesses in parallel, the right code is refused, in parallel too',
  );

  const c = await sendCode('once@example.com');
  const same = await Promise.all(Array.from({ length: 6 }, () => verify('once@example.com', c.code)));
  t.same(same.map((r) => r.status).sort(), [200, 400, 400, 400, 400, 400], 'six copies of the right code at once: one sign-in');
});

t.test('a right password outside the organization gets the wrong password’s answer', async (t) => {
  const { request, organization } = await testApp(t, OWNER);
  await organization('bravo');
  const login = (password: string) => request({ method: 'POST', url: '/api/v1/bravo/auth/login', payload: { email: 'owner@example.com', password } });
  const right = await login('first-password');
  const wrong = await login('not-the-password');
  t.equal(right.status, 401, 'not 403: the answer does not confirm the password');
  t.same(right.body, wrong.body);
});

t.test('every password sign-in runs one argon2 verification, whether or not the account or its password exists', async (t) => {
  const { request, login } = await testApp(t, { ...OWNER, LOGIN_RATE_LIMIT: '100' });
  await login('no-password@example.com');
  const verify = argon2.verify;
  let calls = 0;
  argon2.verify = (async (...args: Parameters<typeof verify>) => {
    calls++;
    return verify(...args);
  }) as typeof verify;
  t.teardown(() => void (argon2.verify = verify));
  const cases = {
    'an unknown e-mail': 'nobody@example.com',
    'an account without a password': 'no-password@example.com',
    'an account with one': 'owner@example.com',
  };
  for (const [name, email] of Object.entries(cases)) {
    calls = 0;
    const res = await request({ method: 'POST', url: '/api/v1/default/auth/login', payload: { email, password: 'not-the-password' } });
    t.equal(res.status, 401);
    t.equal(res.body.detail[0].msg, 'Invalid e-mail or password.');
    t.equal(calls, 1, `${name}: one verification`);
  }
});
