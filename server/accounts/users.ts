import { and, eq, exists, sql } from 'drizzle-orm';
import { z } from 'zod';
import { memberships, ROLES, users } from '../core/db/tables.js';
import { forbidden, httpError, invalid } from '../core/errors.js';
import { hashPassword, verifyPassword } from './service.js';
import { may, type RequestContext } from '../core/context.js';
import { endOtherSessions } from '../core/sessions.js';
import { outer } from '../engine/definition-kit.js';
import { defineResource } from '../engine/define.js';
import { email, text } from '../engine/fields.js';
import { membershipChanged } from '../core/tenancy.js';

/** Users are shared rows; an organization sees its members, each with their role there. */
const membership = (ctx: RequestContext) => and(eq(memberships.user_id, outer(users, 'id')), eq(memberships.organization_id, ctx.orgId));

async function owners(ctx: RequestContext) {
  const rows = await ctx.tx
    .select({ id: memberships.user_id })
    .from(memberships)
    .where(and(eq(memberships.organization_id, ctx.orgId), eq(memberships.role, 'Owner')));
  return rows.map((r) => r.id);
}

async function guardLastOwner(ctx: RequestContext, id: number) {
  const list = await owners(ctx);
  if (list.length === 1 && list[0] === id) throw httpError(409, 'The organization needs at least one Owner.', 'conflict');
}

const role = z.enum(ROLES, { error: `Role must be one of ${ROLES.join(', ')}` });

/** A person who has a password gives it to set another; one who signs in by code only sets their first. */
async function checkCurrentPassword(ctx: RequestContext, id: number, current: string | undefined) {
  const [row] = await ctx.tx.select({ hash: users.password_hash }).from(users).where(eq(users.id, id));
  if (!row?.hash) return;
  if (!current) throw invalid('Enter your current password to set a new one.', ['body', 'current_password'], 'missing');
  if (!(await verifyPassword(row.hash, current))) throw invalid('That is not your current password.', ['body', 'current_password'], 'value_error');
}

export const userResource = defineResource({
  model: 'User',
  label: 'User',
  displayLabel: 'Member',
  path: '/users',
  table: users,
  // People join by invitation: POST /users is in routes/invitations.ts.
  create: z.strictObject({ email: email(), role: role.optional(), display_name: text(200) }),
  routes: { create: false },
  update: z.strictObject({
    password: z.string().min(8, 'The password needs at least 8 characters').max(200).optional(),
    /** Asked with a new password when the person has one: a session left open is not enough to take the account. */
    current_password: z.string().max(200).optional(),
    role: role.optional(),
    display_name: text(200),
  }),
  pageSize: 10,
  sort: [['email', 'desc']],
  search: ['email', 'display_name'],
  fields: ['email', 'display_name', 'role', 'created_at'],
  hidden: ['password_hash'],
  computed: (ctx) => ({ role: sql<string>`(select ${memberships.role} from ${memberships} where ${membership(ctx)})` }),
  scope: (ctx) =>
    exists(
      ctx.tx
        .select({ one: sql`1` })
        .from(memberships)
        .where(membership(ctx)),
    ),
  hooks: {
    async update(ctx, id, data) {
      const [member] = await ctx.tx
        .select({ role: memberships.role })
        .from(memberships)
        .where(and(eq(memberships.organization_id, ctx.orgId), eq(memberships.user_id, id)));
      if (!member) return false;
      // The profile (name, password) is the person's own, in every organization: only they change it.
      const self = ctx.userId === id;
      if (data.password !== undefined && !self) throw forbidden('You can only change your own password.');
      if (data.display_name !== undefined && !self) throw forbidden('You can only change your own profile.');
      if (data.role !== undefined && data.role !== member.role) {
        if (!may(ctx.role, 'changeRoles')) throw forbidden('Only an Admin or above may change roles.');
        if ((data.role === 'Owner' || member.role === 'Owner') && !may(ctx.role, 'owners')) throw forbidden('Only an Owner may grant or take the Owner role.');
        if (member.role === 'Owner') await guardLastOwner(ctx, id);
        await ctx.tx
          .update(memberships)
          .set({ role: data.role as never, updated_at: sql`now()` })
          .where(and(eq(memberships.organization_id, ctx.orgId), eq(memberships.user_id, id)));
        membershipChanged(ctx.orgId, id);
      }
      if (data.password !== undefined) await checkCurrentPassword(ctx, id, data.current_password as string | undefined);
      const set: Partial<typeof users.$inferInsert> = {};
      if (data.password !== undefined) set.password_hash = await hashPassword(data.password as string);
      if (data.display_name !== undefined) set.display_name = data.display_name as string | null;
      if (Object.keys(set).length)
        await ctx.tx
          .update(users)
          .set({ ...set, updated_at: new Date() })
          .where(eq(users.id, id));
      // A new password signs the user out everywhere else; the session that changed it stays.
      if (data.password !== undefined) await ctx.asSystem((tx) => endOtherSessions(tx, id, ctx.sid ?? null));
      return true;
    },
    /** Removing a member ends their membership; the user (and their other organizations) stays. */
    async delete(ctx, id) {
      if (ctx.userId !== id && !may(ctx.role, 'removeMembers')) throw forbidden('Only an Admin or above may remove members.');
      await guardLastOwner(ctx, id);
      const gone = await ctx.tx
        .delete(memberships)
        .where(and(eq(memberships.organization_id, ctx.orgId), eq(memberships.user_id, id)))
        .returning();
      membershipChanged(ctx.orgId, id);
      return gone.length > 0;
    },
  },
});
