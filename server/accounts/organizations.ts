import { and, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import { memberships, organizations } from '../core/db/tables.js';
import { forbidden, httpError } from '../core/errors.js';
import { createOrganization } from './service.js';
import { may, type RequestContext } from '../core/context.js';
import { RIGHTS } from '../core/rights.js';
import { defineResource } from '../engine/define.js';
import { color, flag, requiredText, text } from '../engine/fields.js';
import { membershipChanged } from '../core/tenancy.js';
import { checkCustomSettings } from '../billing/plans.js';

/** Organizations are shared rows; a caller sees the ones they belong to (an API key: its own). */
const myOrganizations = (ctx: RequestContext) =>
  ctx.userId === null
    ? eq(organizations.id, ctx.orgId)
    : inArray(organizations.id, ctx.tx.select({ id: memberships.organization_id }).from(memberships).where(eq(memberships.user_id, ctx.userId)));

async function roleIn(ctx: RequestContext, orgId: number) {
  if (ctx.userId === null) return orgId === ctx.orgId ? ctx.role : null;
  const [m] = await ctx.tx
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.organization_id, orgId), eq(memberships.user_id, ctx.userId)));
  return m?.role ?? null;
}

const editable = {
  description: requiredText(2000),
  banner_text: text(500),
  banner_color: color(),
  banner_enabled: flag(),
  storycurve_logging_enabled: flag(),
  allow_signup: flag(),
  anonymous_access: flag(),
  // Empty clears it: any account may sign in through the provider.
  sso_domain: z
    .string()
    .trim()
    .toLowerCase()
    .max(253)
    .regex(/^$|^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$/, 'Must be a domain like example.com')
    .transform((v) => v || null)
    .nullish(),
  // Where workflows' e-mail steps may write besides the members (F22: no open relay under MAIL_FROM).
  mail_allowed_domains: z
    .array(
      z
        .string()
        .trim()
        .toLowerCase()
        .max(253)
        .regex(/^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$/, 'Must be a domain like example.com'),
    )
    .max(100),
};

export const organizationResource = defineResource({
  model: 'Organization',
  label: 'Organization',
  fieldMeta: {
    storycurve_logging_enabled: { label: 'Record story curves of incident timelines' },
    allow_signup: { label: 'Anyone may sign up' },
    sso_domain: { label: 'Google Workspace domain (sign-in through Google accepted only from it)' },
    mail_allowed_domains: { label: "Domains workflow e-mails may go to, besides the organization's members" },
  },
  path: '/organizations',
  table: organizations,
  create: z.strictObject({ name: requiredText(100), ...editable }).partial({
    banner_text: true,
    banner_color: true,
    banner_enabled: true,
    storycurve_logging_enabled: true,
    allow_signup: true,
    anonymous_access: true,
    sso_domain: true,
    mail_allowed_domains: true,
  }),
  update: z.strictObject({ name: requiredText(100), ...editable }).partial(),
  pageSize: 50,
  sort: [['name', 'asc']],
  search: ['name', 'description', 'slug'],
  fields: ['name', 'slug', 'plan', 'created_at'],
  immutable: ['name'],
  // Any member may create an organization (and own it); editing one is the rights table's.
  updateRole: RIGHTS.editOrganization.least,
  scope: myOrganizations,
  hooks: {
    async create(ctx, data) {
      if (ctx.userId === null) throw forbidden('Only a signed-in user can create an organization.');
      // A new organization starts on the free plan.
      checkCustomSettings('free', data);
      const org = await ctx.asSystem((tx) => createOrganization(tx, data as never, ctx.userId!, ctx.config.TRIAL_DAYS));
      return org.id;
    },
    async beforeUpdate(ctx, id, data) {
      const role = await roleIn(ctx, id);
      if (role && !may(role, 'editOrganization')) throw forbidden('Only an Admin or above may edit the organization.');
      // Who may write into the organization without an account is the Owner's call.
      if (role && 'anonymous_access' in data && !may(role, 'anonymousAccess')) throw forbidden('Only an Owner may switch anonymous access.');
      if (role) {
        const [current] = await ctx.tx.select().from(organizations).where(eq(organizations.id, id));
        if (current) checkCustomSettings(current.plan, data, current);
      }
      return data;
    },
    async update(ctx, id, data) {
      // Shared table: the privileged connection writes it, after the scope check above.
      if ((await roleIn(ctx, id)) === null) return false;
      if (Object.keys(data).length)
        await ctx.asSystem((tx) =>
          tx
            .update(organizations)
            .set({ ...data, updated_at: sql`now()` })
            .where(eq(organizations.id, id)),
        );
      return true;
    },
    async delete(ctx, id) {
      const role = await roleIn(ctx, id);
      if (role === null) return false;
      if (!may(role, 'deleteOrganization')) throw forbidden('Only an Owner may delete the organization.');
      const [org] = await ctx.tx.select({ slug: organizations.slug }).from(organizations).where(eq(organizations.id, id));
      if (org?.slug === 'default') throw httpError(409, "The 'default' organization cannot be deleted.", 'conflict');
      await ctx.asSystem((tx) => tx.delete(organizations).where(eq(organizations.id, id)));
      membershipChanged(id, null);
      return true;
    },
  },
});
