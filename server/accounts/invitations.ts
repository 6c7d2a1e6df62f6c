import { randomBytes } from 'node:crypto';
import { and, eq, gt, sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Executor } from '../core/db/client.js';
import { invitations } from './tables.js';
import { memberships, ROLES, users } from '../core/db/tables.js';
import { forbidden, httpError } from '../core/errors.js';
import { normalizeEmail } from './service.js';
import { may, type RequestContext } from '../core/context.js';
import { RIGHTS } from '../core/rights.js';
import { hashApiKey } from '../core/api-keys.js';
import { callerEmail } from '../core/caller.js';
import { defineResource } from '../engine/define.js';
import { email, text } from '../engine/fields.js';

/** How long an invitation can be accepted. */
export const INVITATION_TTL_MS = 7 * 86400_000;

const role = z.enum(ROLES, { error: `Role must be one of ${ROLES.join(', ')}` });
export const invitationBody = z.strictObject({ email: email(), role: role.optional(), display_name: text(200) });

/**
 * Invites a person (a new one or a user of other organizations) to the caller's organization, or
 * renews their pending invitation (a new token: the old link stops working). The answer is the same
 * whether or not the e-mail belongs to a user, so it tells nothing about other organizations' people.
 * Returns the invitation's id and the token for the mail.
 */
export async function createInvitation(ctx: RequestContext, data: { email: string; role?: string; display_name?: string | null }) {
  if (!may(ctx.role, 'invite')) throw forbidden('Only an Admin or above may invite members.');
  if (data.role === 'Owner' && !may(ctx.role, 'owners')) throw forbidden('Only an Owner may invite another Owner.');
  const address = normalizeEmail(data.email);
  const [member] = await ctx.tx
    .select({ id: users.id })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.user_id))
    .where(and(eq(memberships.organization_id, ctx.orgId), eq(users.email, address)));
  if (member) throw httpError(409, `${address} is already a member.`, 'conflict', ['body', 'email']);
  const token = randomBytes(32).toString('base64url');
  const values = {
    role: (data.role as (typeof ROLES)[number] | undefined) ?? 'Member',
    display_name: data.display_name ?? null,
    token_hash: hashApiKey(token),
    invited_by: ctx.userId,
    expires_at: new Date(Date.now() + INVITATION_TTL_MS),
  };
  const [row] = await ctx.tx
    .insert(invitations)
    .values({ organization_id: ctx.orgId, email: address, ...values })
    .onConflictDoUpdate({ target: [invitations.organization_id, invitations.email], set: { ...values, updated_at: sql`now()` } })
    .returning({ id: invitations.id });
  return { id: row!.id, token, inviter: await callerEmail(ctx) };
}

/** The invitation e-mail: a link that accepts it, and the other way (signing in with the e-mail code). */
export function invitationMail(
  req: FastifyRequest,
  invitation: { email: string; role: string; expires_at: Date | string },
  token: string,
  inviter: string | null,
) {
  const slug = req.org.slug;
  const origin = `${req.protocol}://${req.host}`;
  const link = `${origin}/${slug}/auth/login?invitation=${encodeURIComponent(token)}`;
  const expires = new Date(invitation.expires_at).toISOString().replace('T', ' ').slice(0, 16);
  return {
    to: invitation.email,
    subject: `You are invited to ${slug} on Firewatch`,
    text:
      `${inviter ?? 'An administrator'} invites you to join the organization ${slug} on Firewatch as ${invitation.role}.\n\n` +
      `Accept: ${link}\n\n` +
      `Or sign in to ${slug} at ${origin}/${slug}/auth/login with this e-mail address and the code sent to it.\n` +
      `The invitation expires ${expires} UTC. If you did not expect it, ignore this e-mail: nothing changes until you accept.\n`,
  };
}

/**
 * Sends the invitation e-mail (after the invitation committed); whether it went out. A failed delivery
 * keeps the invitation: signing in with the e-mail code accepts it too, and inviting again resends it.
 */
export async function sendInvitation(
  req: FastifyRequest,
  invitation: { email: string; role: string; expires_at: Date | string },
  token: string,
  inviter: string | null,
) {
  try {
    await req.server.mailer(invitationMail(req, invitation, token, inviter));
    return true;
  } catch (err) {
    req.log.warn({ err }, 'invitation mail failed');
    return false;
  }
}

/**
 * Accepts a pending invitation: the user with its e-mail (created if new) becomes a member with its
 * role, and the invitation is used up. `tx` is a privileged transaction (the person is not a member yet).
 */
export async function acceptInvitation(tx: Executor, orgId: number, where: { token: string } | { email: string }) {
  const [invitation] = await tx
    .select()
    .from(invitations)
    .where(
      and(
        eq(invitations.organization_id, orgId),
        'token' in where ? eq(invitations.token_hash, hashApiKey(where.token)) : eq(invitations.email, where.email),
        gt(invitations.expires_at, new Date()),
      ),
    )
    .for('update');
  if (!invitation) return undefined;
  const [person] = await tx
    .insert(users)
    .values({ email: invitation.email, display_name: invitation.display_name })
    .onConflictDoUpdate({ target: users.email, set: { updated_at: sql`${users.updated_at}` } })
    .returning({ id: users.id, email: users.email });
  await tx.insert(memberships).values({ organization_id: orgId, user_id: person!.id, role: invitation.role }).onConflictDoNothing();
  await tx.delete(invitations).where(eq(invitations.id, invitation.id));
  return person!;
}

/** Pending invitations: Admins and above see and revoke them; they are created by POST /invitations or POST /users. */
export const invitationResource = defineResource({
  model: 'Invitation',
  label: 'Invitation',
  path: '/invitations',
  table: invitations,
  create: invitationBody,
  pageSize: 25,
  sort: [['created_at', 'desc']],
  search: ['email'],
  fields: ['email', 'role', 'display_name', 'invited_by', 'invited_by_name', 'expires_at', 'created_at', 'updated_at'],
  hidden: ['token_hash'],
  // People read who invited by name ("Dana Ops"), not by user id.
  computed: () => ({
    invited_by_name: sql<string | null>`(select coalesce(u.display_name, u.email) from ${users} u where u.id = ${invitations.invited_by})`,
  }),
  fieldMeta: { invited_by: { list: false }, invited_by_name: { label: 'Invited by' } },
  writeRole: RIGHTS.invite.least,
  routes: { update: false },
  scope: (ctx) => (may(ctx.role, 'invite') ? eq(invitations.organization_id, ctx.orgId) : sql`false`),
  hooks: {
    async create(ctx, data) {
      const { id, token, inviter } = await createInvitation(ctx, data as never);
      Object.assign(data, { token, inviter });
      return id;
    },
    afterCommit: async (req, record, data) => ({
      ...record,
      emailed: await sendInvitation(req, record as never, data.token as string, data.inviter as string | null),
    }),
  },
});
