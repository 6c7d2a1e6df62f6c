import { and, count, eq, gte, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../core/db/client.js';
import { chatMessages, submissions } from './tables.js';

export interface Usage {
  messages_today: number;
}

/** Questions asked since midnight UTC by this user (or anonymous session). */
export async function messagesToday(tx: Executor, orgId: number, who: { userId: number | null; sessionId: number | null }): Promise<number> {
  const since = sql`date_trunc('day', now() at time zone 'utc') at time zone 'utc'`;
  const [row] = await tx
    .select({ n: count() })
    .from(chatMessages)
    .where(
      and(
        eq(chatMessages.organization_id, orgId),
        eq(chatMessages.role, 'user'),
        who.userId !== null ? eq(chatMessages.user_id, who.userId) : isNull(chatMessages.user_id),
        who.sessionId !== null ? eq(chatMessages.anonymous_session_id, who.sessionId) : sql`true`,
        gte(chatMessages.created_at, since),
      ),
    );
  return row?.n ?? 0;
}

export async function filesInProject(tx: Executor, orgId: number, projectId: number): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(submissions)
    .where(and(eq(submissions.organization_id, orgId), eq(submissions.project_id, projectId)));
  return row?.n ?? 0;
}
