import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { MemberActor, RequestContext } from '../core/context.js';
import { memberships, users } from '../core/db/tables.js';
import { HttpError } from '../core/errors.js';
import { runInTenant } from '../core/tenancy.js';
import { capabilityOf, type LoadedPlugin } from '../plugins/registry.js';
import './capabilities.js';

/** A Slack person seen as a Firewatch member of the organization, or why not. */
export type SlackPerson = { email: string; name: string; actor: MemberActor | null } | { email: null; name: string; actor: null };

/**
 * Who a Slack user is in Firewatch: their Slack profile's e-mail, and the member with that e-mail.
 * Commands run as that member, so they have exactly the rights the web app gives them.
 */
export async function slackPerson(
  app: FastifyInstance,
  org: { orgId: number; orgSlug: string },
  plugin: LoadedPlugin,
  slackUserId: string,
): Promise<SlackPerson> {
  const user = await capabilityOf(plugin, 'lookup_user')!(plugin, { id: slackUserId });
  if (!user?.email) return { email: null, name: user?.name ?? slackUserId, actor: null };
  const email = user.email.toLowerCase();
  const [member] = await app.db
    .select({ userId: users.id, role: memberships.role })
    .from(users)
    .innerJoin(memberships, and(eq(memberships.user_id, users.id), eq(memberships.organization_id, org.orgId)))
    .where(sql`lower(${users.email}) = ${email}`);
  if (!member?.role) return { email, name: user.name, actor: null };
  return {
    email,
    name: user.name,
    actor: { kind: 'user', ...org, userId: member.userId, apiKeyId: null, sessionId: null, role: member.role },
  };
}

/** Runs `fn` with the member's rights (their role checked again inside the transaction). */
export const asMember = <T>(app: FastifyInstance, actor: MemberActor, fn: (ctx: RequestContext) => Promise<T>) =>
  runInTenant(app.db, app.config, { ...actor, verifyRole: true }, fn);

export const notAMember = (person: SlackPerson, orgSlug: string) =>
  person.email
    ? `Your Slack e-mail (${person.email}) is not a member of Firewatch organization '${orgSlug}'. Ask an Admin to invite you.`
    : 'Your Slack profile shows no e-mail address, so Firewatch cannot tell who you are. Ask a Slack admin to show e-mail addresses to apps.';

/** What a command or interaction answers, in people's words: a refusal names the right it lacks. */
export const answerOf = async (fn: () => Promise<string>) => {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof HttpError) return `Not done: ${err.message}`;
    throw err;
  }
};
