import { createServer, type AddressInfo } from 'node:net';
import t from 'tap';
import { RETRY_GAP_MS } from '../../../server/accounts/oidc.js';
import { oidcLogins, oidcTickets } from '../../../server/schema.js';
import { startOidcProvider } from '../../oidc-provider.js';
import { testApp, type TestApp } from '../../helpers.js';

/**
 * Sign-in with Google (and any OpenID Connect provider by discovery) against a local provider speaking
 * the real protocol: the server's code path is production's, only GOOGLE_ISSUER points elsewhere.
 */
const provider = await startOidcProvider();
t.teardown(() => provider.stop());
const env = { GOOGLE_CLIENT_ID: 'firewatch-client', GOOGLE_CLIENT_SECRET: 'firewatch-secret', GOOGLE_ISSUER: provider.issuer };
const defaults = () => ({ email: 'person@example.com', email_verified: true });

const cookieHeader = (setCookie: unknown) =>
  ([] as string[])
    .concat((setCookie as string[] | string | undefined) ?? [])
    .map((c) => c.split(';')[0])
    .join('; ');

/** One browser's walk: the button's URL, the provider, the callback, the post-oauth-login page's exchange. */
async function walk(fw: TestApp, org = 'default', via: 'google' | 'oidc' = 'google') {
  const start = await fw.app.inject({ method: 'GET', url: `/api/v1/${org}/auth/${via}` });
  if (start.statusCode !== 302) throw new Error(`start answered ${start.statusCode}: ${start.body}`);
  const authorize = new URL(start.headers.location as string);
  const cookie = cookieHeader(start.headers['set-cookie']);
  const atProvider = await fetch(authorize, { redirect: 'manual' });
  const back = new URL(atProvider.headers.get('location')!);
  const callback = () => fw.app.inject({ method: 'GET', url: back.pathname + back.search, headers: { cookie } });
  const landed = await callback();
  const exchange = (location: string) => {
    const token = /#token=([\w-]+)$/.exec(location)?.[1] ?? '';
    return fw.request({ method: 'POST', url: `/api/v1/${org}/auth/postoauthlogin`, payload: { token } });
  };
  const result = await exchange(landed.headers.location as string);
  return { authorize, back, cookie, landed, result, callback, exchange };
}

t.test('the login page learns which providers there are; without configuration there is none', async (t) => {
  const off = await testApp(t);
  t.same((await off.request({ method: 'GET', url: '/api/v1/default/auth/providers' })).body, { providers: [] });
  const start = await off.request({ method: 'GET', url: '/api/v1/default/auth/google' });
  t.equal(start.status, 404);
  t.equal(start.body.detail[0].msg, 'Sign-in with Google is not configured on this server.');

  // The provider's redirect URI exists without providers too: reached with no sign-in, it goes home.
  const bare = await off.app.inject({ method: 'GET', url: '/implicit/callback' });
  t.equal(bare.statusCode, 302);
  t.equal(bare.headers.location, '/');
  const stray = await off.request({ method: 'GET', url: '/implicit/callback?code=x&state=y' });
  t.same(
    { status: stray.status, type: stray.body.detail?.[0]?.type, loc: stray.body.detail?.[0]?.loc },
    { status: 400, type: 'no_sign_in', loc: ['query', 'state'] },
    'a code and state with no sign-in in progress: 400, no ticket',
  );

  const on = await testApp(t, env);
  t.same((await on.request({ method: 'GET', url: '/api/v1/default/auth/providers' })).body, {
    providers: [{ id: 'google', name: 'Google', url: '/api/v1/default/auth/google' }],
  });
});

t.test('a verified Google identity signs up to an open organization and lands signed in', async (t) => {
  const fw = await testApp(t, env);
  provider.claims = { ...defaults(), email: 'New.Person@Example.com' };
  const { authorize, back, landed, result, cookie } = await walk(fw);
  // The authorization request: code flow with PKCE S256, a state and a nonce, to the registered callback.
  t.equal(authorize.origin, provider.issuer);
  t.equal(authorize.searchParams.get('response_type'), 'code');
  t.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
  t.match(authorize.searchParams.get('code_challenge'), /^[\w-]{43}$/);
  t.ok(authorize.searchParams.get('state') && authorize.searchParams.get('nonce'), 'state and nonce sent');
  t.equal(authorize.searchParams.get('redirect_uri'), 'http://localhost:8000/implicit/callback');
  t.match(authorize.searchParams.get('scope'), /openid/);
  t.match(cookie, /fw-oidc-state=/, 'the state is bound to this browser');
  t.notOk(cookie.includes(authorize.searchParams.get('state')!.slice(0, 20) + ';'), 'in a signed cookie');
  t.equal(back.pathname, '/implicit/callback');

  t.equal(landed.statusCode, 302);
  t.match(landed.headers.location, /^\/default\/auth\/post-oauth-login#token=[\w-]+$/, 'the browser goes on to the post-oauth-login page with a ticket');
  t.equal(result.status, 200, JSON.stringify(result.body));
  t.equal(result.body.organization.slug, 'default');
  const me = await fw.request({ method: 'GET', url: '/api/v1/default/auth/me', token: result.body.token });
  t.equal(me.body.email, 'new.person@example.com');
  t.equal(me.body.role, 'Owner', 'the first person in an organization nobody belongs to owns it, as with an e-mail code');
});

t.test('a closed organization admits its members and invited people, and no one else', async (t) => {
  const fw = await testApp(t, env);
  const acme = await fw.organization('acme', 'owner@acme.test');
  provider.claims = { ...defaults(), email: 'stranger@example.com' };
  const stranger = await walk(fw, 'acme');
  t.equal(stranger.result.status, 403);
  t.equal(stranger.result.body.detail[0].msg, "Sign-up is closed for organization 'acme'. Ask an administrator to add you.");

  provider.claims = { ...defaults(), email: 'owner@acme.test' };
  const owner = await walk(fw, 'acme');
  t.equal(owner.result.status, 200);
  t.equal((await fw.request({ method: 'GET', url: '/api/v1/acme/auth/me', token: owner.result.body.token })).body.role, 'Owner');

  t.equal(
    (await fw.request({ method: 'POST', url: '/api/v1/acme/invitations', token: acme.token, payload: { email: 'guest@example.com', role: 'Admin' } })).status,
    201,
  );
  provider.claims = { ...defaults(), email: 'guest@example.com' };
  const guest = await walk(fw, 'acme');
  t.equal(guest.result.status, 200, 'the invitation is accepted');
  t.equal((await fw.request({ method: 'GET', url: '/api/v1/acme/auth/me', token: guest.result.body.token })).body.role, 'Admin');
});

t.test('refused, each with its message: wrong audience, issuer, nonce, expiry, unverified e-mail', async (t) => {
  const fw = await testApp(t, env);
  const now = Math.floor(Date.now() / 1000);
  const cases: [string, Record<string, unknown>, number, string][] = [
    [
      'a token for another client',
      { aud: 'someone-elses-client' },
      401,
      'The sign-in token was issued to another application, not to this Firewatch (audience firewatch-client).',
    ],
    [
      'a token for several audiences without us as azp',
      { aud: ['firewatch-client', 'other'], azp: 'other' },
      401,
      'The sign-in token was issued to another application, not to this Firewatch (azp).',
    ],
    ['another issuer', { iss: 'https://accounts.example.net' }, 401, `The sign-in token was not issued by ${provider.issuer}.`],
    [
      'a wrong nonce',
      { nonce: 'not-the-one-sent' },
      401,
      'The sign-in token does not belong to this sign-in (its nonce does not match). Please sign in again.',
    ],
    ['an expired token', { iat: now - 7200, exp: now - 3600 }, 401, 'The sign-in token has expired. Please sign in again.'],
    [
      'an unverified e-mail',
      { email_verified: false },
      403,
      'Your e-mail address person@example.com is not verified at Google. Verify it there, then sign in again.',
    ],
    ['no e-mail', { email: undefined }, 401, 'Google did not share your e-mail address, which Firewatch needs to sign you in.'],
  ];
  for (const [what, claims, status, message] of cases) {
    provider.claims = { ...defaults(), ...claims };
    const { result } = await walk(fw);
    t.equal(result.status, status, what);
    t.equal(result.body.detail?.[0]?.msg, message, what);
    t.notOk(result.body.token, `${what}: no session`);
  }
  // Signed by a key the provider does not publish.
  provider.claims = defaults();
  provider.header = { kid: 'not-published' };
  const forged = (await walk(fw)).result;
  provider.header = {};
  t.equal(forged.status, 401);
  t.equal(forged.body.detail[0].msg, "The sign-in token's signature could not be verified with Google's keys.");

  const users = await fw.request({ method: 'GET', url: '/api/v1/default/users?itemsPerPage=-1', token: await fw.login('boss@example.com') });
  t.notOk(
    users.body.items.some((u: { email: string }) => u.email === 'person@example.com'),
    'nobody was created by a refused sign-in',
  );
});

t.test("the provider's signing keys are fetched once, not on every sign-in", async (t) => {
  const fw = await testApp(t, env);
  provider.claims = defaults();
  const before = provider.keyFetches;
  for (let i = 0; i < 3; i++) t.equal((await walk(fw)).result.status, 200);
  t.equal(provider.keyFetches - before, 1, 'one JWKS fetch for three sign-ins');
});

t.test('a replayed state, a state from another browser and a used ticket are refused', async (t) => {
  const fw = await testApp(t, env);
  provider.claims = defaults();
  const first = await walk(fw);
  t.equal(first.result.status, 200);
  const exchanges = provider.exchanges;

  // The same callback URL again, with the same cookies (a replay): refused before the code is sent anywhere.
  const replay = await first.callback();
  const again = await first.exchange(replay.headers.location as string);
  t.equal(again.status, 400);
  t.equal(again.body.detail[0].msg, 'This sign-in was already completed; its link cannot be used again. Please sign in again.');
  t.equal(provider.exchanges, exchanges, 'the replayed code was not exchanged');
  t.match(String(replay.headers['set-cookie']), /fw-oidc-state=;/, "the browser's state cookie is cleared");

  // The callback reached without the browser's state cookie (login CSRF: someone else's link), or with
  // a state the cookie does not name (one this server never issued): 400 at once, and no ticket minted.
  const tickets = async () => (await fw.database.db.select().from(oidcTickets)).length;
  const ticketsBefore = await tickets();
  const start = await fw.app.inject({ method: 'GET', url: '/api/v1/default/auth/google' });
  const back = new URL((await fetch(start.headers.location as string, { redirect: 'manual' })).headers.get('location')!);
  for (const [what, url, cookie] of [
    ['no state cookie', back.pathname + back.search, undefined],
    ['a state the cookie does not name', '/implicit/callback?code=x&state=forged', first.cookie],
    ['no sign-in at all', '/implicit/callback?code=x&state=y', undefined],
  ] as const) {
    const res = await fw.request({ method: 'GET', url, ...(cookie ? { headers: { cookie } } : {}) });
    t.same(
      { status: res.status, type: res.body.detail?.[0]?.type, loc: res.body.detail?.[0]?.loc, location: res.headers.location },
      { status: 400, type: 'no_sign_in', loc: ['query', 'state'], location: undefined },
      what,
    );
  }
  t.equal(await tickets(), ticketsBefore, 'no ticket was minted');

  // The ticket from the first sign-in is single-use.
  const used = await first.exchange(first.landed.headers.location as string);
  t.equal(used.status, 400);
  t.equal(used.body.detail[0].msg, 'This sign-in link is invalid, used or expired. Please sign in again.');
  t.same(used.body.detail[0].loc, ['body', 'token']);

  // The person cancels at the provider: the state is used up, the reason shown.
  const cancel = await fw.app.inject({ method: 'GET', url: '/api/v1/default/auth/google' });
  const cancelState = new URL(cancel.headers.location as string).searchParams.get('state')!;
  const cancelled = await fw.app.inject({
    method: 'GET',
    url: `/implicit/callback?error=access_denied&state=${cancelState}`,
    headers: { cookie: cookieHeader(cancel.headers['set-cookie']) },
  });
  t.equal(
    (await first.exchange(cancelled.headers.location as string)).body.detail[0].msg,
    'Google did not complete the sign-in (access_denied). Please try again.',
  );

  // An expired state (the person took more than ten minutes at the provider).
  const late = await fw.app.inject({ method: 'GET', url: '/api/v1/default/auth/google' });
  const lateBack = new URL((await fetch(late.headers.location as string, { redirect: 'manual' })).headers.get('location')!);
  await fw.database.db.update(oidcLogins).set({ expires_at: new Date(Date.now() - 1000) });
  const expired = await fw.app.inject({
    method: 'GET',
    url: lateBack.pathname + lateBack.search,
    headers: { cookie: cookieHeader(late.headers['set-cookie']) },
  });
  t.equal((await first.exchange(expired.headers.location as string)).body.detail[0].msg, 'This sign-in took too long and has expired. Please sign in again.');
});

t.test("an organization's Google Workspace domain: only its accounts get in", async (t) => {
  const fw = await testApp(t, env);
  const acme = await fw.organization('acme', 'owner@acme.test');
  await fw.request({
    method: 'PUT',
    url: `/api/v1/acme/organizations/${acme.id}`,
    token: acme.token,
    payload: { allow_signup: true, sso_domain: 'Acme.TEST' },
  });
  const bad = await fw.request({ method: 'PUT', url: `/api/v1/acme/organizations/${acme.id}`, token: acme.token, payload: { sso_domain: 'not a domain' } });
  t.equal(bad.status, 422);
  t.equal(bad.body.detail[0].msg, 'Must be a domain like example.com');

  provider.claims = { ...defaults(), email: 'someone@gmail.com' };
  const gmail = await walk(fw, 'acme');
  t.equal(gmail.result.status, 403);
  t.equal(gmail.result.body.detail[0].msg, "Organization 'acme' accepts sign-in only with acme.test accounts.");
  provider.claims = { ...defaults(), email: 'someone@elsewhere.test', hd: 'elsewhere.test' };
  t.equal((await walk(fw, 'acme')).result.status, 403, 'another Workspace domain');
  provider.claims = { ...defaults(), email: 'worker@acme.test', hd: 'acme.test' };
  const worker = await walk(fw, 'acme');
  t.equal(worker.result.status, 200, 'an account of the domain signs up');

  // The default organization has no domain: the gmail account is welcome there.
  provider.claims = { ...defaults(), email: 'someone@gmail.com' };
  t.equal((await walk(fw, 'default')).result.status, 200);
});

t.test('any OpenID Connect provider by discovery: the same flow under OIDC_ISSUER', async (t) => {
  const fw = await testApp(t, { OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: 'keycloak-client', OIDC_CLIENT_SECRET: 's3cret', OIDC_NAME: 'Keycloak' });
  t.same((await fw.request({ method: 'GET', url: '/api/v1/default/auth/providers' })).body.providers, [
    { id: 'oidc', name: 'Keycloak', url: '/api/v1/default/auth/oidc' },
  ]);
  provider.claims = { ...defaults(), email: 'sso@corp.test' };
  const { result } = await walk(fw, 'default', 'oidc');
  t.equal(result.status, 200);
  t.equal(result.body.user.email, 'sso@corp.test');
  provider.claims = { ...defaults(), aud: 'firewatch-client' };
  t.equal(
    (await walk(fw, 'default', 'oidc')).result.body.detail[0].msg,
    'The sign-in token was issued to another application, not to this Firewatch (audience keycloak-client).',
  );
});

t.test('a provider down when the server starts is off and says so; once it answers, sign-in works without a restart', async (t) => {
  // A port nobody listens on yet, where the provider will come up later.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  const later = `http://localhost:${port}`; // the local provider names itself so
  const fw = await testApp(t, { ...env, GOOGLE_ISSUER: later });
  t.same((await fw.request({ method: 'GET', url: '/api/v1/default/auth/providers' })).body, { providers: [] }, 'no button while it is down');
  const start = await fw.request({ method: 'GET', url: '/api/v1/default/auth/google' });
  t.equal(start.status, 503);
  t.equal(start.body.detail[0].msg, 'Sign-in with Google is unavailable: its provider cannot be reached. Please try again in a minute.');

  const up = await startOidcProvider('127.0.0.1', port);
  t.teardown(() => up.stop());
  t.equal(up.issuer, later);
  // The login page asks again; a retry happens at most every RETRY_GAP_MS.
  const deadline = Date.now() + 4 * RETRY_GAP_MS;
  let providers: unknown[] = [];
  while (!providers.length && Date.now() < deadline) {
    providers = (await fw.request({ method: 'GET', url: '/api/v1/default/auth/providers' })).body.providers;
    if (!providers.length) await new Promise((resolve) => setTimeout(resolve, 500));
  }
  t.same(providers, [{ id: 'google', name: 'Google', url: '/api/v1/default/auth/google' }], 'the button is back once the provider answers');
  up.claims = { ...defaults(), email: 'late@example.com' };
  const { authorize, result } = await walk(fw);
  t.equal(authorize.origin, later, 'the sign-in goes to the provider found late');
  t.equal(result.status, 200, JSON.stringify(result.body));
  t.equal(result.body.user.email, 'late@example.com', 'and signs the person in, with no restart');
});

t.test('a provider whose ID token has no email_verified (Entra ID) is refused, saying why', async (t) => {
  const fw = await testApp(t, { OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: 'entra-client', OIDC_CLIENT_SECRET: 's3cret', OIDC_NAME: 'Microsoft' });
  provider.claims = { ...defaults(), email: 'someone@contoso.test', email_verified: undefined };
  const { result } = await walk(fw, 'default', 'oidc');
  t.equal(result.status, 403);
  t.equal(
    result.body.detail[0].msg,
    'Microsoft does not say whether your e-mail address someone@contoso.test is verified, so Firewatch cannot sign you in with it. Sign in with an e-mail code instead.',
  );
  provider.claims = { ...defaults(), email: 'someone@contoso.test', email_verified: 'true' };
  t.equal((await walk(fw, 'default', 'oidc')).result.status, 200, 'the flag sent as the string "true" is accepted');
});
