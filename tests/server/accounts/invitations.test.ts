import { eq, sql } from 'drizzle-orm';
import t from 'tap';
import { invitations, users } from '../../../server/schema.js';
import { testApp } from '../../helpers.js';

const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)?.[1] ?? '';
const tokenIn = (text: string) => /[?&]invitation=([A-Za-z0-9_-]+)/.exec(text)?.[1] ?? '';

/**
 * `users` is shared by organizations: an Owner or Admin of one organization invites people (who accept),
 * changes only their role there, and never another person's name or password.
 */
t.test('adding a user of another organization invites them; their profile stays theirs', async (t) => {
  const { request, organization, outbox, database } = await testApp(t);
  const a = await organization('alpha', 'owner@alpha.test');
  const b = await organization('bravo', 'owner@bravo.test');
  const api = (method: string, url: string, token?: string, payload?: unknown) =>
    request({ method: method as never, url, token, ...(payload === undefined ? {} : { payload: payload as never }) });
  const bOwner = (await api('GET', '/api/v1/bravo/auth/me', b.token)).body;
  t.equal((await api('PUT', `/api/v1/bravo/users/${bOwner.id}`, b.token, { display_name: 'Bravo Boss' })).status, 200, 'a person names themself');
  const bCreated = (await api('GET', `/api/v1/bravo/users/${bOwner.id}`, b.token)).body.created_at;

  // A's Owner "adds" B's Owner: an invitation, no membership, nothing about the person in the answer.
  const invited = await api('POST', '/api/v1/alpha/users', a.token, { email: 'Owner@Bravo.test', role: 'Admin' });
  t.equal(invited.status, 201);
  t.equal(invited.body.message, 'Invitation sent to owner@bravo.test.');
  t.equal(invited.body.emailed, true);
  t.match(invited.body.invitation, { email: 'owner@bravo.test', role: 'Admin', expires_at: String });
  t.notOk(JSON.stringify(invited.body).includes('Bravo Boss'), "the answer does not show the person's name");
  t.notOk(JSON.stringify(invited.body).includes(bCreated), 'nor when they signed up');
  t.notOk('token_hash' in invited.body.invitation, 'nor the token');
  const fresh = await api('POST', '/api/v1/alpha/users', a.token, { email: 'newcomer@example.com', role: 'Member', display_name: 'Newcomer' });
  t.equal(fresh.status, 201);
  t.same(
    Object.keys(fresh.body.invitation).sort(),
    Object.keys(invited.body.invitation).sort(),
    'a new e-mail gets the same answer: nothing tells whether the person exists',
  );

  t.notOk(
    (await api('GET', '/api/v1/alpha/users?itemsPerPage=-1', a.token)).body.items.some((u: { email: string }) => u.email === 'owner@bravo.test'),
    'not a member yet',
  );
  t.equal((await api('GET', '/api/v1/alpha/auth/me', b.token)).status, 403, 'no access to A yet');
  t.notOk(
    (await api('GET', '/api/v1/bravo/organizations', b.token)).body.items.some((o: { slug: string }) => o.slug === 'alpha'),
    "A is not in B's Owner's organizations",
  );

  // The e-mail carries the link; the token is stored only as a hash.
  const mail = outbox.find((m) => m.to === 'owner@bravo.test')!;
  t.match(mail.subject, /invited to alpha/);
  t.match(mail.text, /owner@alpha\.test invites you to join the organization alpha on Firewatch as Admin/);
  const token = tokenIn(mail.text);
  t.ok(token.length >= 40, 'a long random token');
  const stored = await database.db.select().from(invitations);
  t.notOk(
    stored.some((i) => i.token_hash === token),
    'stored hashed',
  );

  // Invitations are listed for Admins (the Members screen's pending list).
  const pending = await api('GET', '/api/v1/alpha/invitations', a.token);
  t.same(pending.body.items.map((i: { email: string }) => i.email).sort(), ['newcomer@example.com', 'owner@bravo.test']);

  // B's Owner accepts with the link's token: signed in to A, with the invited role, profile untouched.
  const accepted = await api('POST', '/api/v1/alpha/auth/invitations/accept', undefined, { token });
  t.equal(accepted.status, 200);
  t.match(accepted.body, { token: String, organization: { slug: 'alpha' }, user: { id: bOwner.id, email: 'owner@bravo.test' } });
  const inA = (await api('GET', '/api/v1/alpha/auth/me', b.token)).body;
  t.match(inA, { role: 'Admin', display_name: 'Bravo Boss' });
  const again = await api('POST', '/api/v1/alpha/auth/invitations/accept', undefined, { token });
  t.equal(again.status, 400, 'a token works once');
  t.same(again.body.detail, [{ msg: 'This invitation is invalid, used or expired. Ask for a new one.', loc: ['body', 'token'], type: 'invalid_invitation' }]);
  t.same(
    (await api('GET', '/api/v1/alpha/invitations', a.token)).body.items.map((i: { email: string }) => i.email),
    ['newcomer@example.com'],
  );

  // A's Owner may change the role in A, never the person's name or password.
  const renamed = await api('PUT', `/api/v1/alpha/users/${bOwner.id}`, a.token, { display_name: 'Renamed by org A' });
  t.equal(renamed.status, 403);
  t.equal(renamed.body.detail[0].msg, 'You can only change your own profile.');
  t.equal((await api('PUT', `/api/v1/alpha/users/${bOwner.id}`, a.token, { password: 'taken-over-by-a' })).status, 403);
  t.equal((await api('PUT', `/api/v1/alpha/users/${bOwner.id}`, a.token, { role: 'Member' })).status, 200, 'the role in A is A’s to change');
  t.equal((await api('GET', `/api/v1/bravo/users/${bOwner.id}`, b.token)).body.display_name, 'Bravo Boss', 'B still shows the own name');
  t.equal((await api('GET', '/api/v1/bravo/auth/me', b.token)).body.role, 'Owner', 'and the role in B');
  const [row] = await database.db.select().from(users).where(eq(users.id, bOwner.id));
  t.equal(row!.password_hash, null, 'no password was set by A');

  // Removing the member from A removes the membership only.
  t.equal((await api('DELETE', `/api/v1/alpha/users/${bOwner.id}`, a.token)).status, 204);
  t.equal((await api('GET', '/api/v1/alpha/auth/me', b.token)).status, 403);
  t.match((await api('GET', `/api/v1/bravo/users/${bOwner.id}`, b.token)).body, { display_name: 'Bravo Boss', role: 'Owner' });
});

t.test('a new person accepts by signing in with the e-mail code; rules and bad input', async (t) => {
  const { request, organization, outbox, login, database } = await testApp(t);
  const a = await organization('alpha', 'owner@alpha.test');
  const api = (method: string, url: string, token?: string, payload?: unknown) =>
    request({ method: method as never, url, token, ...(payload === undefined ? {} : { payload: payload as never }) });
  const signIn = async (email: string) => {
    await api('POST', '/api/v1/alpha/auth/login', undefined, { email });
    return api('POST', '/api/v1/alpha/auth/verify', undefined, { email, code: codeIn(outbox.at(-1)!.text) });
  };

  t.equal((await signIn('newcomer@example.com')).status, 403, 'sign-up is closed without an invitation');
  t.equal((await api('POST', '/api/v1/alpha/users', a.token, { email: 'newcomer@example.com', role: 'Admin', display_name: 'Newcomer' })).status, 201);
  const session = await signIn('newcomer@example.com');
  t.equal(session.status, 200, 'the code accepts the invitation');
  t.match((await api('GET', '/api/v1/alpha/auth/me', session.body.token)).body, { email: 'newcomer@example.com', role: 'Admin', display_name: 'Newcomer' });
  t.equal((await api('GET', '/api/v1/alpha/invitations', a.token)).body.total, 0, 'used up');
  const member = await api('POST', '/api/v1/alpha/users', a.token, { email: 'newcomer@example.com' });
  t.equal(member.status, 409, 'a member is not invited again');
  t.same(member.body.detail[0].loc, ['body', 'email']);

  // Who may invite whom.
  const admin = await login('admin@alpha.test', { org: 'alpha', role: 'Admin' });
  const plain = await login('member@alpha.test', { org: 'alpha', role: 'Member' });
  t.equal((await api('POST', '/api/v1/alpha/users', plain, { email: 'x@example.com' })).status, 403, 'a Member may not invite');
  t.equal((await api('POST', '/api/v1/alpha/invitations', plain, { email: 'x@example.com' })).status, 403);
  t.equal((await api('POST', '/api/v1/alpha/users', admin, { email: 'x@example.com', role: 'Owner' })).status, 403, 'an Admin may not invite an Owner');
  const byAdmin = await api('POST', '/api/v1/alpha/invitations', admin, { email: 'x@example.com', role: 'Manager' });
  t.equal(byAdmin.status, 201, 'the Invitations screen invites too');
  t.match(byAdmin.body, { email: 'x@example.com', role: 'Manager' });
  t.equal((await api('GET', '/api/v1/alpha/invitations', plain)).body.total, 0, 'Members do not see invitations');

  // Bad input changes nothing.
  const before = (await api('GET', '/api/v1/alpha/invitations', a.token)).body.total;
  for (const body of [{ email: 'not-an-address' }, { email: 'y@example.com', role: 'King' }, { email: 'y@example.com', extra: 1 }]) {
    const res = await api('POST', '/api/v1/alpha/users', a.token, body);
    t.equal(res.status, 422, JSON.stringify(body));
    t.match(res.body.detail[0], { msg: String, loc: Array, type: String });
  }
  t.equal((await api('GET', '/api/v1/alpha/invitations', a.token)).body.total, before);
  t.equal((await api('POST', '/api/v1/alpha/auth/invitations/accept', undefined, { token: '' })).status, 422);

  // A revoked or expired invitation cannot be accepted; inviting again renews it with a new link.
  await api('POST', '/api/v1/alpha/users', a.token, { email: 'late@example.com' });
  const first = tokenIn(outbox.at(-1)!.text);
  await database.db
    .update(invitations)
    .set({ expires_at: sql`now() - interval '1 minute'` })
    .where(eq(invitations.email, 'late@example.com'));
  t.equal((await api('POST', '/api/v1/alpha/auth/invitations/accept', undefined, { token: first })).status, 400, 'expired');
  t.equal((await signIn('late@example.com')).status, 403, 'an expired invitation does not open sign-up');
  await api('POST', '/api/v1/alpha/users', a.token, { email: 'late@example.com' });
  const second = tokenIn(outbox.at(-1)!.text);
  t.not(second, first);
  const revoke = (await api('GET', '/api/v1/alpha/invitations?q=late', a.token)).body.items[0].id;
  t.equal((await api('DELETE', `/api/v1/alpha/invitations/${revoke}`, plain)).status, 403, 'a Member may not revoke');
  t.equal((await api('DELETE', `/api/v1/alpha/invitations/${revoke}`, a.token)).status, 204);
  t.equal((await api('POST', '/api/v1/alpha/auth/invitations/accept', undefined, { token: second })).status, 400, 'revoked');

  // A person still changes their own name.
  const me = (await api('GET', '/api/v1/alpha/auth/me', session.body.token)).body;
  t.equal((await api('PUT', `/api/v1/alpha/users/${me.id}`, session.body.token, { display_name: 'New Name' })).body.display_name, 'New Name');
});

t.test('an invitation whose e-mail cannot be sent is kept, and the answer says so', async (t) => {
  // Nothing listens on port 9 of this machine: the app's real SMTP mailer fails to connect.
  const { request, organization } = await testApp(t, { SMTP_URL: 'smtp://127.0.0.1:9' });
  const a = await organization('alpha', 'owner@alpha.test');
  const res = await request({ method: 'POST', url: '/api/v1/alpha/users', token: a.token, payload: { email: 'someone@example.com' } });
  t.equal(res.status, 201);
  t.equal(res.body.emailed, false);
  t.match(res.body.message, /could not be sent: they can accept by signing in with the e-mail code/);
  const viaScreen = await request({ method: 'POST', url: '/api/v1/alpha/invitations', token: a.token, payload: { email: 'other@example.com' } });
  t.match(viaScreen.body, { email: 'other@example.com', emailed: false });
  t.equal((await request({ method: 'GET', url: '/api/v1/alpha/invitations', token: a.token })).body.total, 2, 'both kept');
});

t.test('the pending invitations say who invited by name, not by id', async (t) => {
  const { request, login } = await testApp(t);
  const token = await login('dana@example.com');
  const api = (method: string, url: string, payload?: unknown) =>
    request({ method: method as never, url: `/api/v1/default${url}`, token, ...(payload === undefined ? {} : { payload: payload as never }) });
  const me = (await api('GET', '/auth/me')).body;
  t.equal((await api('PUT', `/users/${me.id}`, { display_name: 'Dana Ops' })).status, 200);
  t.equal((await api('POST', '/invitations', { email: 'sam@example.com', role: 'Member' })).status, 201);
  const [pending] = (await api('GET', '/invitations')).body.items;
  t.match(pending, { email: 'sam@example.com', invited_by: me.id, invited_by_name: 'Dana Ops' });
  const fields = ((await api('GET', '/meta/resources')).body.resources as { name: string; fields: { name: string; label: string; list: boolean }[] }[]).find(
    (m) => m.name === 'invitations',
  )!.fields;
  t.same(
    fields.filter((f) => f.list && /invited/i.test(f.label)).map((f) => [f.name, f.label]),
    [['invited_by_name', 'Invited by']],
    'the list shows one "Invited by" column, the name',
  );
});
