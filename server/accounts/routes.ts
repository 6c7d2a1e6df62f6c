import { and, eq, gt, lt, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { loginCodes, memberships, signInAddresses, users } from '../core/db/tables.js';
import { forbidden, httpError, unauthorized } from '../core/errors.js';
import { email } from '../engine/fields.js';
import { CODE_MAX_ATTEMPTS, CODE_TTL_MS, dummyPasswordHash, hashCode, newCode, normalizeEmail, sameHash, verifyPassword } from './service.js';
import type { Mailer } from '../core/mail.js';
import { hitRateLimit } from './rate-limit.js';
import { endSession, issueSocketTicket, SOCKET_TICKET_TTL_MS } from '../core/sessions.js';

import { acceptInvitation } from './invitations.js';
import { admitVerifiedEmail, signedIn, signedInSchema } from './admit.js';

/** How many e-mail allowances (LOGIN_RATE_LIMIT) one e-mail gets over all addresses together. */
const EMAIL_CEILING = 10;
import { subscriptionAnswer, subscriptionSummary } from '../billing/stripe.js';
import { projectResource } from '../projects/resources.js';
import { organizationProjects } from '../projects/service.js';
import { answers, arrayOf, nullableStr, num, objectOf, recordOf, str } from '../engine/answers.js';

const signedInAnswer = answers(200, signedInSchema);
const { plan: _plan, free_trial_end: _trialEnd, cancel_at_period_end: _cancel, ...meSubscription } = subscriptionAnswer;
const meAnswer = answers(200, {
  type: 'object',
  description: 'A signed-in user, with their subscription flags; or an API key or visitor (id and email null, api_key_id)',
  properties: {
    id: { type: 'integer', nullable: true },
    email: nullableStr,
    display_name: nullableStr,
    role: str,
    organization_slug: str,
    api_key_id: { type: 'integer', nullable: true },
    projects: arrayOf(recordOf(projectResource)),
    ...meSubscription,
  },
  required: ['id', 'email', 'role', 'organization_slug', 'projects'],
});

export const INVALID_CODE = 'Invalid or expired verification code. Please try again.';

/** Sign-in: password, or an e-mailed six-digit code; `me` for the signed-in caller. */
export function registerAuthRoutes(scope: FastifyInstance, deps: { mailer: Mailer; secret: string }) {
  const limit = signInLimit(scope);
  // Made now, so the first unknown e-mail does not pay for it.
  void dummyPasswordHash();
  registerSignInRoutes(scope, deps, limit);
  registerCodeRoutes(scope, deps, limit);
  registerSessionRoutes(scope);
  registerInvitationAcceptRoute(scope);
  registerMeRoute(scope);
}

/** Counts a sign-in attempt against its limits; the function it returns takes a successful attempt back. */
type SignInLimit = ReturnType<typeof signInLimit>;

const publicRoute = { access: 'public' as const };

const session = (scope: FastifyInstance, req: FastifyRequest, org: { id: number; slug: string }, user: { id: number; email: string }) =>
  signedIn(scope, req, { id: org.id, slug: org.slug }, user);

function signInLimit(scope: FastifyInstance) {
  const { db, config } = scope;
  // An e-mail's allowance is per address, so someone guessing from elsewhere cannot lock its owner out;
  // an address gets five times that (many people may sign in from one office NAT); and an e-mail has a
  // ceiling of ten allowances over all addresses, against guessing spread over many of them, which does
  // not apply where the e-mail has signed in before.
  return async (req: FastifyRequest, address: string) => {
    const limits: [string, number][] = [
      [`auth:email-ip:${address}:${req.ip}`, config.LOGIN_RATE_LIMIT],
      [`auth:ip:${req.ip}`, config.LOGIN_RATE_LIMIT * 5],
    ];
    const [known] = await db
      .select({ at: signInAddresses.last_at })
      .from(signInAddresses)
      .where(and(eq(signInAddresses.email, address), eq(signInAddresses.address, req.ip)));
    if (!known) limits.push([`auth:email:${address}`, config.LOGIN_RATE_LIMIT * EMAIL_CEILING]);
    const refund = await hitRateLimit(db, limits, config.LOGIN_RATE_WINDOW_SECONDS);
    // Only failures count: a sign-in that succeeds takes its attempt back and clears that e-mail's
    // failures from that address (an Owner signing in a dozen times a quarter-hour is not refused).
    return () => refund([limits[0]![0]]);
  };
}

/** `/auth/login`: a password signs in; without one, a code is e-mailed. */
function registerSignInRoutes(scope: FastifyInstance, deps: { mailer: Mailer; secret: string }, limit: SignInLimit) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { db } = scope;
  app.post(
    '/auth/login',
    {
      config: publicRoute,
      schema: {
        tags: ['Auth'],
        summary: 'Sign in with a password, or send a sign-in code',
        body: z.strictObject({ email: email(), password: z.string().min(1).max(200).optional() }),
        // With a password, signed in; without, `{ message }` once the code is sent.
        ...answers(200, { oneOf: [signedInSchema, objectOf({ message: str })] }),
      },
    },
    async (req) => {
      const address = normalizeEmail(req.body.email);
      const succeeded = await limit(req, address);
      const org = req.org;
      if (req.body.password !== undefined) {
        const [row] = await db
          .select({ id: users.id, email: users.email, hash: users.password_hash, role: memberships.role })
          .from(users)
          .leftJoin(memberships, and(eq(memberships.user_id, users.id), eq(memberships.organization_id, org.id)))
          .where(eq(users.email, address));
        // Unknown e-mails and accounts without a password are checked against a dummy hash, so every answer takes
        // an argon2 verification; and a right password outside this organization gets the wrong password's answer.
        const valid = await verifyPassword(row?.hash ?? (await dummyPasswordHash()), req.body.password);
        if (!valid || !row?.hash || !row.role) throw unauthorized('Invalid e-mail or password.', 'invalid_credentials');
        const answer = await session(scope, req, org, row);
        await succeeded();
        return answer;
      }
      const code = newCode();
      await db.delete(loginCodes).where(and(eq(loginCodes.organization_id, org.id), eq(loginCodes.email, address)));
      await db
        .insert(loginCodes)
        .values({ organization_id: org.id, email: address, code_hash: hashCode(deps.secret, address, code), expires_at: new Date(Date.now() + CODE_TTL_MS) });
      try {
        await deps.mailer({
          to: address,
          subject: `Your Firewatch sign-in code: ${code}`,
          text: `Your sign-in code for ${org.slug} is ${code}. It expires in 10 minutes.`,
        });
      } catch (err) {
        req.log.error({ err }, 'sending the sign-in code failed');
        throw httpError(502, 'Failed to send verification code. Please try again.', 'mail_failed');
      }
      return { message: 'Verification code sent to your email.' };
    },
  );
}

/** `/auth/verify`: the e-mailed code signs in. */
function registerCodeRoutes(scope: FastifyInstance, deps: { secret: string }, limit: SignInLimit) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { db } = scope;
  app.post(
    '/auth/verify',
    {
      config: publicRoute,
      schema: {
        tags: ['Auth'],
        summary: 'Sign in with an e-mailed code',
        body: z.strictObject({ email: email(), code: z.string().trim().max(12) }),
        ...signedInAnswer,
      },
    },
    async (req) => {
      const address = normalizeEmail(req.body.email);
      const succeeded = await limit(req, address);
      const org = req.org;
      const invalid = () => httpError(400, INVALID_CODE, 'invalid_code', ['body', 'code']);
      // Counting the try and reading the code are one statement, so concurrent guesses share the five tries.
      const tried = await db
        .update(loginCodes)
        .set({ attempts: sql`${loginCodes.attempts} + 1` })
        .where(
          and(
            eq(loginCodes.organization_id, org.id),
            eq(loginCodes.email, address),
            gt(loginCodes.expires_at, new Date()),
            lt(loginCodes.attempts, CODE_MAX_ATTEMPTS),
          ),
        )
        .returning({ id: loginCodes.id, code_hash: loginCodes.code_hash });
      const given = hashCode(deps.secret, address, req.body.code);
      const pending = tried.find((c) => sameHash(c.code_hash, given));
      if (!pending) throw invalid();
      const user = await db.transaction(async (tx) => {
        // A code signs in once, even when it arrives several times at once.
        const used = await tx.delete(loginCodes).where(eq(loginCodes.id, pending.id)).returning({ id: loginCodes.id });
        if (!used.length) throw invalid();
        // The code proves the address.
        return admitVerifiedEmail(tx, org, address);
      });
      const answer = await session(scope, req, org, user);
      await succeeded();
      return answer;
    },
  );
}

/** Sign-out and the live socket's ticket, for a session that is signed in. */
function registerSessionRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { db } = scope;
  app.post('/auth/logout', { schema: { tags: ['Auth'], summary: 'Sign out: the session token stops working', ...answers(204, null) } }, async (req, reply) => {
    if (req.caller.sid) await endSession(db, req.caller.sid);
    return reply.status(204).send();
  });

  app.post(
    '/auth/ws-ticket',
    {
      schema: {
        tags: ['Auth'],
        summary: 'A single-use ticket (60 s) that opens the live socket as ?ticket=',
        ...answers(200, objectOf({ ticket: str, expires_in: num })),
      },
    },
    async (req) => {
      const { caller } = req;
      if (caller.userId === null || !caller.sid)
        throw forbidden('Socket tickets are for signed-in users; a visitor opens the socket with their anonymous key.');
      const ticket = await issueSocketTicket(db, { sid: caller.sid, userId: caller.userId, orgId: caller.orgId });
      return { ticket, expires_in: SOCKET_TICKET_TTL_MS / 1000 };
    },
  );
}

function registerInvitationAcceptRoute(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { db } = scope;
  app.post(
    '/auth/invitations/accept',
    {
      config: publicRoute,
      schema: {
        tags: ['Auth'],
        summary: "Accept an invitation with its e-mail's token (signs in)",
        body: z.strictObject({ token: z.string().trim().min(1).max(200) }),
        ...signedInAnswer,
      },
    },
    async (req) => {
      const org = req.org;
      // The token was e-mailed to the invited address, so it proves the address as a sign-in code does.
      const user = await db.transaction((tx) => acceptInvitation(tx, org.id, { token: req.body.token }));
      if (!user) throw httpError(400, 'This invitation is invalid, used or expired. Ask for a new one.', 'invalid_invitation', ['body', 'token']);
      return session(scope, req, org, user);
    },
  );
}

function registerMeRoute(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { db } = scope;
  app.get('/auth/me', { schema: { tags: ['Auth'], summary: 'The signed-in user', ...meAnswer } }, async (req) => {
    const { caller } = req;
    if (caller.userId === null)
      return {
        id: null,
        email: null,
        role: caller.role,
        organization_slug: caller.orgSlug,
        api_key_id: caller.apiKeyId,
        projects: await organizationProjects(db, caller.orgId),
      };
    const [user] = await db.select({ id: users.id, email: users.email, display_name: users.display_name }).from(users).where(eq(users.id, caller.userId));
    const { plan: _plan, free_trial_end: _trialEnd, cancel_at_period_end: _cancel, ...subscription } = await subscriptionSummary(db, caller.orgId);
    return {
      ...user,
      role: caller.role,
      organization_slug: caller.orgSlug,
      projects: await organizationProjects(db, caller.orgId),
      // is_pro, is_pro_team, subscription_status, subscription_end_date: from the plan Stripe's webhooks set.
      ...subscription,
    };
  });
}
