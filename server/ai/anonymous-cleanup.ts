import { and, eq, inArray, lte } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { removeChunks } from './ingest.js';
import type { Db } from '../core/db/client.js';
import { anonymousProjects, anonymousSessions, chatMessages, chats, messageFeedback, submissions } from './tables.js';
import { projects } from '../core/db/projects.js';
import { withTenant } from '../core/db/tenant.js';

/** The scheduled sweep that removes what expired landing-page sessions left behind. */
export const ANONYMOUS_CLEANUP_JOB = 'anonymous-cleanup';

/** Rows removed; submissions and chats count those outside the removed projects (the rest go with their project). */
export interface CleanupCounts {
  sessions: number;
  projects: number;
  submissions: number;
  chats: number;
}

/**
 * Deletes every expired anonymous session with what it created: its projects (their submissions,
 * passages and chats go with them), its submissions and chats in other projects, its messages and votes.
 * Each session is one transaction in its organization, so a failure leaves that session for the next run.
 */
export async function removeExpiredAnonymous(db: Db, now = new Date(), log?: FastifyInstance['log']): Promise<CleanupCounts> {
  const counts: CleanupCounts = { sessions: 0, projects: 0, submissions: 0, chats: 0 };
  const expired = await db
    .select({ id: anonymousSessions.id, orgId: anonymousSessions.organization_id })
    .from(anonymousSessions)
    .where(lte(anonymousSessions.expires_at, now))
    .orderBy(anonymousSessions.id);
  for (const session of expired) {
    const { orgId, id } = session;
    try {
      await withTenant(db, { orgId, userId: null }, async (tx) => {
        const own = tx
          .select({ id: anonymousProjects.project_id })
          .from(anonymousProjects)
          .where(and(eq(anonymousProjects.organization_id, orgId), eq(anonymousProjects.session_id, id)));
        const gone = await tx
          .delete(projects)
          .where(and(eq(projects.organization_id, orgId), inArray(projects.id, own)))
          .returning({ id: projects.id });
        const subs = await tx
          .select({ id: submissions.id, projectId: submissions.project_id })
          .from(submissions)
          .where(and(eq(submissions.organization_id, orgId), eq(submissions.anonymous_session_id, id)));
        for (const sub of subs) await removeChunks(tx, orgId, sub.projectId, sub.id);
        if (subs.length)
          await tx.delete(submissions).where(
            and(
              eq(submissions.organization_id, orgId),
              inArray(
                submissions.id,
                subs.map((s) => s.id),
              ),
            ),
          );
        const talks = await tx
          .delete(chats)
          .where(and(eq(chats.organization_id, orgId), eq(chats.anonymous_session_id, id)))
          .returning({ id: chats.id });
        await tx.delete(chatMessages).where(and(eq(chatMessages.organization_id, orgId), eq(chatMessages.anonymous_session_id, id)));
        await tx.delete(messageFeedback).where(and(eq(messageFeedback.organization_id, orgId), eq(messageFeedback.anonymous_session_id, id)));
        await tx.delete(anonymousSessions).where(and(eq(anonymousSessions.organization_id, orgId), eq(anonymousSessions.id, id)));
        counts.sessions++;
        counts.projects += gone.length;
        counts.submissions += subs.length;
        counts.chats += talks.length;
      });
    } catch (err) {
      log?.error({ err, orgId, session: id }, 'removing an expired anonymous session failed');
    }
  }
  return counts;
}
