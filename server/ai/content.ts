import { and, asc, between, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { chatMessages, chats, chunks, submissions } from '../db/schema/index.js';
import { notFound } from '../errors.js';
import { accessOf, type Chatter } from './chat.js';
import { rowsOf } from '../db/client.js';
import { accessCondition } from './retrieve.js';

export interface ObjectRequest {
  object_type: 'chunk' | 'submission';
  object_id: number;
  chat_id?: string | null;
  is_shared_view?: boolean;
}

/**
 * What a citation opens: the cited chunk with its neighbours and place, or a whole submission's
 * chunks. Visible when the caller may retrieve it, or, in a shared chat's view, when that chat cites it.
 */
export async function objectContent(tx: Executor, who: Chatter | null, orgId: number, req: ObjectRequest) {
  const submissionId = req.object_type === 'submission' ? req.object_id : await submissionOfChunk(tx, orgId, req.object_id);
  if (submissionId === null) throw notFound('Source', req.object_id);
  const cited = req.is_shared_view && req.chat_id ? await citedInSharedChat(tx, orgId, req.chat_id, req) : false;
  if (!cited) {
    if (!who) throw notFound('Source', req.object_id);
    const ok = rowsOf(await tx.execute(sql`select 1 from chunks c where c.organization_id = ${orgId} and c.submission_id = ${submissionId} and ${accessCondition(accessOf(who), orgId)} limit 1`));
    const [sub] = await tx.select({ sensitivity: submissions.sensitivity_level, created_by: submissions.created_by, session: submissions.anonymous_session_id, status: submissions.status }).from(submissions).where(and(eq(submissions.organization_id, orgId), eq(submissions.id, submissionId)));
    // Unindexed submissions have no chunks; their own uploader may still open them.
    const own = sub && ((who.userId !== null && sub.created_by === who.userId) || (who.sessionId !== null && sub.session === who.sessionId));
    if (!ok.length && !own) throw notFound('Source', req.object_id);
  }
  const [sub] = await tx
    .select({ id: submissions.id, title: submissions.title, kind: submissions.kind, fileName: submissions.file_name, source_url: submissions.source_url, status: submissions.status, project_id: submissions.project_id })
    .from(submissions)
    .where(and(eq(submissions.organization_id, orgId), eq(submissions.id, submissionId)));
  if (!sub) throw notFound('Source', req.object_id);
  const cols = { id: chunks.id, ordinal: chunks.ordinal, text: chunks.text, place: chunks.place };
  if (req.object_type === 'chunk') {
    const [target] = await tx.select(cols).from(chunks).where(and(eq(chunks.organization_id, orgId), eq(chunks.id, req.object_id)));
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
      before: around.find((c) => c.ordinal === target!.ordinal - 1)?.text ?? null,
      after: around.find((c) => c.ordinal === target!.ordinal + 1)?.text ?? null,
    };
  }
  const parts = await tx.select(cols).from(chunks).where(and(eq(chunks.organization_id, orgId), eq(chunks.submission_id, submissionId))).orderBy(asc(chunks.ordinal)).limit(500);
  return { object_type: 'submission', object_id: req.object_id, submission: sub, chunks: parts };
}

async function submissionOfChunk(tx: Executor, orgId: number, chunkId: number): Promise<number | null> {
  const [c] = await tx.select({ submission_id: chunks.submission_id }).from(chunks).where(and(eq(chunks.organization_id, orgId), eq(chunks.id, chunkId)));
  return c?.submission_id ?? null;
}

/** True when a shared chat's answers cite this chunk (or submission). */
async function citedInSharedChat(tx: Executor, orgId: number, chatId: string, req: ObjectRequest): Promise<boolean> {
  const [chat] = await tx.select({ id: chats.id }).from(chats).where(and(eq(chats.organization_id, orgId), eq(chats.id, chatId), sql`${chats.shared_at} is not null`));
  if (!chat) return false;
  const probe = req.object_type === 'chunk' ? [{ object_type: 'chunk', object_id: req.object_id }] : [{ submission_id: req.object_id }];
  const [hit] = await tx
    .select({ id: chatMessages.id })
    .from(chatMessages)
    .where(and(eq(chatMessages.organization_id, orgId), eq(chatMessages.chat_id, chatId), sql`${chatMessages.sources} @> ${JSON.stringify(probe)}::jsonb`))
    .limit(1);
  return Boolean(hit);
}
