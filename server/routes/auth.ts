import { and, desc, eq, gt, lt, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { loginCodes, memberships, organizations, users } from '../db/schema/index.js';
import { forbidden, httpError, unauthorized } from '../errors.js';
import { email } from '../resources/fields.js';
import { CODE_MAX_ATTEMPTS, CODE_TTL_MS, hashCode, newCode, normalizeEmail, organizationProjects, sameHash, verifyPassword } from '../services/auth.js';
import type { Mailer } from '../services/mail.js';
import { hitRateLimit } from '../services/rate-limit.js';

export const INVALID_CODE = 'Invalid or expired verification code. Please try again.';

/** Sign-in: password, or an e-mailed six-digit code; `me` for the signed-in caller. */
export function registerAuthRoutes(scope: FastifyInstance, deps: { mailer: Mailer; secret: string }) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { db, config } = scope;
  const publicRoute = { access: 'public' as const };

  // An address gets five times an e-mail's allowance: many people may sign in from one office NAT.
  const limit = (req: FastifyRequest, address: string) =>
    hitRateLimit(db, [[`auth:email:${address}`, config.LOGIN_RATE_LIMIT], [`auth:ip:${req.ip}`, config.LOGIN_RATE_LIMIT * 5]], config.LOGIN_RATE_WINDOW_SECONDS);

  /** The response of every successful sign-in. */
  async function session(orgId: number, slug: string, user: { id: number; email: string }) {
    const token = scope.jwt.sign({ sub: String(user.id), email: user.email }, { expiresIn: config.JWT_EXPIRES_IN });
    const projects = await organizationProjects(db, orgId);
    return { token, projects, organization: { slug }, user: { id: user.id, email: user.email } };
  }

  app.post(
    '/auth/login',
    { config: publicRoute, schema: { tags: ['Auth'], summary: 'Sign in with a password, or send a sign-in code', body: z.strictObject({ email: email(), password: z.string().min(1).max(200).optional() }) } },
    async (req) => {
      const address = normalizeEmail(req.body.email);
      await limit(req, address);
      const org = req.org;
      if (req.body.password !== undefined) {
        const [row] = await db
          .select({ id: users.id, email: users.email, hash: users.password_hash, role: memberships.role })
          .from(users)
          .leftJoin(memberships, and(eq(memberships.user_id, users.id), eq(memberships.organization_id, org.id)))
          .where(eq(users.email, address));
        if (!row?.hash || !(await verifyPassword(row.hash, req.body.password))) throw unauthorized('Invalid e-mail or password.', 'invalid_credentials');
        if (!row.role) throw forbidden(`You are not a member of organization '${org.slug}'.`);
        return session(org.id, org.slug, row);
      }
      const code = newCode();
      await db.delete(loginCodes).where(and(eq(loginCodes.organization_id, org.id), eq(loginCodes.email, address)));
      await db.insert(loginCodes).values({ organization_id: org.id, email: address, code_hash: hashCode(deps.secret, address, code), expires_at: new Date(Date.now() + CODE_TTL_MS) });
      try {
        await deps.mailer({ to: address, subject: `Your Firewatch sign-in code: ${code}`, text: `Your sign-in code for ${org.slug} is ${code}. It expires in 10 minutes.` });
      } catch (err) {
        req.log.error({ err }, 'sending the sign-in code failed');
        throw httpError(502, 'Failed to send verification code. Please try again.', 'mail_failed');
      }
      return { message: 'Verification code sent to your email.' };
    },
  );

  app.post(
    '/auth/verify',
    { config: publicRoute, schema: { tags: ['Auth'], summary: 'Sign in with an e-mailed code', body: z.strictObject({ email: email(), code: z.string().trim().max(12) }) } },
    async (req) => {
      const address = normalizeEmail(req.body.email);
      await limit(req, address);
      const org = req.org;
      const [pending] = await db
        .select()
        .from(loginCodes)
        .where(and(eq(loginCodes.organization_id, org.id), eq(loginCodes.email, address), gt(loginCodes.expires_at, new Date()), lt(loginCodes.attempts, CODE_MAX_ATTEMPTS)))
        .orderBy(desc(loginCodes.created_at))
        .limit(1);
      if (!pending || !sameHash(pending.code_hash, hashCode(deps.secret, address, req.body.code))) {
        if (pending) await db.update(loginCodes).set({ attempts: sql`${loginCodes.attempts} + 1` }).where(eq(loginCodes.id, pending.id));
        throw httpError(400, INVALID_CODE, 'invalid_code', ['body', 'code']);
      }
      const user = await db.transaction(async (tx) => {
        await tx.delete(loginCodes).where(eq(loginCodes.id, pending.id));
        const [found] = await tx.select({ id: users.id, email: users.email }).from(users).where(eq(users.email, address));
        const [member] = found ? await tx.select().from(memberships).where(and(eq(memberships.user_id, found.id), eq(memberships.organization_id, org.id))) : [];
        if (member) return found!;
        const [settings] = await tx.select({ allow_signup: organizations.allow_signup }).from(organizations).where(eq(organizations.id, org.id));
        if (!settings?.allow_signup) throw forbidden(`Sign-up is closed for organization '${org.slug}'. Ask an administrator to add you.`);
        const person = found ?? (await tx.insert(users).values({ email: address }).returning({ id: users.id, email: users.email }))[0]!;
        await tx.insert(memberships).values({ organization_id: org.id, user_id: person.id, role: 'Member' });
        return person;
      });
      return session(org.id, org.slug, user);
    },
  );

  app.get('/auth/me', { schema: { tags: ['Auth'], summary: 'The signed-in user' } }, async (req) => {
    const { caller } = req;
    if (caller.userId === null) return { id: null, email: null, role: caller.role, organization_slug: caller.orgSlug, api_key_id: caller.apiKeyId, projects: await organizationProjects(db, caller.orgId) };
    const [user] = await db.select({ id: users.id, email: users.email, display_name: users.display_name }).from(users).where(eq(users.id, caller.userId));
    const [org] = await db.select({ plan: organizations.plan }).from(organizations).where(eq(organizations.id, caller.orgId));
    return {
      ...user,
      role: caller.role,
      organization_slug: caller.orgSlug,
      projects: await organizationProjects(db, caller.orgId),
      is_pro: org?.plan === 'pro' || org?.plan === 'team_pro',
      is_pro_team: org?.plan === 'team_pro',
      subscription_status: org?.plan === 'free' ? 'trialing' : 'active',
      subscription_end_date: null,
    };
  });
}
