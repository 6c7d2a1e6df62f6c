import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ANONYMOUS_KEY_PREFIX } from '../ai/anonymous.js';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { memberships, organizations, type Role } from '../db/schema/index.js';
import { asSystem, withTenant, type TenantOptions } from '../db/tenant.js';
import { httpError, unauthorized } from '../errors.js';
import type { RequestContext } from '../resources/define.js';
import { API_KEY_PREFIX, findApiKey } from '../services/auth.js';

export interface Caller {
  orgId: number;
  orgSlug: string;
  userId: number | null;
  apiKeyId: number | null;
  role: Role;
}

declare module 'fastify' {
  interface FastifyRequest {
    org: { id: number; slug: string };
    caller: Caller;
  }
  interface FastifyContextConfig {
    /** `public`: no sign-in needed (the organization is still resolved). */
    access?: 'public';
  }
  interface FastifyInstance {
    db: Db;
    config: Config;
  }
}

const orgNotFound = (slug: string) => httpError(404, `Organization '${slug}' could not be found.`, 'not_found', ['path', 'organization']);

/** Resolves `/{organization}` and the caller (JWT or API key) for every route registered in `scope`. */
export function registerTenancy(scope: FastifyInstance) {
  scope.decorateRequest('org', null as never);
  scope.decorateRequest('caller', null as never);
  // Every signed-in request runs this: a named statement (one round trip, plan kept) on postgres.js.
  const memberOf = scope.db
    .select({ id: organizations.id, slug: organizations.slug, role: memberships.role })
    .from(organizations)
    .leftJoin(memberships, and(eq(memberships.organization_id, organizations.id), eq(memberships.user_id, sql.placeholder('userId'))))
    .where(eq(organizations.slug, sql.placeholder('slug')))
    .prepare('tenancy_member_of');
  scope.addHook('onRequest', async (req) => {
    const slug = (req.params as { organization: string }).organization;
    const given = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
    // A visitor's anonymous key opens only the public routes that take it; elsewhere it is no sign-in.
    const bearer = given?.startsWith(ANONYMOUS_KEY_PREFIX) ? undefined : given;
    const isPublic = req.routeOptions.config.access === 'public';

    if (!bearer || bearer.startsWith(API_KEY_PREFIX)) {
      const [org] = await scope.db.select({ id: organizations.id, slug: organizations.slug }).from(organizations).where(eq(organizations.slug, slug));
      if (!org) throw orgNotFound(slug);
      req.org = org;
      if (isPublic) return;
      if (!bearer) throw unauthorized('No authentication or temporary session found', 'not_authenticated');
      const key = await findApiKey(scope.db, org.id, bearer);
      if (!key) throw unauthorized('Invalid API key.');
      req.caller = { orgId: org.id, orgSlug: org.slug, userId: null, apiKeyId: key.id, role: 'Member' };
      return;
    }

    let userId: number | null;
    try {
      userId = Number(scope.jwt.verify<{ sub: string }>(bearer).sub);
    } catch (err) {
      if (!isPublic && (err as { code?: string }).code === 'FAST_JWT_EXPIRED') throw unauthorized('Your credentials have expired. Please sign in again.', 'token_expired');
      if (!isPublic) throw unauthorized();
      userId = null; // a public route ignores a bad token: the caller is simply anonymous
    }
    const [row] = await memberOf.execute({ slug, userId });
    if (!row) throw orgNotFound(slug);
    req.org = { id: row.id, slug: row.slug };
    if (row.role && userId !== null) req.caller = { orgId: row.id, orgSlug: row.slug, userId, apiKeyId: null, role: row.role };
    else if (!isPublic) throw httpError(403, `You are not a member of organization '${slug}'.`, 'forbidden');
  });
}

/** Runs `fn` in the caller's organization scope (one transaction, row level security on). */
export function inTenant<T>(req: FastifyRequest, fn: (ctx: RequestContext) => Promise<T>, opts?: TenantOptions): Promise<T> {
  return runInTenant(req.server.db, req.server.config, req.caller, fn, opts);
}

/** The same outside a request (background jobs): `caller` says whose rights the work runs with. */
export function runInTenant<T>(db: Db, config: Config, caller: Omit<Caller, 'apiKeyId'>, fn: (ctx: RequestContext) => Promise<T>, opts?: TenantOptions): Promise<T> {
  return withTenant(
    db,
    { orgId: caller.orgId, userId: caller.userId },
    (tx) => fn({ ...caller, system: db, asSystem: (f) => asSystem(tx, f), config, tx }),
    opts,
  );
}
