import { EventEmitter } from 'node:events';
import { and, eq, inArray, isNotNull, ne, sql } from 'drizzle-orm';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import { anonymousProjects, chatMessages, chats, chunks, messageFeedback, submissions, type MessageSource, type SensitivityLevel } from './tables.js';
import { withTenant } from '../core/db/tenant.js';
import type { Queue } from '../core/jobs/queue.js';
import { describePlace, fromLead, NO_MATCH } from './answer.js';
import { createSubmission, indexSubmission, removeChunks, type IndexOptions } from './ingest.js';
import { SubmitError } from './submit-error.js';
import { limitsFor } from '../billing/limits.js';

export const LIKED_JOB = 'ai.process-liked-message';

/** Outcomes of the liked-message job, for sockets watching the project. */
export const likedEvents = new EventEmitter();
likedEvents.setMaxListeners(0);
export interface LikedStatusEvent {
  orgId: number;
  /** Who liked it: only their sockets hear of it. */
  userId: number | null;
  sessionId: number | null;
  projectId: number | null;
  feedback_id: number;
  message_id: number;
  status: 'processed' | 'failed';
  error: string | null;
  submission_id: number | null;
}

/** Queues the job for a vote once it is committed; a vote queued twice is processed once. */
export const queueLiked = (queue: Queue, orgId: number, feedbackId: number) =>
  queue.enqueue(LIKED_JOB, { orgId, feedbackId }, { singletonKey: `${orgId}:${feedbackId}` });

/**
 * The curated Q&A as a Markdown text submission: the question is its heading, so it weighs most in
 * search. The answer's [n] markers become the names of what they cited, since a later answer quoting
 * this text numbers its own sources; the offline answer's "From bugs.md: " leads go, so a later
 * answer quotes the Q&A's sentences, not "From Q&A: … From bugs.md: …".
 */
export function curatedQa(question: string, answer: string, sources: MessageSource[]): string {
  const named = new Map(sources.map((s) => [s.n, `(${[s.title, describePlace(s.place)].filter(Boolean).join(', ')})`]));
  let body = answer;
  for (const lead of new Set(sources.map((s) => fromLead(s.title, s.place)))) body = body.split(lead).join('');
  body = body.replace(/\[(\d+)\]/g, (marker, n: string) => named.get(Number(n)) ?? marker).trim();
  return `# ${question.replace(/\s+/g, ' ').trim()}\n\n${body}\n`;
}

const STRICTNESS: SensitivityLevel[] = ['public', 'internal', 'restricted'];

/**
 * The job: a liked answer becomes a curated Q&A submission of the chat's project, indexed, so later
 * questions find it; the like moves to processed (or failed with the reason). The Q&A is as
 * sensitive as the strictest passage it cites; records of other domains (incidents, cases) make it
 * restricted, which leaves it to Admins and the person who liked it. Each answer is curated once,
 * however many like it. A like turned into a dislike takes back the Q&A it made, unless others
 * still like the answer.
 */
export async function processLikedMessage(db: Db, config: Config, orgId: number, feedbackId: number, opts: IndexOptions = {}): Promise<void> {
  const scope = { orgId, userId: null };
  const row = await likedVote(db, scope, orgId, feedbackId);
  if (!row || row.feedback.status !== 'processing') return;
  const job: LikedJob = { db, config, orgId, feedbackId, scope, row, f: row.feedback };
  if (job.f.value === 'dislike') {
    await takeBackCurated(job);
    return finish(job, 'processed', null, null);
  }
  if (row.project_id === null) return finish(job, 'failed', 'The chat belongs to no project, so there is no project to add the answer to.', null);
  if (!row.sources.length || row.answer === NO_MATCH) return finish(job, 'failed', 'The answer cites no passages, so it was not added.', null);
  const prepared = await withTenant(db, scope, (tx) => prepareCurated(job, tx, row.project_id!));
  if ('error' in prepared) return finish(job, 'failed', prepared.error!, null);
  if ('reuse' in prepared) return finish(job, 'processed', null, prepared.reuse ?? null);
  await indexSubmission(db, orgId, prepared.created!, opts);
  const [indexed] = await withTenant(db, scope, (tx) =>
    tx
      .select({ status: submissions.status, error: submissions.error })
      .from(submissions)
      .where(and(eq(submissions.organization_id, orgId), eq(submissions.id, prepared.created!))),
  );
  if (indexed?.status === 'indexed') return finish(job, 'processed', null, prepared.created!);
  return finish(job, 'failed', `The answer could not be indexed: ${indexed?.error ?? 'unknown reason'}`, prepared.created!);
}

type TenantTx = Parameters<Parameters<typeof withTenant>[2]>[0];

/** The vote with the answer it is about: its text, its sources, its chat and the chat's project. */
async function likedVote(db: Db, scope: { orgId: number; userId: null }, orgId: number, feedbackId: number) {
  const [row] = await withTenant(db, scope, (tx) =>
    tx
      .select({
        feedback: messageFeedback,
        answer: chatMessages.text,
        sources: chatMessages.sources,
        chat_id: chatMessages.chat_id,
        project_id: chats.project_id,
      })
      .from(messageFeedback)
      .innerJoin(chatMessages, and(eq(chatMessages.organization_id, messageFeedback.organization_id), eq(chatMessages.id, messageFeedback.message_id)))
      .innerJoin(chats, and(eq(chats.organization_id, chatMessages.organization_id), eq(chats.id, chatMessages.chat_id)))
      .where(and(eq(messageFeedback.organization_id, orgId), eq(messageFeedback.id, feedbackId))),
  );
  return row;
}

/** One run of the job: the vote being processed and the answer it is about. */
interface LikedJob {
  db: Db;
  config: Config;
  orgId: number;
  feedbackId: number;
  scope: { orgId: number; userId: null };
  row: NonNullable<Awaited<ReturnType<typeof likedVote>>>;
  f: NonNullable<Awaited<ReturnType<typeof likedVote>>>['feedback'];
}

/** The vote's outcome: stored (unless the vote changed meanwhile) and told to the voter's sockets. */
async function finish({ db, scope, orgId, feedbackId, row, f }: LikedJob, status: 'processed' | 'failed', error: string | null, submissionId: number | null) {
  await withTenant(db, scope, (tx) =>
    tx
      .update(messageFeedback)
      .set({ status, error, submission_id: submissionId, updated_at: new Date() })
      .where(and(eq(messageFeedback.organization_id, orgId), eq(messageFeedback.id, feedbackId), eq(messageFeedback.status, 'processing'))),
  );
  likedEvents.emit('status', {
    orgId,
    userId: f.user_id,
    sessionId: f.anonymous_session_id,
    projectId: row.project_id,
    feedback_id: feedbackId,
    message_id: f.message_id,
    status,
    error,
    submission_id: submissionId,
  } satisfies LikedStatusEvent);
}

/** A curated Q&A that a like of this answer made and that still exists (this like's own too, unless `othersOnly`). */
const curatedBefore = ({ orgId, feedbackId, f }: LikedJob, tx: TenantTx, othersOnly: boolean) =>
  tx
    .select({ submission_id: messageFeedback.submission_id })
    .from(messageFeedback)
    .innerJoin(submissions, and(eq(submissions.organization_id, messageFeedback.organization_id), eq(submissions.id, messageFeedback.submission_id)))
    .where(
      and(
        eq(messageFeedback.organization_id, orgId),
        eq(messageFeedback.message_id, f.message_id),
        othersOnly ? ne(messageFeedback.id, feedbackId) : undefined,
        othersOnly ? eq(messageFeedback.value, 'like') : undefined,
        isNotNull(messageFeedback.submission_id),
      ),
    )
    .limit(1);

/** A like turned into a dislike: the Q&A it made is removed, unless others still like the answer. */
async function takeBackCurated(job: LikedJob) {
  const { db, scope, orgId, row, f } = job;
  if (f.submission_id === null || row.project_id === null) return;
  await withTenant(db, scope, async (tx) => {
    if ((await curatedBefore(job, tx, true)).length) return;
    await removeChunks(tx, orgId, row.project_id!, f.submission_id!);
    await tx.delete(submissions).where(and(eq(submissions.organization_id, orgId), eq(submissions.id, f.submission_id!)));
  });
}

/** The Q&A submission for the answer: one made before reused, or a new one created (indexed by the caller), or why not. */
async function prepareCurated(job: LikedJob, tx: TenantTx, projectId: number): Promise<{ reuse?: number | null; created?: number; error?: string }> {
  const { config, orgId, row, f } = job;
  const [curated] = await curatedBefore(job, tx, false);
  if (curated) return { reuse: curated.submission_id };
  if (f.anonymous_session_id !== null) {
    const [own] = await tx
      .select({ id: anonymousProjects.project_id })
      .from(anonymousProjects)
      .where(
        and(
          eq(anonymousProjects.organization_id, orgId),
          eq(anonymousProjects.project_id, projectId),
          eq(anonymousProjects.session_id, f.anonymous_session_id),
        ),
      );
    if (!own) return { error: 'Answers liked by visitors are added only to projects they created.' };
  }
  const [question] = await tx
    .select({ text: chatMessages.text })
    .from(chatMessages)
    .where(
      and(
        eq(chatMessages.organization_id, orgId),
        eq(chatMessages.chat_id, row.chat_id),
        eq(chatMessages.role, 'user'),
        sql`${chatMessages.id} < ${f.message_id}`,
      ),
    )
    .orderBy(sql`${chatMessages.id} desc`)
    .limit(1);
  const level = await strictestLevel(tx, orgId, row.sources);
  const text = question?.text ?? 'Question';
  try {
    const sub = await createSubmission(
      tx,
      { orgId, userId: f.user_id, sessionId: f.anonymous_session_id },
      await limitsFor(tx, config, orgId, f.anonymous_session_id !== null),
      {
        kind: 'text',
        projectId,
        title: `Q&A: ${text.replace(/\s+/g, ' ').trim()}`,
        content: Buffer.from(curatedQa(text, row.answer, row.sources), 'utf8'),
        sensitivityLevel: level,
      },
    );
    return { created: sub.id };
  } catch (err) {
    if (err instanceof SubmitError) return { error: `The answer could not be added: ${err.message}` };
    throw err;
  }
}

/** The strictest level of the passages cited (internal when none); a record of another domain makes it restricted. */
async function strictestLevel(tx: TenantTx, orgId: number, sources: MessageSource[]): Promise<SensitivityLevel> {
  const chunkIds = sources.filter((s) => s.object_type === 'chunk').map((s) => Number(s.object_id));
  const levels = chunkIds.length
    ? (
        await tx
          .select({ level: chunks.sensitivity_level })
          .from(chunks)
          .where(and(eq(chunks.organization_id, orgId), inArray(chunks.id, chunkIds)))
      ).map((c) => c.level)
    : [];
  if (sources.some((s) => s.object_type !== 'chunk')) levels.push('restricted');
  return levels.length ? STRICTNESS[Math.max(...levels.map((l) => STRICTNESS.indexOf(l)))]! : 'internal';
}
