import { EventEmitter } from 'node:events';
import { and, eq, sql } from 'drizzle-orm';
import type { Db, Executor } from '../db/client.js';
import { anonymousProjects, chunks, projects, submissions, type SensitivityLevel, type SubmissionKind, type SubmissionStatus } from '../db/schema/index.js';
import { withTenant } from '../db/tenant.js';
import { chunkSections } from './chunk.js';
import { ExtractError, extract, fileKind, markdownSections, SUPPORTED_FILES, type FileKind } from './extract.js';
import { filesInProject, formatBytes, type Limits } from './limits.js';

export const INDEX_JOB = 'ai.index-submission';

/** A refusal the user reads as is (limits, unsupported files, unknown projects). */
export class SubmitError extends Error {
  constructor(
    message: string,
    readonly loc: string[] = [],
  ) {
    super(message);
  }
}

export interface Submitter {
  orgId: number;
  userId: number | null;
  sessionId: number | null;
}

export interface SubmitInput {
  kind: SubmissionKind;
  projectId: number;
  eccsProjectId?: string | null;
  title: string;
  fileName?: string | null;
  fileType?: string | null;
  content: Buffer;
  sourceUrl?: string | null;
  sensitivityLevel: SensitivityLevel;
}

/** Status changes of submissions indexed in this process, for sockets to push (others poll). */
export const submissionEvents = new EventEmitter();
submissionEvents.setMaxListeners(0);
export interface SubmissionStatusEvent {
  orgId: number;
  projectId: number;
  submission_id: number;
  status: SubmissionStatus;
  progress: number;
  error: string | null;
  chunk_count: number;
}

/** The project must exist in the organization; an anonymous session may only use its own projects. */
export async function checkProject(tx: Executor, who: Submitter, projectId: number) {
  const [project] = await tx.select({ id: projects.id }).from(projects).where(and(eq(projects.organization_id, who.orgId), eq(projects.id, projectId)));
  if (!project) throw new SubmitError(`Project '${projectId}' could not be found.`, ['project_id']);
  if (who.sessionId !== null) {
    const [own] = await tx
      .select({ id: anonymousProjects.project_id })
      .from(anonymousProjects)
      .where(and(eq(anonymousProjects.organization_id, who.orgId), eq(anonymousProjects.project_id, projectId), eq(anonymousProjects.session_id, who.sessionId)));
    if (!own) throw new SubmitError(`Project '${projectId}' could not be found.`, ['project_id']);
  }
}

/** Stores a submission after the plan's checks; the caller enqueues indexing once this commits. */
export async function createSubmission(tx: Executor, who: Submitter, limits: Limits, input: SubmitInput): Promise<{ id: number; status: SubmissionStatus }> {
  await checkProject(tx, who, input.projectId);
  if (input.kind === 'file' && !fileKind(input.fileName ?? '', input.fileType)) {
    throw new SubmitError(`Unsupported file type '${input.fileName}'. Upload ${SUPPORTED_FILES}.`, ['fileName']);
  }
  if (input.content.length === 0) throw new SubmitError('The file is empty.', ['fileContent']);
  if (input.content.length > limits.max_file_bytes) {
    throw new SubmitError(`File too large: ${formatBytes(input.content.length)}; your plan allows ${formatBytes(limits.max_file_bytes)} per file.`, ['fileContent']);
  }
  if ((await filesInProject(tx, who.orgId, input.projectId)) >= limits.files_per_project) {
    throw new SubmitError(`File limit reached: your plan allows ${limits.files_per_project} files per project.`, ['project_id']);
  }
  const [row] = await tx
    .insert(submissions)
    .values({
      organization_id: who.orgId,
      project_id: input.projectId,
      eccs_project_id: input.eccsProjectId ?? null,
      kind: input.kind,
      title: input.title.slice(0, 300),
      file_name: input.fileName ?? null,
      file_type: input.fileType ?? null,
      source_url: input.sourceUrl ?? null,
      size_bytes: input.content.length,
      content: input.content,
      sensitivity_level: input.sensitivityLevel,
      created_by: who.userId,
      anonymous_session_id: who.sessionId,
    })
    .returning({ id: submissions.id, status: submissions.status });
  return row!;
}

/** The extractor for a stored submission: text is Markdown-aware, transcripts are caption files. */
function kindOf(s: { kind: SubmissionKind; file_name: string | null; file_type: string | null }): FileKind {
  if (s.kind === 'text') return 'markdown';
  if (s.kind === 'video_transcript') return fileKind(s.file_name ?? '', s.file_type) === 'srt' ? 'srt' : 'vtt';
  return fileKind(s.file_name ?? '', s.file_type) ?? 'text';
}

const BATCH = 200;

/**
 * Adds (sign 1) or removes (sign -1) a submission's chunks to the project's lexeme counts. The ids
 * are integers from the database, so they can sit in ts_stat's query text.
 */
export async function adjustLexemes(tx: Executor, orgId: number, projectId: number, submissionId: number, sign: 1 | -1) {
  const inner = `select tsv from chunks where organization_id = ${Number(orgId)} and submission_id = ${Number(submissionId)}`;
  await tx.execute(
    sql.raw(`insert into chunk_lexemes (organization_id, project_id, lexeme, ndoc)
      select ${Number(orgId)}, ${Number(projectId)}, word, ${sign} * ndoc from ts_stat('${inner}')
      on conflict (organization_id, project_id, lexeme) do update set ndoc = chunk_lexemes.ndoc + excluded.ndoc`),
  );
  if (sign < 0) await tx.execute(sql`delete from chunk_lexemes where organization_id = ${orgId} and project_id = ${projectId} and ndoc <= 0`);
}

/**
 * The indexing job: uploaded → indexing → indexed (or failed with the reason). Chunks are written
 * in batches, each its own transaction, with progress on the submission for the client's bar.
 */
export async function indexSubmission(db: Db, orgId: number, submissionId: number): Promise<void> {
  const scope = { orgId, userId: null };
  const sub = await withTenant(db, scope, async (tx) => {
    const [s] = await tx.select().from(submissions).where(and(eq(submissions.organization_id, orgId), eq(submissions.id, submissionId)));
    if (!s) return null;
    await tx.update(submissions).set({ status: 'indexing', progress: 5, error: null, updated_at: new Date() }).where(eq(submissions.id, submissionId));
    if (s.status === 'indexed') await adjustLexemes(tx, orgId, s.project_id, submissionId, -1);
    await tx.delete(chunks).where(and(eq(chunks.organization_id, orgId), eq(chunks.submission_id, submissionId)));
    return s;
  });
  if (!sub) return;
  const report = (status: SubmissionStatus, progress: number, error: string | null, chunk_count = 0) =>
    submissionEvents.emit('status', { orgId, projectId: sub.project_id, submission_id: submissionId, status, progress, error, chunk_count } satisfies SubmissionStatusEvent);
  report('indexing', 5, null);
  try {
    const kind = kindOf(sub);
    const content = sub.content ?? Buffer.alloc(0);
    const sections = kind === 'markdown' && sub.kind === 'text' ? markdownSections(content.toString('utf8')) : await extract(kind, content);
    const parts = chunkSections(sections);
    if (!parts.length) throw new ExtractError('No text could be found in this file.');
    for (let i = 0; i < parts.length; i += BATCH) {
      const batch = parts.slice(i, i + BATCH);
      const progress = Math.min(99, 10 + Math.round((90 * (i + batch.length)) / parts.length));
      await withTenant(db, scope, async (tx) => {
        await tx.insert(chunks).values(
          batch.map((c, j) => ({ organization_id: orgId, project_id: sub.project_id, submission_id: submissionId, ordinal: i + j, text: c.text, place: c.place, sensitivity_level: sub.sensitivity_level })),
        );
        await tx.update(submissions).set({ progress }).where(eq(submissions.id, submissionId));
      });
      report('indexing', progress, null);
    }
    await withTenant(db, scope, async (tx) => {
      await adjustLexemes(tx, orgId, sub.project_id, submissionId, 1);
      await tx.update(submissions).set({ status: 'indexed', progress: 100, chunk_count: parts.length, indexed_at: new Date(), updated_at: new Date() }).where(eq(submissions.id, submissionId));
    });
    report('indexed', 100, null, parts.length);
  } catch (err) {
    const reason = err instanceof ExtractError ? err.message : `Indexing failed: ${(err as Error).message}`;
    await withTenant(db, scope, async (tx) => {
      await tx.delete(chunks).where(and(eq(chunks.organization_id, orgId), eq(chunks.submission_id, submissionId)));
      await tx.update(submissions).set({ status: 'failed', progress: 0, error: reason, updated_at: new Date() }).where(eq(submissions.id, submissionId));
    });
    report('failed', 0, reason);
  }
}

/** Public fields of a submission (never its raw content). */
export const submissionColumns = {
  id: submissions.id,
  project_id: submissions.project_id,
  eccs_project_id: submissions.eccs_project_id,
  kind: submissions.kind,
  title: submissions.title,
  fileName: submissions.file_name,
  fileType: submissions.file_type,
  source_url: submissions.source_url,
  size_bytes: submissions.size_bytes,
  sensitivityLevel: submissions.sensitivity_level,
  status: submissions.status,
  progress: submissions.progress,
  error: submissions.error,
  chunk_count: submissions.chunk_count,
  created_at: submissions.created_at,
  indexed_at: submissions.indexed_at,
};

