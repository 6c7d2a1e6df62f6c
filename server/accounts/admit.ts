import { and, eq, lt } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Executor } from '../core/db/client.js';
import { memberships, organizations, signInAddresses, users } from '../core/db/tables.js';
import { forbidden } from '../core/errors.js';
import { startSession } from '../core/sessions.js';
import { acceptInvitation } from './invitations.js';
import { organizationProjects } from '../projects/service.js';
import { projectResource } from '../projects/resources.js';
import { arrayOf, int, objectOf, recordOf, str } from '../engine/answers.js';

/** How long an address an e-mail signed in from stays exempt from the e-mail's rate-limit ceiling without another sign-in. */
const KNOWN_ADDRESS_DAYS = 90;

/**
 * The user behind an e-mail address that sign-in has just proven (an e-mailed code, or a provider's
 * verified ID token): a member signs in; otherwise a pending invitation to the address is accepted, or,
 * where the organization allows sign-up, the person joins: as Owner when nobody belongs to it yet (a fresh
 * installation's `default`), else as Member. `tx` is a privileged transaction.
 */
export async function admitVerifiedEmail(tx: Executor, org: { id: number; slug: string }, address: string) {
  const [found] = await tx.select({ id: users.id, email: users.email }).from(users).where(eq(users.email, address));
  const [member] = found
    ? await tx
        .select()
        .from(memberships)
        .where(and(eq(memberships.user_id, found.id), eq(memberships.organization_id, org.id)))
    : [];
  if (member) return found!;
  const invited = await acceptInvitation(tx, org.id, { email: address });
  if (invited) return invited;
  // Locked, so that of two first sign-ins at once only one finds the organization without members.
  const [settings] = await tx.select({ allow_signup: organizations.allow_signup }).from(organizations).where(eq(organizations.id, org.id)).for('update');
  if (!settings?.allow_signup) throw forbidden(`Sign-up is closed for organization '${org.slug}'. Ask an administrator to add you.`);
  const person = found ?? (await tx.insert(users).values({ email: address }).returning({ id: users.id, email: users.email }))[0]!;
  const [anyone] = await tx.select({ id: memberships.user_id }).from(memberships).where(eq(memberships.organization_id, org.id)).limit(1);
  await tx.insert(memberships).values({ organization_id: org.id, user_id: person.id, role: anyone ? 'Member' : 'Owner' });
  return person;
}

/** What signedIn answers, for the OpenAPI document. */
export const signedInSchema = objectOf({
  token: str,
  projects: arrayOf(recordOf(projectResource)),
  organization: objectOf({ slug: str }),
  user: objectOf({ id: int, email: str }),
});

/** The answer of every successful sign-in: a new session's token, the organization's projects, who signed in. */
export async function signedIn(app: FastifyInstance, req: FastifyRequest, org: { id: number; slug: string }, user: { id: number; email: string }) {
  const { db } = app;
  const token = await startSession(app, user);
  await db
    .insert(signInAddresses)
    .values({ email: user.email, address: req.ip })
    .onConflictDoUpdate({ target: [signInAddresses.email, signInAddresses.address], set: { last_at: new Date() } });
  await db.delete(signInAddresses).where(lt(signInAddresses.last_at, new Date(Date.now() - KNOWN_ADDRESS_DAYS * 86_400_000)));
  const projects = await organizationProjects(db, org.id);
  return { token, projects, organization: { slug: org.slug }, user: { id: user.id, email: user.email } };
}
