import { eq, sql } from 'drizzle-orm';
import t from 'tap';
import { loginCodes, organizations, rateLimits } from '../../../server/schema.js';
import { testApp } from '../../helpers.js';
import { smtpMailbox } from '../core/smtp-mailbox.js';

const INVALID = 'Invalid or expired verification code. Please try again.';
const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)?.[1] ?? '';

t.test('password sign-in, me, and password change', async (t) => {
  const { request } = await testApp(t, { FIREWATCH_ADMIN_EMAIL: 'Admin@Example.com', FIREWATCH_ADMIN_PASSWORD: 'first-password' });
  const wrong = await request({ method: 'POST', url: '/api/v1/default/auth/login', payload: { email: 'admin@example.com', password: 'nope-nope' } });
  t.equal(wrong.status, 401);
  t.match(wrong.body.detail[0].msg, /Invalid e-mail or password/);

  const ok = await request({ method: 'POST', url: '/api/v1/default/auth/login', payload: { email: 'admin@example.com', password: 'first-password' } });
  t.equal(ok.status, 200);
  t.same(ok.body.organization, { slug: 'default' });
  t.type(ok.body.token, 'string');
  t.ok(Array.isArray(ok.body.projects));

  const me = await request({ method: 'GET', url: '/api/v1/default/auth/me', token: ok.body.token });
  t.equal(me.body.email, 'admin@example.com', 'e-mail is kept lower case');
  t.equal(me.body.role, 'Owner', 'the configured admin owns default');

  const put = (payload: Record<string, string>) => request({ method: 'PUT', url: `/api/v1/default/users/${me.body.id}`, token: ok.body.token, payload });
  const without = await put({ password: 'second-password' });
  t.equal(without.status, 422, 'a new password needs the current one');
  t.match(without.body.detail, [{ loc: ['body', 'current_password'], msg: 'Enter your current password to set a new one.' }]);
  const mistaken = await put({ password: 'second-password', current_password: 'not-the-password' });
  t.match(mistaken.body.detail, [{ loc: ['body', 'current_password'], msg: 'That is not your current password.' }]);
  const changed = await put({ password: 'second-password', current_password: 'first-password' });
  t.equal(changed.status, 200);
  t.notOk('password_hash' in changed.body, 'the hash never leaves the server');
  const old = await request({ method: 'POST', url: '/api/v1/default/auth/login', payload: { email: 'admin@example.com', password: 'first-password' } });
  t.equal(old.status, 401, 'the old password stops working');
  const fresh = await request({ method: 'POST', url: '/api/v1/default/auth/login', payload: { email: 'admin@example.com', password: 'second-password' } });
  t.equal(fresh.status, 200);
  const empty = await request({ method: 'PUT', url: `/api/v1/default/users/${me.body.id}`, token: ok.body.token, payload: { password: '' } });
  t.equal(empty.status, 422, 'a new password is required');
});

t.test('e-mail code: sign-up into an open organization, wrong code, five tries, expiry', async (t) => {
  const { request, outbox, database } = await testApp(t, { LOGIN_RATE_LIMIT: '50' });
  const send = await request({ method: 'POST', url: '/api/v1/default/auth/login', payload: { email: 'new@example.com' } });
  t.equal(send.status, 200);
  t.equal(send.body.message, 'Verification code sent to your email.');
  const code = codeIn(outbox.at(-1)!.text);
  t.equal(outbox.at(-1)!.to, 'new@example.com');
  const stored = await database.db.select().from(loginCodes);
  t.not(stored[0]!.code_hash, code, 'codes are stored hashed');

  const bad = await request({
    method: 'POST',
    url: '/api/v1/default/auth/verify',
    payload: { email: 'new@example.com', code: code === '000000' ? '111111' : '000000' },
  });
  t.equal(bad.status, 400);
  t.equal(bad.body.detail[0].msg, INVALID);

  const good = await request({ method: 'POST', url: '/api/v1/default/auth/verify', payload: { email: 'new@example.com', code } });
  t.equal(good.status, 200);
  const me = await request({ method: 'GET', url: '/api/v1/default/auth/me', token: good.body.token });
  t.equal(me.body.role, 'Owner', 'the first person to sign in to a fresh installation owns default');
  await request({ method: 'POST', url: '/api/v1/default/auth/login', payload: { email: 'second@example.com' } });
  const second = await request({
    method: 'POST',
    url: '/api/v1/default/auth/verify',
    payload: { email: 'second@example.com', code: codeIn(outbox.at(-1)!.text) },
  });
  const secondMe = await request({ method: 'GET', url: '/api/v1/default/auth/me', token: second.body.token });
  t.equal(secondMe.body.role, 'Member', 'everyone after them becomes a Member');
  const reuse = await request({ method: 'POST', url: '/api/v1/default/auth/verify', payload: { email: 'new@example.com', code } });
  t.equal(reuse.status, 400, 'a code works once');

  // Five wrong tries kill the code, even for the right one afterwards.
  await request({ method: 'POST', url: '/api/v1/default/auth/login', payload: { email: 'tries@example.com' } });
  const right = codeIn(outbox.at(-1)!.text);
  const wrongCode = right === '999999' ? '888888' : '999999';
  for (let i = 0; i < 5; i++) await request({ method: 'POST', url: '/api/v1/default/auth/verify', payload: { email: 'tries@example.com', code: wrongCode } });
  const dead = await request({ method: 'POST', url: '/api/v1/default/auth/verify', payload: { email: 'tries@example.com', code: right } });
  t.equal(dead.body.detail?.[0]?.msg, INVALID);

  // An expired code is refused with the same message.
  await request({ method: 'POST', url: '/api/v1/default/auth/login', payload: { email: 'late@example.com' } });
  const late = codeIn(outbox.at(-1)!.text);
  await database.db
    .update(loginCodes)
    .set({ expires_at: sql`now() - interval '1 minute'` })
    .where(eq(loginCodes.email, 'late@example.com'));
  const expired = await request({ method: 'POST', url: '/api/v1/default/auth/verify', payload: { email: 'late@example.com', code: late } });
  t.equal(expired.status, 400);
  t.equal(expired.body.detail[0].msg, INVALID);
});

t.test('sign-up is refused where the organization does not allow it', async (t) => {
  const { request, outbox, organization, database } = await testApp(t);
  await organization('closed');
  const [org] = await database.db.select().from(organizations).where(eq(organizations.slug, 'closed'));
  t.equal(org!.allow_signup, false, 'new organizations are closed by default');
  await request({ method: 'POST', url: '/api/v1/closed/auth/login', payload: { email: 'stranger@example.com' } });
  const res = await request({
    method: 'POST',
    url: '/api/v1/closed/auth/verify',
    payload: { email: 'stranger@example.com', code: codeIn(outbox.at(-1)!.text) },
  });
  t.equal(res.status, 403);
  t.match(res.body.detail[0].msg, /Sign-up is closed/);
});

t.test('sign-in limits: per e-mail and address, per address, an e-mail ceiling; guessing never locks the owner out', async (t) => {
  const { request } = await testApp(t, { LOGIN_RATE_LIMIT: '3', FIREWATCH_ADMIN_EMAIL: 'victim@example.com', FIREWATCH_ADMIN_PASSWORD: 'right-password' });
  const attempt = (email: string, ip: string, password = 'wrong-password') =>
    request({ method: 'POST', url: '/api/v1/default/auth/login', remoteAddress: ip, payload: { email, password } });
  t.equal((await attempt('victim@example.com', '10.0.0.1', 'right-password')).status, 200, 'the owner signs in from their usual address');
  for (let i = 0; i < 3; i++) t.equal((await attempt('victim@example.com', '10.6.6.6')).status, 401);
  const blocked = await attempt('victim@example.com', '10.6.6.6');
  t.equal(blocked.status, 429, 'a guesser is limited');
  t.match(blocked.body.detail[0].msg, /Too many attempts/);
  t.equal((await attempt('victim@example.com', '10.0.0.1', 'right-password')).status, 200, 'meanwhile the owner signs in');
  t.equal((await attempt('victim@example.com', '10.0.0.2')).status, 401, 'and is not limited from another address');

  // Guesses spread over many addresses meet the e-mail's ceiling (ten allowances)...
  let refused = 0;
  for (let i = 0; i < 40 && !refused; i++) if ((await attempt('victim@example.com', `10.7.${i}.1`)).status === 429) refused = i + 1;
  t.ok(refused > 20 && refused <= 30, `the ceiling holds (429 at spread guess ${refused})`);
  // ...which does not apply where the owner has signed in before.
  t.equal((await attempt('victim@example.com', '10.0.0.1', 'right-password')).status, 200, 'the owner still signs in from their usual address');
  t.equal((await attempt('victim@example.com', '10.8.0.1', 'right-password')).status, 429, 'a new address waits like anyone');

  for (let i = 0; i < 15; i++) await attempt(`user${i}@example.com`, '10.9.9.9');
  t.equal((await attempt('someone-else@example.com', '10.9.9.9')).status, 429, 'one address trying many e-mails is limited');
  t.equal((await attempt('fresh@example.com', '10.1.1.1')).status, 401, 'others are unaffected');
});

t.test('only failures count: fifteen right passwords in a row all sign in; ten wrong ones still hold off the right one', async (t) => {
  const { request } = await testApp(t, { FIREWATCH_ADMIN_EMAIL: 'owner@example.com', FIREWATCH_ADMIN_PASSWORD: 'right-password' });
  const attempt = (ip: string, password: string) =>
    request({ method: 'POST', url: '/api/v1/default/auth/login', remoteAddress: ip, payload: { email: 'owner@example.com', password } });
  const rights: number[] = [];
  for (let i = 0; i < 15; i++) rights.push((await attempt('10.4.0.1', 'right-password')).status);
  t.same(rights, Array(15).fill(200), 'fifteen sign-ins in a quarter-hour (the limit is ten attempts)');
  t.equal((await attempt('10.4.0.1', 'wrong-password')).status, 401, 'a failure after them still counts from one');

  const wrongs: number[] = [];
  for (let i = 0; i < 10; i++) wrongs.push((await attempt('10.4.0.2', 'wrong-password')).status);
  t.same(wrongs, Array(10).fill(401));
  const held = await attempt('10.4.0.2', 'right-password');
  t.same({ status: held.status, type: held.body.detail?.[0]?.type }, { status: 429, type: 'rate_limited' }, 'then the right password from that address is 429');
  t.equal((await attempt('10.4.0.1', 'right-password')).status, 200, 'and from the usual address the owner signs in');
});

t.test('the sign-in window slides: attempts count for the window length after they were made, wherever the clock is', async (t) => {
  const { request, database } = await testApp(t, { LOGIN_RATE_LIMIT: '3', LOGIN_RATE_WINDOW_SECONDS: '900' });
  const attempt = () =>
    request({
      method: 'POST',
      url: '/api/v1/default/auth/login',
      remoteAddress: '10.3.3.3',
      payload: { email: 'slide@example.com', password: 'wrong-password' },
    });
  for (let i = 0; i < 3; i++) t.equal((await attempt()).status, 401);
  const older = (minutes: number) => database.db.update(rateLimits).set({ window_start: sql`${rateLimits.window_start} - make_interval(mins => ${minutes})` });
  await older(10);
  const held = await attempt();
  t.equal(held.status, 429, 'attempts made 10 minutes ago still count in a 15-minute window');
  t.match(held.body.detail[0].msg, /try again in 5 minutes/, 'and the wait is until the oldest leaves the window');
  await older(6);
  t.equal((await attempt()).status, 401, 'once they are 16 minutes old they no longer count');
});

t.test('X-Forwarded-For names the caller only when it comes from a proxy in TRUST_PROXY', async (t) => {
  const spray = (request: Awaited<ReturnType<typeof testApp>>['request'], peer: string) =>
    Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        request({
          method: 'POST',
          url: '/api/v1/default/auth/login',
          remoteAddress: peer,
          headers: { 'x-forwarded-for': `10.54.0.${i}` },
          payload: { email: `spray${i}@example.com`, password: 'Summer2026!' },
        }),
      ),
    ).then((all) => all.map((r) => r.status).sort());
  const direct = await testApp(t, { LOGIN_RATE_LIMIT: '1' });
  t.same(
    await spray(direct.request, '203.0.113.9'),
    [401, 401, 401, 401, 401, 429],
    'by default a made-up X-Forwarded-For does not escape the per-address limit',
  );
  const proxied = await testApp(t, { LOGIN_RATE_LIMIT: '1', TRUST_PROXY: '127.0.0.1, 192.168.10.0/24' });
  t.same(await spray(proxied.request, '192.168.10.5'), [401, 401, 401, 401, 401, 401], 'behind a trusted proxy each forwarded address counts for itself');
  t.same(await spray(proxied.request, '203.0.113.9'), [401, 401, 401, 401, 401, 429], 'from anywhere else the header is ignored');
});

t.test('expired, forged and missing tokens get 401', async (t) => {
  const { request, app, login } = await testApp(t);
  await login('someone@example.com');
  const expired = app.jwt.sign({ sub: '1', sid: 'gone', exp: Math.floor(Date.now() / 1000) - 60 });
  const res = await request({ method: 'GET', url: '/api/v1/default/tags', token: expired });
  t.equal(res.status, 401);
  t.match(res.body.detail[0].msg, /expired/);
  const forged = `${app.jwt.sign({ sub: '1', sid: 'gone' }, { expiresIn: '1h' }).slice(0, -4)}AAAA`;
  t.equal((await request({ method: 'GET', url: '/api/v1/default/tags', token: forged })).status, 401);
  const none = await request({ method: 'GET', url: '/api/v1/default/tags' });
  t.equal(none.status, 401);
  t.equal(none.body.detail[0].msg, 'No authentication or temporary session found');
  const visitor = await request({ method: 'POST', url: '/api/v1/default/auth/anonymous' });
  t.match(visitor.body.key, /^fwanon_/, 'a visitor gets an anonymous key');
  const anonymous = await request({ method: 'GET', url: '/api/v1/default/tags', token: visitor.body.key });
  t.equal(anonymous.status, 401, 'an anonymous key reaches nothing private');
  t.equal(anonymous.body.detail[0].msg, 'No authentication or temporary session found');
});

t.test('a token that worked (and was remembered as verified) is refused once it expires', async (t) => {
  const { request, app, login } = await testApp(t);
  const token = await login('soon@example.com');
  const { sub, sid } = app.jwt.decode(token) as { sub: string; sid: string };
  // Long enough for two requests on a loaded machine; the wait below runs to its expiry, whatever it is.
  const shortLived = app.jwt.sign({ sub, sid, email: 'soon@example.com' }, { expiresIn: 8 });
  const { exp } = app.jwt.decode(shortLived) as { exp: number };
  t.equal((await request({ method: 'GET', url: '/api/v1/default/tags', token: shortLived })).status, 200);
  t.equal((await request({ method: 'GET', url: '/api/v1/default/tags', token: shortLived })).status, 200, 'again, from the verified-token cache');
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 - Date.now()) + 1100));
  const late = await request({ method: 'GET', url: '/api/v1/default/tags', token: shortLived });
  t.equal(late.status, 401);
  t.equal(late.body.detail[0].msg, 'Your credentials have expired. Please refresh the page.');
});

t.test('API keys: shown once, stored hashed, act as a Member of their organization only', async (t) => {
  const { request, login, organization } = await testApp(t);
  const token = await login('admin@example.com');
  const project = await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } });
  t.equal(project.body.annual_employee_cost, 50000);
  t.equal(project.body.business_year_hours, 2080);
  t.equal(project.body.color, '#0077B6');
  const created = await request({ method: 'POST', url: '/api/v1/default/apikeys', token, payload: { project_id: project.body.id, description: 'ci' } });
  t.equal(created.status, 201);
  t.match(created.body.key, /^fw_/);
  t.notOk('key_hash' in created.body);
  const listed = await request({ method: 'GET', url: '/api/v1/default/apikeys', token });
  t.notOk('key' in listed.body.items[0], 'the secret is not listed again');
  t.ok(created.body.key.startsWith(listed.body.items[0].key_prefix));

  const key = created.body.key as string;
  const tagType = await request({ method: 'POST', url: '/api/v1/default/tag_types', token: key, payload: { name: 'From a script' } });
  t.equal(tagType.status, 201, 'a key can do what a Member can');
  const me = await request({ method: 'GET', url: '/api/v1/default/auth/me', token: key });
  t.equal(me.body.role, 'Member');
  const adminOnly = await request({ method: 'POST', url: '/api/v1/default/apikeys', token: key, payload: { project_id: project.body.id } });
  t.equal(adminOnly.status, 403, 'a key cannot mint keys');
  await organization('other');
  t.equal((await request({ method: 'GET', url: '/api/v1/other/tags', token: key })).status, 401, 'a key works only on its organization');
  t.equal((await request({ method: 'GET', url: '/api/v1/default/tags', token: 'fw_not-a-key' })).status, 401);
});

t.test('the sign-in code goes out through SMTP when SMTP_URL is set', async (t) => {
  const { received, url } = await smtpMailbox(t);
  const { request } = await testApp(t, { SMTP_URL: url });
  const res = await request({ method: 'POST', url: '/api/v1/default/auth/login', payload: { email: 'mail@example.com' } });
  t.equal(res.status, 200);
  t.equal(received.length, 1);
  t.match(received[0], /To: mail@example\.com/);
  const code = codeIn(received[0]!.split('\r\n\r\n').slice(1).join('\n'));
  t.equal(code.length, 6);
  const verified = await request({ method: 'POST', url: '/api/v1/default/auth/verify', payload: { email: 'mail@example.com', code } });
  t.equal(verified.status, 200);
});

t.test('an SMTP failure is reported, not swallowed', async (t) => {
  const { request } = await testApp(t, { SMTP_URL: 'smtp://127.0.0.1:1' });
  const res = await request({ method: 'POST', url: '/api/v1/default/auth/login', payload: { email: 'x@example.com' } });
  t.equal(res.status, 502);
  t.equal(res.body.detail[0].msg, 'Failed to send verification code. Please try again.');
});
