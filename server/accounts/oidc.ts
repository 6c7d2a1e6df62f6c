import { createHash, createHmac, randomBytes } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import type { OAuth2Namespace } from '@fastify/oauth2';
import { and, eq, gt, isNull, lt } from 'drizzle-orm';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { z } from 'zod';
import type { Config } from '../core/config.js';
import { organizations, users } from '../core/db/tables.js';
import { HttpError, httpError } from '../core/errors.js';
import { admitVerifiedEmail, signedIn, signedInSchema } from './admit.js';
import { answers, arrayOf, objectOf, str } from '../engine/answers.js';
import { hitRateLimit } from './rate-limit.js';
import { normalizeEmail } from './service.js';
import { oidcLogins, oidcTickets } from './tables.js';

/**
 * Sign-in through an OpenID Connect provider: Google, and any other found by discovery (Okta, Entra ID,
 * Keycloak). One code path for both, and for the tests' local provider: only the issuer URL differs.
 *
 * Authorization code flow on the server with PKCE (S256), state and nonce, through @fastify/oauth2. The
 * state and the PKCE verifier travel in signed, httpOnly, 10-minute cookies (so the flow must end in the
 * browser that began it); the state is also a row here, used once (a replayed state is refused) and
 * holding the nonce. @fastify/oauth2 does not look at the ID token: jose verifies it against the
 * provider's discovered keys (cached, re-fetched when a new key id appears): signature, issuer, audience
 * (and azp), expiry, nonce, email_verified, and the organization's domain (sso_domain, Google's `hd`).
 */

export type ProviderId = 'google' | 'oidc';

interface Provider {
  id: ProviderId;
  /** For people: "Sign in with {name}". */
  name: string;
  issuer: string;
  clientId: string;
  oauth2: OAuth2Namespace;
  keys: ReturnType<typeof createRemoteJWKSet>;
}

export interface OidcProviders {
  /** The providers ready to sign people in. */
  ready: Map<ProviderId, Provider>;
  /** Configured ones whose discovery failed (at start or since), with why. */
  failed: Map<ProviderId, string>;
  /**
   * Discovers the failed providers again (each at most every RETRY_GAP_MS), waiting up to `waitMs` for the
   * outcome: a provider down when the server started is offered as soon as it answers, without a restart.
   */
  retry(waitMs: number): Promise<void>;
  /** The signed state and PKCE verifier cookies' names and attributes (set by @fastify/oauth2). */
  cookies: { state: string; verifier: string; options: { path: string; secure: boolean; sameSite: 'lax'; httpOnly: true } };
  /** The provider's authorization URL for this request's organization, with a fresh state, PKCE challenge and nonce. */
  authorizationUrl(req: FastifyRequest, reply: FastifyReply, provider: Provider): Promise<string>;
}

/** How long a started sign-in may take at the provider. */
const LOGIN_TTL_MS = 10 * 60_000;
/** How long the post-oauth-login page has to exchange its ticket. */
const TICKET_TTL_MS = 60_000;
/** Used states are kept this long, so a replay is told it is one. */
const USED_STATE_KEEP_MS = 86_400_000;
const CALLBACK_PATH = '/implicit/callback';
/** A failed provider is discovered again at most this often (when the login page asks which providers there are). */
export const RETRY_GAP_MS = 5_000;
const GOOGLE = 'https://accounts.google.com';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const random = () => randomBytes(24).toString('base64url');

/** A sign-in the provider or the token refused: shown to the person on the post-oauth-login page. */
class Refusal extends Error {
  constructor(
    message: string,
    readonly status = 401,
  ) {
    super(message);
  }
}

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  token_endpoint_auth_methods_supported?: string[];
}

async function discover(issuer: string): Promise<Discovery> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000), headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  const doc = (await res.json()) as Partial<Discovery>;
  for (const key of ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
    if (typeof doc[key] !== 'string') throw new Error(`${url} has no ${key}`);
  }
  // OpenID Connect Discovery §4.3: the document must name the issuer it was fetched for.
  if (doc.issuer!.replace(/\/+$/, '') !== issuer.replace(/\/+$/, '')) throw new Error(`${url} names issuer ${doc.issuer}, not ${issuer}`);
  return doc as Discovery;
}

/** Which providers the configuration names; a client id without its secret (or issuer) stops the start. */
export function configuredProviders(config: Config) {
  const out: { id: ProviderId; name: string; issuer: string; clientId: string; clientSecret: string }[] = [];
  const { GOOGLE_CLIENT_ID: gId, GOOGLE_CLIENT_SECRET: gSecret, OIDC_ISSUER: issuer, OIDC_CLIENT_ID: oId, OIDC_CLIENT_SECRET: oSecret } = config;
  if (!gId !== !gSecret) throw new Error('Invalid configuration: GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are set together or not at all');
  if (gId && gSecret) out.push({ id: 'google', name: 'Google', issuer: config.GOOGLE_ISSUER, clientId: gId, clientSecret: gSecret });
  if ((issuer || oId || oSecret) && !(issuer && oId && oSecret))
    throw new Error('Invalid configuration: OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set together or not at all');
  if (issuer && oId && oSecret) out.push({ id: 'oidc', name: config.OIDC_NAME, issuer, clientId: oId, clientSecret: oSecret });
  return out;
}

/**
 * At start (root scope): the cookie plugin, then each configured provider's discovery, @fastify/oauth2
 * instance and key set. A provider that cannot be reached is logged and left out (the rest of Firewatch
 * starts; its button is not shown), rather than stopping the server over another company's outage.
 */
export async function setupOidc(app: FastifyInstance, secret: string): Promise<OidcProviders> {
  const { config } = app;
  const https = config.PUBLIC_URL.startsWith('https:');
  // __Host- cookies (secure, host-only, Path=/) cannot be planted by a sibling subdomain: no login CSRF that way.
  const prefix = https ? '__Host-' : '';
  const nonces = new WeakMap<FastifyRequest, string>();
  const registry: OidcProviders = {
    ready: new Map(),
    failed: new Map(),
    cookies: { state: `${prefix}fw-oidc-state`, verifier: `${prefix}fw-oidc-verifier`, options: { path: '/', secure: https, sameSite: 'lax', httpOnly: true } },
    retry: async () => {},
    async authorizationUrl(req, reply, provider) {
      const uri = new URL(await provider.oauth2.generateAuthorizationUri(req, reply));
      uri.searchParams.set('nonce', nonces.get(req)!);
      return uri.href;
    },
  };
  const wanted = configuredProviders(config);
  // The callback exists either way, so a sign-in started before a restart without providers is told what happened.
  registerCallback(app, registry);
  if (!wanted.length) return registry;
  // Only with providers configured: @fastify/oauth2 costs about a sixth of a second of CPU to load.
  const { default: fastifyOauth2 } = await import('@fastify/oauth2');
  await app.register(fastifyCookie, { secret: createHmac('sha256', secret).update('oidc-cookies').digest('base64url') });
  const callbackUri = `${config.PUBLIC_URL.replace(/\/+$/, '')}${CALLBACK_PATH}`;

  // Each provider's @fastify/oauth2 lives on a small Fastify instance of its own (never listening): a
  // plugin cannot be registered on the app once it has started, and a provider may first answer later.
  // Its namespace works on the app's requests and replies, whose cookie plugin has the same secret.
  const hosts: FastifyInstance[] = [];
  app.addHook('onClose', async () => void (await Promise.all(hosts.map((h) => h.close()))));
  const connect = async (p: (typeof wanted)[number]) => {
    const doc = await discover(p.issuer);
    const authorize = new URL(doc.authorization_endpoint);
    const token = new URL(doc.token_endpoint);
    const name = `oidc_${p.id}`;
    const host = Fastify({ logger: false });
    hosts.push(host);
    await host.register(fastifyOauth2, {
      name,
      scope: ['openid', 'email', 'profile'],
      credentials: {
        client: { id: p.clientId, secret: p.clientSecret },
        auth: { authorizeHost: authorize.origin, authorizePath: authorize.pathname, tokenHost: token.origin, tokenPath: token.pathname },
        // client_secret_post where the provider does not offer client_secret_basic (simple-oauth2's default).
        options: { authorizationMethod: doc.token_endpoint_auth_methods_supported?.includes('client_secret_basic') === false ? 'body' : 'header' },
      },
      callbackUri,
      pkce: 'S256',
      redirectStateCookieName: registry.cookies.state,
      verifierCookieName: registry.cookies.verifier,
      cookie: { ...registry.cookies.options, signed: true, maxAge: LOGIN_TTL_MS / 1000 },
      // The state is a row too: it holds the nonce and the organization, and is used once.
      async generateStateFunction(req: FastifyRequest) {
        const state = random();
        const nonce = random();
        nonces.set(req, nonce);
        await app.db.delete(oidcLogins).where(lt(oidcLogins.created_at, new Date(Date.now() - USED_STATE_KEEP_MS)));
        await app.db
          .insert(oidcLogins)
          .values({ state_hash: sha256(state), organization_id: req.org.id, provider: p.id, nonce, expires_at: new Date(Date.now() + LOGIN_TTL_MS) });
        return state;
      },
      // Checked in the callback (checkLogin below) before this is reached.
      async checkStateFunction() {
        return true;
      },
    } as never);
    await host.ready();
    const oauth2 = (host as unknown as Record<string, OAuth2Namespace>)[name]!;
    const keys = createRemoteJWKSet(new URL(doc.jwks_uri), { timeoutDuration: 10_000, cooldownDuration: 30_000, cacheMaxAge: 3_600_000 });
    registry.ready.set(p.id, { id: p.id, name: p.name, issuer: doc.issuer, clientId: p.clientId, oauth2, keys });
    registry.failed.delete(p.id);
  };
  const attempts = new Map<ProviderId, { at: number; running: Promise<void> | null }>();
  const attempt = (p: (typeof wanted)[number]) => {
    const running = connect(p)
      .then(() => app.log.info(`sign-in with ${p.name}: discovered at ${p.issuer}`))
      .catch((err: unknown) => {
        app.log.error(
          { err },
          `sign-in with ${p.name}: discovery at ${p.issuer} failed; tried again when the login page next asks (at most every ${RETRY_GAP_MS / 1000} s)`,
        );
        registry.failed.set(p.id, (err as Error).message);
      })
      .finally(() => attempts.set(p.id, { at: Date.now(), running: null }));
    attempts.set(p.id, { at: Date.now(), running });
    return running;
  };
  registry.retry = async (waitMs) => {
    const running: Promise<void>[] = [];
    for (const p of wanted) {
      if (!registry.failed.has(p.id)) continue;
      const last = attempts.get(p.id);
      if (last?.running) running.push(last.running);
      else if (!last || Date.now() - last.at >= RETRY_GAP_MS) running.push(attempt(p));
    }
    if (!running.length) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(running), new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  };
  for (const p of wanted) await attempt(p);
  return registry;
}

/** Verifies the ID token; its claims, or a Refusal saying what is wrong. */
export async function verifyIdToken(
  provider: Provider,
  idToken: string,
  nonce: string,
  ssoDomain: string | null,
  orgSlug: string,
): Promise<JWTPayload & { email: string }> {
  let payload: JWTPayload;
  try {
    // Google documents both forms of its issuer in ID tokens.
    const issuer = provider.issuer === GOOGLE ? [GOOGLE, 'accounts.google.com'] : provider.issuer;
    ({ payload } = await jwtVerify(idToken, provider.keys, { issuer, audience: provider.clientId, requiredClaims: ['exp', 'iat', 'sub'], clockTolerance: 30 }));
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw new Refusal('The sign-in token has expired. Please sign in again.');
    if (err instanceof joseErrors.JWTClaimValidationFailed) {
      if (err.claim === 'aud') throw new Refusal(`The sign-in token was issued to another application, not to this Firewatch (audience ${provider.clientId}).`);
      if (err.claim === 'iss') throw new Refusal(`The sign-in token was not issued by ${provider.issuer}.`);
      throw new Refusal(`The sign-in token is not valid (${err.claim}: ${err.reason}). Please sign in again.`);
    }
    if (err instanceof joseErrors.JOSEError) throw new Refusal(`The sign-in token's signature could not be verified with ${provider.name}'s keys.`);
    throw err;
  }
  // With several audiences the token must have been issued to us (OpenID Connect Core §3.1.3.7).
  if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== provider.clientId)
    throw new Refusal('The sign-in token was issued to another application, not to this Firewatch (azp).');
  if (payload.nonce !== nonce) throw new Refusal('The sign-in token does not belong to this sign-in (its nonce does not match). Please sign in again.');
  if (typeof payload.email !== 'string' || !payload.email.includes('@'))
    throw new Refusal(`${provider.name} did not share your e-mail address, which Firewatch needs to sign you in.`);
  const email = normalizeEmail(payload.email);
  // Microsoft Entra ID sends no email_verified (its `email` is whatever the account's owner typed): without
  // the claim the address is not taken as proven, and the person is told why (README, "Signing in").
  if (payload.email_verified === undefined)
    throw new Refusal(
      `${provider.name} does not say whether your e-mail address ${email} is verified, so Firewatch cannot sign you in with it. Sign in with an e-mail code instead.`,
      403,
    );
  // Some providers send the flag as a string.
  if (payload.email_verified !== true && payload.email_verified !== 'true')
    throw new Refusal(`Your e-mail address ${email} is not verified at ${provider.name}. Verify it there, then sign in again.`, 403);
  if (ssoDomain) {
    // Google names a Workspace account's domain in `hd` (a gmail.com account has none); other providers by the e-mail's domain.
    const domain = (typeof payload.hd === 'string' ? payload.hd : provider.id === 'google' ? '' : email.split('@')[1]!).toLowerCase();
    if (domain !== ssoDomain.toLowerCase()) throw new Refusal(`Organization '${orgSlug}' accepts sign-in only with ${ssoDomain} accounts.`, 403);
  }
  return { ...payload, email };
}

/** GET /implicit/callback: where the provider sends the browser back (the redirect URI registered with it). */
function registerCallback(app: FastifyInstance, registry: OidcProviders) {
  const query = z.object({ state: z.string().max(200).optional(), code: z.string().max(4000).optional(), error: z.string().max(200).optional() });
  app.withTypeProvider<ZodTypeProvider>().get(CALLBACK_PATH, { schema: { hide: true, querystring: query } }, async (req, reply) => {
    const { state, code, error } = req.query;
    if (!state) return reply.redirect('/');
    // Only the browser that started this sign-in (its signed state cookie, naming this state) gets an
    // outcome page; any other request is refused here, before a ticket or anything else is written.
    const raw = (req.cookies as Record<string, string | undefined> | undefined)?.[registry.cookies.state];
    const cookie = raw ? req.unsignCookie(raw) : undefined;
    if (!cookie?.valid || cookie.value !== state)
      throw httpError(
        400,
        'No sign-in is in progress in this browser for this link: it was started in another browser, or its cookie expired. Please sign in again from this browser.',
        'no_sign_in',
        ['query', 'state'],
      );
    const [login] = await app.db
      .select()
      .from(oidcLogins)
      .where(eq(oidcLogins.state_hash, sha256(state)));
    const [org] = login
      ? await app.db
          .select({ id: organizations.id, slug: organizations.slug, sso_domain: organizations.sso_domain })
          .from(organizations)
          .where(eq(organizations.id, login.organization_id))
      : [];
    const target =
      org ??
      (
        await app.db
          .select({ id: organizations.id, slug: organizations.slug, sso_domain: organizations.sso_domain })
          .from(organizations)
          .where(eq(organizations.slug, 'default'))
      )[0]!;
    let outcome: { userId: number } | Refusal;
    try {
      if (!login || !org) throw new Refusal('This sign-in was not started here, or it has expired. Please sign in again.', 400);
      const provider = registry.ready.get(login.provider);
      if (!provider) throw new Refusal('This sign-in provider is no longer configured.', 400);
      // The state (this browser's, checked above) must be unused and fresh; using it is one UPDATE, so it is used once.
      const used = await app.db
        .update(oidcLogins)
        .set({ used_at: new Date() })
        .where(and(eq(oidcLogins.state_hash, login.state_hash), isNull(oidcLogins.used_at), gt(oidcLogins.expires_at, new Date())))
        .returning({ nonce: oidcLogins.nonce });
      if (!used.length)
        throw new Refusal(
          login.used_at
            ? 'This sign-in was already completed; its link cannot be used again. Please sign in again.'
            : 'This sign-in took too long and has expired. Please sign in again.',
          400,
        );
      if (error || !code)
        throw new Refusal(`${provider.name} did not complete the sign-in (${(error ?? 'no code').replace(/[^\w.-]/g, '')}). Please try again.`);
      let idToken: string | undefined;
      try {
        // Sends the code with the PKCE verifier from its cookie, and clears both cookies.
        idToken = (await provider.oauth2.getAccessTokenFromAuthorizationCodeFlow(req, reply)).token.id_token;
      } catch (err) {
        req.log.warn({ err }, `${provider.name} refused the authorization code`);
        throw new Refusal(`${provider.name} refused to complete the sign-in. Please sign in again.`);
      }
      if (!idToken) throw new Refusal(`${provider.name} sent no ID token. Please sign in again.`);
      const claims = await verifyIdToken(provider, idToken, used[0]!.nonce, org.sso_domain, org.slug);
      const user = await app.db.transaction((tx) => admitVerifiedEmail(tx, org, claims.email));
      outcome = { userId: user.id };
    } catch (err) {
      if (err instanceof Refusal) outcome = err;
      else if (err instanceof HttpError && err.statusCode < 500) outcome = new Refusal(err.message, err.statusCode);
      else throw err;
    }
    if (outcome instanceof Refusal) req.log.info({ reason: outcome.message }, 'provider sign-in refused');
    // The state and verifier are spent whatever the outcome (a successful exchange has cleared them already).
    if (registry.ready.size) for (const name of [registry.cookies.state, registry.cookies.verifier]) reply.clearCookie(name, registry.cookies.options);
    const ticket = random();
    await app.db.delete(oidcTickets).where(lt(oidcTickets.expires_at, new Date()));
    await app.db.insert(oidcTickets).values({
      ticket_hash: sha256(ticket),
      organization_id: target.id,
      user_id: outcome instanceof Refusal ? null : outcome.userId,
      error: outcome instanceof Refusal ? outcome.message : null,
      status: outcome instanceof Refusal ? outcome.status : null,
      expires_at: new Date(Date.now() + TICKET_TTL_MS),
    });
    // A fragment: the ticket reaches the page's script, not request logs or Referer headers.
    return reply.redirect(`/${target.slug}/auth/post-oauth-login#token=${ticket}`);
  });
}

/** The organization's routes: which providers there are, starting a sign-in, and exchanging its outcome. */
export function registerOidcRoutes(scope: FastifyInstance, registry: OidcProviders) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const publicRoute = { access: 'public' as const };
  const { db, config } = scope;

  app.get(
    '/auth/providers',
    {
      config: publicRoute,
      schema: {
        tags: ['Auth'],
        summary: 'The sign-in providers this server offers (for the login page)',
        ...answers(200, objectOf({ providers: arrayOf(objectOf({ id: str, name: str, url: str })) })),
      },
    },
    async (req) => {
      // A provider that was down is tried again here, so its button comes back once it answers.
      if (registry.failed.size) await registry.retry(3_000);
      return { providers: [...registry.ready.values()].map((p) => ({ id: p.id, name: p.name, url: `/api/v1/${req.org.slug}/auth/${p.id}` })) };
    },
  );

  for (const id of ['google', 'oidc'] as const) {
    app.get(
      `/auth/${id}`,
      {
        config: publicRoute,
        schema: {
          tags: ['Auth'],
          summary: id === 'google' ? 'Sign in with Google (browser redirect)' : 'Sign in with the configured OpenID Connect provider (browser redirect)',
          ...answers(302, null),
        },
      },
      async (req, reply) => {
        if (registry.failed.has(id)) await registry.retry(3_000);
        const provider = registry.ready.get(id);
        const label = id === 'google' ? 'Google' : config.OIDC_NAME;
        if (registry.failed.has(id))
          throw httpError(503, `Sign-in with ${label} is unavailable: its provider cannot be reached. Please try again in a minute.`, 'provider_unavailable');
        if (!provider) throw httpError(404, `Sign-in with ${label} is not configured on this server.`, 'not_configured');
        // Each start writes a row: limited like password and code sign-in.
        await hitRateLimit(db, [[`oidc:ip:${req.ip}`, config.LOGIN_RATE_LIMIT * 5]], config.LOGIN_RATE_WINDOW_SECONDS);
        return reply.redirect(await registry.authorizationUrl(req, reply, provider));
      },
    );
  }

  app.post(
    '/auth/postoauthlogin',
    {
      config: publicRoute,
      schema: {
        tags: ['Auth'],
        summary: "Sign in with a provider sign-in's ticket (from the post-oauth-login page)",
        body: z.strictObject({ token: z.string().trim().min(1).max(200) }),
        ...answers(200, signedInSchema),
      },
    },
    async (req) => {
      const org = req.org;
      const [ticket] = await db
        .delete(oidcTickets)
        .where(and(eq(oidcTickets.ticket_hash, sha256(req.body.token)), eq(oidcTickets.organization_id, org.id), gt(oidcTickets.expires_at, new Date())))
        .returning();
      if (!ticket) throw httpError(400, 'This sign-in link is invalid, used or expired. Please sign in again.', 'invalid_ticket', ['body', 'token']);
      if (ticket.error || ticket.user_id === null) throw httpError(ticket.status ?? 401, ticket.error ?? 'Sign-in was refused.', 'sign_in_refused');
      const [user] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, ticket.user_id));
      if (!user) throw httpError(400, 'This sign-in link is invalid, used or expired. Please sign in again.', 'invalid_ticket', ['body', 'token']);
      return signedIn(scope, req, org, user);
    },
  );
}
