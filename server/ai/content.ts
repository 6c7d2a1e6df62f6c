import { and, asc, between, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../core/db/client.js';
import { chatMessages, chats, chunks, submissions } from './tables.js';
import { notFound } from '../core/errors.js';
import { accessOf, type Chatter } from './chat.js';
import { rowsOf } from '../core/db/client.js';
import { accessCondition } from './retrieve.js';

export interface ObjectRequest {
  object_type: 'chunk' | 'submission';
  object_id: number;
  chat_id?: string | null;
  is_shared_view?: boolean;
}

/**
 * What a citation opens: the cited chunk with its neighbours and place, or a whole submission's
 * chunks. Visible when the caller may retrieve it. In a shared chat's view a caller without that
 * right sees only the public passages the chat cites: neighbours and the rest of the submission stay hidden.
 */
export async function objectContent(tx: Executor, who: Chatter | null, orgId: number, req: ObjectRequest) {
  const submissionId = req.object_type === 'submission' ? req.object_id : await submissionOfChunk(tx, orgId, req.object_id);
  if (submissionId === null) throw notFound('Source', req.object_id);
  // null: every chunk of the submission may be shown; a set: only these.
  const visible = (await mayRetrieve(tx, who, orgId, submissionId)) ? null : await sharedCitations(tx, orgId, submissionId, req);
  if (visible && (req.object_type === 'chunk' ? !visible.has(req.object_id) : visible.size === 0)) throw notFound('Source', req.object_id);
  const shown = <T extends { id: number }>(c: T | undefined) => (c && (!visible || visible.has(c.id)) ? c : undefined);
  const [sub] = await tx
    .select({
      id: submissions.id,
      title: submissions.title,
      kind: submissions.kind,
      fileName: submissions.file_name,
      source_url: submissions.source_url,
      status: submissions.status,
      project_id: submissions.project_id,
    })
    .from(submissions)
    .where(and(eq(submissions.organization_id, orgId), eq(submissions.id, submissionId)));
  if (!sub) throw notFound('Source', req.object_id);
  const cols = { id: chunks.id, ordinal: chunks.ordinal, text: chunks.text, place: chunks.place };
  if (req.object_type === 'chunk') {
    const [target] = await tx
      .select(cols)
      .from(chunks)
      .where(and(eq(chunks.organization_id, orgId), eq(chunks.id, req.object_id)));
    const around = await tx
      .select(cols)
      .from(chunks)
      .where(and(eq(chunks.organization_id, orgId), eq(chunks.submission_id, submissionId), between(chunks.ordinal, target!.ordinal - 1, target!.ordinal + 1)))
      .orderBy(asc(chunks.ordinal));
    return {
      object_type: 'chunk',
      object_id: req.object_id,
      submission: sub,
      place: target!.place,
      text: target!.text,
      before: shown(around.find((c) => c.ordinal === target!.ordinal - 1))?.text ?? null,
      after: shown(around.find((c) => c.ordinal === target!.ordinal + 1))?.text ?? null,
    };
  }
  const parts = await tx
    .select(cols)
    .from(chunks)
    .where(and(eq(chunks.organization_id, orgId), eq(chunks.submission_id, submissionId), visible ? inArray(chunks.id, [...visible]) : undefined))
    .orderBy(asc(chunks.ordinal))
    .limit(500);
  return { object_type: 'submission', object_id: req.object_id, submission: sub, chunks: parts };
}

/** Whether the caller may retrieve this submission's passages (or uploaded it, before it has any). */
async function mayRetrieve(tx: Executor, who: Chatter | null, orgId: number, submissionId: number): Promise<boolean> {
  if (!who) return false;
  const ok = rowsOf(
    await tx.execute(
      sql`select 1 from chunks c where c.organization_id = ${orgId} and c.submission_id = ${submissionId} and ${accessCondition(accessOf(who), orgId)} limit 1`,
    ),
  );
  if (ok.length) return true;
  const [sub] = await tx
    .select({ created_by: submissions.created_by, session: submissions.anonymous_session_id })
    .from(submissions)
    .where(and(eq(submissions.organization_id, orgId), eq(submissions.id, submissionId)));
  return Boolean(sub && ((who.userId !== null && sub.created_by === who.userId) || (who.sessionId !== null && sub.session === who.sessionId)));
}

async function submissionOfChunk(tx: Executor, orgId: number, chunkId: number): Promise<number | null> {
  const [c] = await tx
    .select({ submission_id: chunks.submission_id })
    .from(chunks)
    .where(and(eq(chunks.organization_id, orgId), eq(chunks.id, chunkId)));
  return c?.submission_id ?? null;
}

/**
 * The chunks of this submission that a shared chat's answers cite and that are public now (empty when
 * the request names no shared chat): a shared link shows anyone public material only, whatever the
 * chat's author could read. Per submission, so a chat citing one public document does not open the
 * title of a restricted one.
 */
async function sharedCitations(tx: Executor, orgId: number, submissionId: number, req: ObjectRequest): Promise<Set<number>> {
  if (!req.is_shared_view || !req.chat_id) return new Set();
  const rows = rowsOf<{ id: string | number }>(
    await tx.execute(sql`
      select distinct (s->>'object_id')::bigint as id
      from ${chatMessages} m join ${chats} c on c.organization_id = m.organization_id and c.id = m.chat_id, jsonb_array_elements(m.sources) s
      where m.organization_id = ${orgId} and m.chat_id = ${req.chat_id} and c.shared_at is not null and s->>'object_type' = 'chunk'
        and exists (select 1 from ${chunks} p where p.organization_id = ${orgId} and p.id = (s->>'object_id')::bigint
          and p.submission_id = ${submissionId} and p.sensitivity_level = 'public')`),
  );
  return new Set(rows.map((r) => Number(r.id)));
}
