import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { LRUCache } from 'lru-cache';
import { ANONYMOUS_KEY_PREFIX, API_KEY_PREFIX } from './context.js';
import type { Config } from './config.js';
import type { Database, Db } from './db/client.js';
import { memberships, organizations, sessions, type Role } from './db/tables.js';
import { asSystem, MembershipChanged, withTenant, type TenantOptions } from './db/tenant.js';
import { httpError, unauthorized } from './errors.js';
import type { MemberActor, RequestContext } from './context.js';
import { findApiKey, hashApiKey } from './api-keys.js';
import { apiKeys } from './db/projects.js';
import { onForgetSessions } from './sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    org: { id: number; slug: string };
    caller: MemberActor;
  }
  interface FastifyContextConfig {
    /** `public`: no sign-in needed (the organization is still resolved). */
    access?: 'public';
  }
  interface FastifyInstance {
    db: Db;
    /** The database behind `db`, for what needs more than queries (LISTEN). */
    database: Database;
    config: Config;
    /**
     * A user's membership in an organization, by slug, and whether their session `sid` is still open:
     * from a short-lived cache unless `fresh` (see registerTenancy).
     */
    resolveMember: (slug: string, userId: number | null, fresh?: boolean, sid?: string | null) => Promise<Member | undefined>;
  }
}

/** How many of inTenant's transactions each request has open (the onSend hook refuses replies meanwhile). */
const openTransactions = new WeakMap<FastifyRequest, number>();

interface Member {
  id: number;
  slug: string;
  role: Role | null;
  /** The session's id if it is open (not signed out, not expired). */
  session: string | null;
}

/**
 * How long a signed-in user's membership is reused without a lookup. Every tenant transaction checks
 * the membership with the role it was resolved with (withTenant's `role`), so data access always sees
 * the current one. The few routes that never open a tenant transaction (/auth/me, /projects/user,
 * /meta/resources) see a change made in this process at once (membershipChanged), and one made by
 * another process after at most this long.
 */
const MEMBERSHIP_TTL_MS = 2_000;
const MEMBERSHIP_CACHE_MAX = 10_000;

/** When a membership last changed in this process, by `<user id or *>\0<organization id>`; older changes no cached copy predates. */
const membershipChanges = new LRUCache<string, number>({ max: MEMBERSHIP_CACHE_MAX, ttl: 2 * MEMBERSHIP_TTL_MS });

/**
 * Call when a membership changes (role, removal; `userId` null: the whole organization, e.g. deleted):
 * cached copies made before are no longer used, and none is kept for the next TTL, since a lookup
 * made meanwhile may have run before the change committed.
 */
export function membershipChanged(orgId: number, userId: number | null) {
  membershipChanges.set(`${userId ?? '*'}\u0000${orgId}`, Date.now());
}

const changedSince = (userId: number | null, orgId: number, at: number) =>
  (membershipChanges.get(`${userId}\u0000${orgId}`) ?? -Infinity) >= at || (membershipChanges.get(`*\u0000${orgId}`) ?? -Infinity) >= at;

/** Three base64url parts: what `scope.jwt.verify` could accept at all. */
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/;

const orgNotFound = (slug: string) => httpError(404, `Organization '${slug}' could not be found.`, 'not_found', ['path', 'organization']);

/** Resolves `/{organization}` and the caller (JWT or API key) for every route of the scope it is registered in. */
export const tenancyPlugin = fp(async (scope) => registerTenancy(scope), { name: 'firewatch-tenancy', fastify: '5.x' });

function registerTenancy(scope: FastifyInstance) {
  scope.decorateRequest('org', null as never);
  scope.decorateRequest('caller', null as never);
  // Every signed-in request runs this: a named statement (one round trip, plan kept) on postgres.js.
  const memberOf = scope.db
    .select({ id: organizations.id, slug: organizations.slug, role: memberships.role, session: sessions.id })
    .from(organizations)
    .leftJoin(memberships, and(eq(memberships.organization_id, organizations.id), eq(memberships.user_id, sql.placeholder('userId'))))
    .leftJoin(sessions, and(eq(sessions.id, sql.placeholder('sid')), eq(sessions.user_id, sql.placeholder('userId')), sql`${sessions.expires_at} > now()`))
    .where(eq(organizations.slug, sql.placeholder('slug')))
    .prepare('tenancy_member_of');
  // Per app instance (tests run many apps on different databases in one process), keyed by session.
  const cache = new LRUCache<string, { member: Member; at: number; sid: string; userId: number }>({ max: MEMBERSHIP_CACHE_MAX });
  // A public route's organization by slug (ingestion: one lookup per delivery otherwise). A stale entry
  // for MEMBERSHIP_TTL_MS only names an organization: what the route reads is still checked in it.
  const publicOrgs = new LRUCache<string, { id: number; slug: string }>({ max: MEMBERSHIP_CACHE_MAX, ttl: MEMBERSHIP_TTL_MS });
  const orgBySlug = async (slug: string) => {
    const [org] = await scope.db.select({ id: organizations.id, slug: organizations.slug }).from(organizations).where(eq(organizations.slug, slug));
    return org;
  };
  const stopForgetting = onForgetSessions((matches) => {
    for (const [key, hit] of [...cache.entries()]) if (matches(hit.sid, hit.userId)) cache.delete(key);
  });
  scope.addHook('onClose', async () => stopForgetting());
  scope.decorate('resolveMember', async (slug: string, userId: number | null, fresh = false, sid: string | null = null) => {
    const key = `${sid}\u0000${userId}\u0000${slug}`;
    const hit = cache.get(key);
    if (!fresh && hit && Date.now() - hit.at < MEMBERSHIP_TTL_MS && !changedSince(userId, hit.member.id, hit.at)) return hit.member;
    const started = Date.now();
    const [member] = await memberOf.execute({ slug, userId, sid });
    cache.delete(key);
    // Only members with an open session are kept: a refusal is never cached, so a new member gets in at once.
    if (member?.role && member.session && userId !== null && sid !== null && !changedSince(userId, member.id, started - MEMBERSHIP_TTL_MS)) {
      cache.set(key, { member, at: Date.now(), sid, userId });
    }
    return member;
  });
  scope.addHook('onSend', async (req) => {
    // A reply sent from inside a write transaction reaches the client before COMMIT (a read right after
    // it may not see the write, and a failed COMMIT would go unnoticed): refused loudly, never a race.
    if (openTransactions.get(req)) throw new Error('A reply was sent before its tenant transaction committed; send it after inTenant returns.');
  });
  scope.addHook('onRequest', async (req) => {
    const params = req.params as { organization: string };
    const given = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
    // A visitor's anonymous key opens only the public routes that take it; elsewhere it is no sign-in.
    const bearer = given?.startsWith(ANONYMOUS_KEY_PREFIX) ? undefined : given;
    // `/api/v1/organizations` names no organization (rewriteCallersOrganization): the caller's own stands in.
    if (params.organization === CALLERS_ORGANIZATION) params.organization = await callersOrganization(scope, bearer);
    const slug = params.organization;
    const isPublic = req.routeOptions.config.access === 'public';

    // A public route's bearer that is not a JWT (an ingest key) cannot sign anyone in: no verification, which would only throw.
    if (isPublic && bearer && !JWT_SHAPE.test(bearer)) {
      let org = publicOrgs.get(slug);
      if (!org) {
        org = await orgBySlug(slug);
        if (!org) throw orgNotFound(slug);
        publicOrgs.set(slug, org);
      }
      req.org = org;
      return;
    }
    if (!bearer || bearer.startsWith(API_KEY_PREFIX)) {
      const org = await orgBySlug(slug);
      if (!org) throw orgNotFound(slug);
      req.org = org;
      if (isPublic) return;
      if (!bearer) throw unauthorized('No authentication or temporary session found', 'not_authenticated');
      const key = await findApiKey(scope.db, org.id, bearer);
      if (!key) throw unauthorized('Invalid API key.');
      req.caller = { kind: 'apikey', orgId: org.id, orgSlug: org.slug, userId: null, apiKeyId: key.id, sessionId: null, role: 'Member' };
      return;
    }

    let userId: number | null;
    let sid: string | null;
    try {
      // The verifier requires `exp` and `sid` (app.ts): a token that never expires or names no session is refused.
      const claims = scope.jwt.verify<{ sub: string; sid: string }>(bearer);
      userId = Number(claims.sub);
      sid = String(claims.sid);
    } catch (err) {
      if (!isPublic && (err as { code?: string }).code === 'FAST_JWT_EXPIRED')
        throw unauthorized('Your credentials have expired. Please refresh the page.', 'token_expired');
      if (!isPublic) throw unauthorized();
      userId = sid = null; // a public route ignores a bad token: the caller is simply anonymous
    }
    const row = await scope.resolveMember(slug, userId, false, sid);
    if (!row) throw orgNotFound(slug);
    req.org = { id: row.id, slug: row.slug };
    if (userId !== null && !row.session) {
      if (!isPublic) throw sessionEnded();
    } else if (row.role && userId !== null)
      req.caller = { kind: 'user', orgId: row.id, orgSlug: row.slug, userId, apiKeyId: null, sessionId: null, role: row.role, sid };
    else if (!isPublic) throw notMember(slug);
  });
}

/** The path segment that stands for "the caller's organization" (see rewriteCallersOrganization). */
const CALLERS_ORGANIZATION = '~';

/**
 * Spec §7 prefixes paths with the organization "unless the path already contains organization":
 * `/api/v1/organizations…` is answered as `/api/v1/{an organization of the caller}/organizations…`
 * (the list is the caller's organizations whichever one the path names). For Fastify's rewriteUrl.
 */
export function rewriteCallersOrganization(url: string): string {
  return /^\/api\/v1\/organizations(\/|\?|$)/.test(url) ? `/api/v1/${CALLERS_ORGANIZATION}${url.slice('/api/v1'.length)}` : url;
}

/** The slug of an organization the bearer belongs to: the API key's own, or the user's (`default` first). */
async function callersOrganization(scope: FastifyInstance, bearer: string | undefined): Promise<string> {
  if (!bearer) throw unauthorized('No authentication or temporary session found', 'not_authenticated');
  if (bearer.startsWith(API_KEY_PREFIX)) {
    const [key] = await scope.db
      .select({ slug: organizations.slug })
      .from(apiKeys)
      .innerJoin(organizations, eq(organizations.id, apiKeys.organization_id))
      .where(eq(apiKeys.key_hash, hashApiKey(bearer)))
      .limit(1);
    if (!key) throw unauthorized('Invalid API key.');
    return key.slug;
  }
  let userId: number;
  try {
    userId = Number(scope.jwt.verify<{ sub: string }>(bearer).sub);
  } catch (err) {
    if ((err as { code?: string }).code === 'FAST_JWT_EXPIRED') throw unauthorized('Your credentials have expired. Please sign in again.', 'token_expired');
    throw unauthorized();
  }
  const [mine] = await scope.db
    .select({ slug: organizations.slug })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organization_id))
    .where(eq(memberships.user_id, userId))
    .orderBy(sql`${organizations.slug} <> 'default'`, organizations.id)
    .limit(1);
  if (!mine) throw httpError(403, 'You are not a member of any organization.', 'forbidden');
  return mine.slug;
}

const sessionEnded = () => unauthorized('Your session has ended. Please sign in again.', 'session_ended');
const notMember = (slug: string) => httpError(403, `You are not a member of organization '${slug}'.`, 'forbidden');

/**
 * Runs `fn` in the caller's organization scope (one transaction, row level security on). A signed-in
 * caller's membership is checked inside that transaction; if it changed since the request was
 * authorized (another role, or none), the caller is resolved afresh and `fn` runs again, or is refused.
 */
export async function inTenant<T>(req: FastifyRequest, fn: (ctx: RequestContext) => Promise<T>, opts?: TenantOptions): Promise<T> {
  const { db, config } = req.server;
  const run = async () => {
    openTransactions.set(req, (openTransactions.get(req) ?? 0) + 1);
    try {
      return await runInTenant(db, config, { ...req.caller, verifyRole: req.caller.userId !== null }, fn, opts);
    } finally {
      openTransactions.set(req, openTransactions.get(req)! - 1);
    }
  };
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof MembershipChanged)) throw err;
  }
  const member = await req.server.resolveMember(req.caller.orgSlug, req.caller.userId, true, req.caller.sid ?? null);
  if (member && !member.session) throw sessionEnded();
  if (!member?.role) throw notMember(req.caller.orgSlug);
  req.caller = { ...req.caller, role: member.role };
  return run();
}

/** The same outside a request (jobs, the socket): `caller` says whose rights the work runs with. */
export function runInTenant<T>(
  db: Db,
  config: Config,
  { verifyRole, ...caller }: MemberActor & { verifyRole?: boolean },
  fn: (ctx: RequestContext) => Promise<T>,
  opts?: TenantOptions,
): Promise<T> {
  return withTenant(
    db,
    { orgId: caller.orgId, userId: caller.userId, role: verifyRole ? caller.role : undefined },
    (tx) => fn({ ...caller, system: db, asSystem: (f) => asSystem(tx, f), config, tx }),
    opts,
  );
}
