import { and, eq, inArray, sql } from 'drizzle-orm';
import type { RequestContext } from '../core/context.js';
import { memberships, organizations, users } from '../core/db/tables.js';

/**
 * Whom a workflow's e-mail step may write to: the organization's members, and addresses of the
 * domains the organization allows (its `mail_allowed_domains`). Anyone else would make the server an
 * open relay under the product's sender (F22).
 */

/** The addresses of a `to` list such as "a@x.org, Ops <b@y.org>", lower-cased. */
export const addressesOf = (to: string) =>
  to
    .split(/[,;]/)
    .map((part) => (/<([^>]*)>/.exec(part)?.[1] ?? part).trim().toLowerCase())
    .filter(Boolean);

const domainAllowed = (address: string, domains: string[]) => {
  const domain = address.slice(address.lastIndexOf('@') + 1);
  return domains.some((d) => domain === d || domain.endsWith(`.${d}`));
};

/** What is wrong with the recipients, in words for the workflow's author, or null. */
export async function recipientProblem(ctx: RequestContext, to: string): Promise<string | null> {
  const addresses = addressesOf(to);
  if (!addresses.length || addresses.some((a) => !/^[^\s@]+@[^\s@]+$/.test(a))) return `'${to.slice(0, 200)}' is not a list of e-mail addresses.`;
  const { domains, members } = await ctx.asSystem(async (tx) => {
    const [org] = await tx.select({ domains: organizations.mail_allowed_domains }).from(organizations).where(eq(organizations.id, ctx.orgId));
    const found = await tx
      .select({ email: users.email })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.user_id))
      .where(and(eq(memberships.organization_id, ctx.orgId), inArray(sql`lower(${users.email})`, addresses)));
    return { domains: org?.domains ?? [], members: new Set(found.map((u) => u.email.toLowerCase())) };
  });
  const outside = addresses.filter((a) => !members.has(a) && !domainAllowed(a, domains));
  if (!outside.length) return null;
  return `E-mail steps write only to members of the organization or to its allowed domains (organization settings); ${outside.join(', ')} is neither.`;
}

/** Refuses the step (it fails the run with the reason). */
export async function checkRecipients(ctx: RequestContext, to: string) {
  const problem = await recipientProblem(ctx, to);
  if (problem) throw new Error(problem);
}
