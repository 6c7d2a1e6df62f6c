import { EventEmitter } from 'node:events';
import { and, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { Db, Executor } from '../core/db/client.js';
import { anonymousProjects, submissionParts, submissions, type SensitivityLevel, type SubmissionKind, type SubmissionStatus } from './tables.js';
import { projects } from '../core/db/projects.js';
import { notVisitorsProject } from '../projects/resources.js';
import { withTenant } from '../core/db/tenant.js';
import { chunkSections, type Chunk } from './chunk.js';
import { ExtractError, extract, fileKind, sectionStream, streamSections, SUPPORTED_FILES, type FileKind, type Section } from './extract.js';
import { filesInProject } from './limits.js';
import { formatBytes, type Limits } from '../billing/limits.js';
import { relaxed, rowsOf } from '../core/db/client.js';
import { SubmitError } from './submit-error.js';
import { fetchYoutubeTranscript, youtubeTitle } from './youtube.js';
import { NUL_MESSAGE } from '../core/input.js';

export const INDEX_JOB = 'ai.index-submission';

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
  const [project] = await tx
    .select({ id: projects.id })
    .from(projects)
    // A member's or a key's upload never goes into a visitor's project.
    .where(and(eq(projects.organization_id, who.orgId), eq(projects.id, projectId), who.sessionId === null ? notVisitorsProject(who.orgId) : undefined));
  if (!project) throw new SubmitError(`Project '${projectId}' could not be found.`, ['project_id']);
  if (who.sessionId !== null) {
    const [own] = await tx
      .select({ id: anonymousProjects.project_id })
      .from(anonymousProjects)
      .where(
        and(eq(anonymousProjects.organization_id, who.orgId), eq(anonymousProjects.project_id, projectId), eq(anonymousProjects.session_id, who.sessionId)),
      );
    if (!own) throw new SubmitError(`Project '${projectId}' could not be found.`, ['project_id']);
  }
}

/** The checks that need no bytes: texts without NUL, a file kind Firewatch reads. */
function checkInput(input: Omit<SubmitInput, 'content'>, textHasNul: boolean) {
  // PostgreSQL text cannot hold NUL (22021); a typed text is checked too, a file's bytes are not.
  const texts: [string, unknown][] = [
    ['text', textHasNul ? '\u0000' : ''],
    ['title', input.title],
    ['fileName', input.fileName],
    ['fileType', input.fileType],
    ['eccs_project_id', input.eccsProjectId],
    ['url', input.sourceUrl],
  ];
  for (const [field, value] of texts) if (typeof value === 'string' && value.includes('\u0000')) throw new SubmitError(NUL_MESSAGE, [field]);
  if (input.kind === 'file' && !fileKind(input.fileName ?? '', input.fileType)) {
    throw new SubmitError(`Unsupported file type '${input.fileName}'. Upload ${SUPPORTED_FILES}.`, ['fileName']);
  }
}

const tooLarge = (bytes: number, limits: Limits) =>
  new SubmitError(`File too large: ${formatBytes(bytes)}; your plan allows ${formatBytes(limits.max_file_bytes)} per file.`, ['fileContent'], 413);

/** The project exists (and is the caller's, for a visitor) and has room for one more file. */
async function checkRoom(tx: Executor, who: Submitter, limits: Limits, projectId: number) {
  // Both lookups go out together (one round trip).
  const [, files] = await Promise.all([checkProject(tx, who, projectId), filesInProject(tx, who.orgId, projectId)]);
  if (files >= limits.files_per_project) {
    throw new SubmitError(`File limit reached: your plan allows ${limits.files_per_project} files per project.`, ['project_id']);
  }
}

/** A file is written to the database in parts of this size, so no more of it is held at once. */
export const UPLOAD_PART_BYTES = 1024 * 1024;

type Stored = { id: number; status: SubmissionStatus; size_bytes: number };

/** A part's bytes as a parameter: base64 text decoded by the database (the drivers send bytea as hex, twice the size). */
const partValue = (part: Uint8Array) => sql`decode(${Buffer.from(part.buffer, part.byteOffset, part.byteLength).toString('base64')}, 'base64')`;

/** Writes one stored part of a submission (submission_parts). */
export function insertPart(tx: Executor, orgId: number, submissionId: number, seq: number, part: Uint8Array) {
  return tx.execute(
    sql`insert into submission_parts (organization_id, submission_id, seq, data) values (${orgId}::int, ${submissionId}::int, ${seq}::int, ${partValue(part)})`,
  );
}

/**
 * Inserts a submission whose content comes in parts, stored as parts (submission_parts) as they
 * arrive: the row with its first part in one statement, then a statement per part, awaiting each
 * write before reading on (a slow database slows the sender, not memory). Neither the process nor
 * the database ever holds more than a part of the file at once, whatever its size. `onBytes` sees
 * the running size (to refuse a file over the plan's size as soon as it passes it).
 */
async function insertInParts(
  tx: Executor,
  who: Submitter,
  input: Omit<SubmitInput, 'content'>,
  parts: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  onBytes: (size: number) => void = () => {},
): Promise<Stored> {
  let size = 0;
  let seq = 0;
  let stored: { id: number; status: SubmissionStatus } | null = null;
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  const insertRow = async (first: Uint8Array | null) => {
    const row = sql`
      insert into submissions (organization_id, project_id, eccs_project_id, kind, title, file_name, file_type, source_url, size_bytes,
        sensitivity_level, created_by, anonymous_session_id)
      values (${who.orgId}::int, ${input.projectId}::int, ${input.eccsProjectId ?? null}, ${input.kind}, ${input.title.slice(0, 300)}, ${input.fileName ?? null},
        ${input.fileType ?? null}, ${input.sourceUrl ?? null}, ${size}::int, ${input.sensitivityLevel}, ${who.userId}::int, ${who.sessionId}::int)
      returning id, status`;
    const [made] = rowsOf<{ id: number; status: SubmissionStatus }>(
      await tx.execute(
        first
          ? sql`with s as (${row}), p as (insert into submission_parts (organization_id, submission_id, seq, data) select ${who.orgId}::int, s.id, 0, ${partValue(first)} from s) select id, status from s`
          : row,
      ),
    );
    return { id: Number(made!.id), status: made!.status };
  };
  const flush = async () => {
    if (!heldBytes) return;
    const part = held.length === 1 ? held[0]! : Buffer.concat(held, heldBytes);
    held = [];
    heldBytes = 0;
    if (stored) await insertPart(tx, who.orgId, stored.id, seq, part);
    else stored = await insertRow(part);
    seq++;
  };
  for await (const piece of parts) {
    size += piece.length;
    onBytes(size);
    held.push(piece);
    heldBytes += piece.length;
    if (heldBytes >= UPLOAD_PART_BYTES) await flush();
  }
  if (size === 0 && !(input.kind === 'video_transcript' && input.sourceUrl)) throw new SubmitError('The file is empty.', ['fileContent']);
  const whole = seq === 0;
  await flush();
  // A link-only transcript has no part yet (indexing fetches and stores it).
  stored ??= await insertRow(null);
  // A file of several parts got its row with the first part, before its size was known.
  if (!whole) await tx.execute(sql`update submissions set size_bytes = ${size}::int where organization_id = ${who.orgId}::int and id = ${stored.id}::int`);
  return { ...stored, size_bytes: size };
}

/** A buffer's parts of UPLOAD_PART_BYTES, as views (no copy). */
function* partsOf(content: Buffer) {
  for (let at = 0; at < content.length; at += UPLOAD_PART_BYTES) yield content.subarray(at, at + UPLOAD_PART_BYTES);
}

/** Stores a submission after the plan's checks; the caller enqueues indexing once this commits. */
export async function createSubmission(tx: Executor, who: Submitter, limits: Limits, input: SubmitInput): Promise<{ id: number; status: SubmissionStatus }> {
  checkInput(input, input.kind === 'text' && input.content.includes(0));
  // A video transcript may come as a link alone; indexing fetches it.
  const linkOnly = input.kind === 'video_transcript' && !!input.sourceUrl;
  if (input.content.length === 0 && !linkOnly) throw new SubmitError('The file is empty.', ['fileContent']);
  if (input.content.length > limits.max_file_bytes) throw tooLarge(input.content.length, limits);
  await checkRoom(tx, who, limits, input.projectId);
  const { content, ...meta } = input;
  const { id, status } = await insertInParts(tx, who, meta, partsOf(content));
  return { id, status };
}

/**
 * Stores a file read from a stream (an HTTP request body) without holding it whole (insertInParts).
 * A file over the plan's size is refused as soon as its bytes pass the limit (or at once, from
 * `declaredBytes`).
 */
export async function createSubmissionFromStream(
  tx: Executor,
  who: Submitter,
  limits: Limits,
  input: Omit<SubmitInput, 'content' | 'kind'>,
  body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  declaredBytes?: number,
): Promise<Stored> {
  checkInput({ ...input, kind: 'file' }, false);
  if (declaredBytes !== undefined && declaredBytes > limits.max_file_bytes) throw tooLarge(declaredBytes, limits);
  await checkRoom(tx, who, limits, input.projectId);
  return insertInParts(tx, who, { ...input, kind: 'file' }, body, (size) => {
    if (size > limits.max_file_bytes) throw tooLarge(size, limits);
  });
}

/** The extractor for a stored submission: text is Markdown-aware, transcripts are caption files. */
function kindOf(s: { kind: SubmissionKind; file_name: string | null; file_type: string | null }): FileKind {
  if (s.kind === 'text') return 'markdown';
  if (s.kind === 'video_transcript') return fileKind(s.file_name ?? '', s.file_type) === 'srt' ? 'srt' : 'vtt';
  return fileKind(s.file_name ?? '', s.file_type) ?? 'text';
}

/**
 * Removes a submission's chunks and takes them off the project's lexeme counts, if they were counted
 * (`lexemes_counted`: a half-written index was not). Lexemes are locked in order, so concurrent writers
 * of one project wait for each other instead of deadlocking.
 */
export async function removeChunks(tx: Executor, orgId: number, projectId: number, submissionId: number) {
  await dropEmptyLexemes(tx, orgId, projectId, await takeOffChunks(tx, orgId, projectId, submissionId));
}

/**
 * Deletes the chunks and lowers their lexemes' counts if they were counted; answers the lexemes whose
 * count reached zero. Locks the submission's row first, so two runs of one index take turns.
 */
async function takeOffChunks(tx: Executor, orgId: number, projectId: number, submissionId: number): Promise<string[]> {
  const rows = rowsOf<{ lexeme: string; ndoc: number }>(
    await tx.execute(sql`
      with counted as (select lexemes_counted as yes from submissions where organization_id = ${orgId} and id = ${submissionId} for update),
      gone as (delete from chunks where organization_id = ${orgId} and submission_id = ${submissionId} returning tsv),
      counts as (select lexeme, count(*)::int as n from gone, unnest(tsvector_to_array(gone.tsv)) as lexeme where (select yes from counted) group by lexeme)
      update chunk_lexemes l set ndoc = l.ndoc - counts.n
      from (select * from counts order by lexeme) counts
      where l.organization_id = ${orgId} and l.project_id = ${projectId} and l.lexeme = counts.lexeme
      returning l.lexeme, l.ndoc`),
  );
  return rows.filter((r) => Number(r.ndoc) <= 0).map((r) => r.lexeme);
}

/** Lexemes no chunk holds any more (a re-index may have counted some again since: the condition checks). */
async function dropEmptyLexemes(tx: Executor, orgId: number, projectId: number, lexemes: string[]) {
  if (!lexemes.length) return;
  await tx.execute(sql`delete from chunk_lexemes where organization_id = ${orgId} and project_id = ${projectId} and ndoc <= 0
    and lexeme in (select json_array_elements_text(${JSON.stringify(lexemes)}::json))`);
}

/**
 * A stored submission's bytes, a part at a time in order, each part read in a transaction of its
 * own (an indexer reading a 100 MB file holds no snapshot open for minutes, nor more than a part).
 */
export async function* storedContent(db: Db, orgId: number, submissionId: number): AsyncGenerator<Uint8Array> {
  for (let seq = 0; ; seq++) {
    const [row] = rowsOf<{ data: Uint8Array }>(
      await withTenant(
        db,
        { orgId, userId: null },
        (tx) =>
          tx.execute(
            sql`select data from submission_parts where organization_id = ${orgId}::int and submission_id = ${submissionId}::int and seq = ${seq}::int`,
          ),
        { readOnly: true },
      ),
    );
    if (!row) return;
    yield row.data;
  }
}

/** The submission whose chunks are written. */
type IndexTarget = { organization_id: number; project_id: number; id: number; sensitivity_level: SensitivityLevel };

/**
 * One statement per batch: the rows travel as one JSON parameter and PostgreSQL builds each tsvector
 * (the generated column). A file of one batch adds its lexemes to the project's counts in the same
 * statement, from the returned vectors; a larger one counts them once, at its end (countLexemes).
 */
function insertChunks(tx: Executor, sub: IndexTarget, first: number, batch: Chunk[], count: boolean) {
  const rows = JSON.stringify(batch.map((c, j) => ({ o: first + j, t: c.text, p: c.place })));
  const insert = sql`
      insert into chunks (organization_id, project_id, submission_id, ordinal, text, place, sensitivity_level)
      select ${sub.organization_id}::int, ${sub.project_id}::int, ${sub.id}::int, r.o, r.t, r.p, ${sub.sensitivity_level}
      from json_to_recordset(${rows}::json) as r(o int, t text, p jsonb)`;
  if (!count) return tx.execute(insert);
  return tx.execute(sql`
    with ins as (
${insert}
      returning tsv
    )
    insert into chunk_lexemes (organization_id, project_id, lexeme, ndoc)
    select ${sub.organization_id}::int, ${sub.project_id}::int, lexeme, count(*)::int from ins, unnest(tsvector_to_array(ins.tsv)) as lexeme group by lexeme order by lexeme
    on conflict (organization_id, project_id, lexeme) do update set ndoc = chunk_lexemes.ndoc + excluded.ndoc`);
}

/**
 * Adds every chunk of a submission written in several batches to the project's lexeme counts, once,
 * in the transaction of its last batch (unless they were counted already). Batch by batch, the
 * upserts cost about a quarter of PostgreSQL's CPU for a large file (bench/README.md, `ingest`), and
 * parallel batches locked the same lexeme rows.
 */
function countLexemes(tx: Executor, sub: IndexTarget) {
  return tx.execute(sql`
    insert into chunk_lexemes (organization_id, project_id, lexeme, ndoc)
    select ${sub.organization_id}::int, ${sub.project_id}::int, lexeme, count(*)::int
    from chunks c, unnest(tsvector_to_array(c.tsv)) as lexeme
    where c.organization_id = ${sub.organization_id} and c.submission_id = ${sub.id}
      and not (select lexemes_counted from submissions where organization_id = ${sub.organization_id} and id = ${sub.id})
    group by lexeme order by lexeme
    on conflict (organization_id, project_id, lexeme) do update set ndoc = chunk_lexemes.ndoc + excluded.ndoc`);
}

/*
 * Index writes commit relaxed (client.ts), not waiting for the disk: indexing can run again, and what runs it
 * later commits synchronously (the job queue marking the job done, the next upload), which flushes
 * the log up to there, this commit included; a crash before that loses at most a batch whose job is
 * then run again. A small file's index is one commit, and waiting for its flush took about as long
 * as writing it (bench/README.md, `ingest`).
 */

/**
 * Chunks are written in batches of about this much text (or BATCH_ROWS rows), each batch one
 * transaction and one statement, so a large file shows progress and a small one costs one commit.
 * Building the tsvector is PostgreSQL's work (most of the time), so the middle batches of a large
 * file go PARALLEL at a time over separate connections.
 */
const BATCH_BYTES = 256 * 1024;
const BATCH_ROWS = 1000;
const PARALLEL = 2;
export interface IndexOptions {
  /** Where a link-only video transcript is fetched from (config YOUTUBE_BASE_URL) and how long to wait. */
  youtube?: { baseUrl: string; timeoutMs: number };
}

// The stored file is in submission_parts, read a part at a time.
const metaColumns = getTableColumns(submissions);
const ofSubmission = (p: typeof submissionParts) => and(eq(p.organization_id, submissions.organization_id), eq(p.submission_id, submissions.id));

/**
 * The indexing job: uploaded → indexing → indexed (or failed with the reason). A video transcript
 * given as a YouTube link is fetched here first and stored, so a re-index needs no network. The
 * first batch's transaction also clears an earlier index and the last one marks the submission
 * indexed: a small file costs one write transaction. Progress follows the bytes read.
 */
export async function indexSubmission(db: Db, orgId: number, submissionId: number, opts: IndexOptions = {}): Promise<void> {
  const scope = { orgId, userId: null };
  const where = and(eq(submissions.organization_id, orgId), eq(submissions.id, submissionId));
  const sub = await loadForIndexing(db, scope, where);
  if (!sub) return;
  const report = (status: SubmissionStatus, progress: number, error: string | null, chunk_count = 0) =>
    submissionEvents.emit('status', {
      orgId,
      projectId: sub.project_id,
      submission_id: submissionId,
      status,
      progress,
      error,
      chunk_count,
    } satisfies SubmissionStatusEvent);
  report('indexing', 5, null);
  const run: IndexRun = { db, orgId, submissionId, scope, where, sub, report, fetched: {}, fetchedContent: null, size: 0, read: 0, inflight: new Set() };
  try {
    await fetchTranscript(run, opts);
    const kind = kindOf({ ...sub, ...run.fetched });
    run.size = run.fetchedContent?.length ?? sub.stored;
    await writeChunks(run, sectionsOf(run, kind));
  } catch (err) {
    await markFailed(run, err);
  }
}

/** The submission's columns, its stored size, and (for a file of one part) its bytes. */
async function loadForIndexing(db: Db, scope: { orgId: number; userId: null }, where: SQL | undefined) {
  const [sub] = await withTenant(
    db,
    scope,
    (tx) =>
      tx
        .select({
          ...metaColumns,
          // octet_length of a stored value reads its size, not its bytes.
          stored: sql<number>`coalesce((select sum(octet_length(${submissionParts.data})) from ${submissionParts} where ${ofSubmission(submissionParts)}), 0)::int`,
          // A file of one part comes with its metadata: one read instead of two.
          whole: sql<Uint8Array | null>`(select ${submissionParts.data} from ${submissionParts} where ${ofSubmission(submissionParts)} and ${submissionParts.seq} = 0
            and not exists (select 1 from ${submissionParts} q where q.organization_id = ${submissions.organization_id} and q.submission_id = ${submissions.id} and q.seq = 1))`,
        })
        .from(submissions)
        .where(where),
    { readOnly: true },
  );
  return sub;
}

/** One indexing run: the submission, what was fetched for it, how far its bytes are read, its batches in flight, and how it reports. */
interface IndexRun {
  db: Db;
  orgId: number;
  submissionId: number;
  scope: { orgId: number; userId: null };
  where: SQL | undefined;
  sub: NonNullable<Awaited<ReturnType<typeof loadForIndexing>>>;
  report: (status: SubmissionStatus, progress: number, error: string | null, chunk_count?: number) => void;
  /** A fetched transcript's columns, written with the first batch. */
  fetched: { size_bytes?: number; file_name?: string; title?: string };
  /** A fetched transcript's bytes (stored as parts with the first batch). */
  fetchedContent: Buffer | null;
  size: number;
  read: number;
  inflight: Set<Promise<void>>;
}

/** A video transcript given as a YouTube link and not stored yet: its captions fetched. */
async function fetchTranscript(run: IndexRun, opts: IndexOptions) {
  const { sub } = run;
  if (!(sub.kind === 'video_transcript' && !sub.stored && sub.source_url)) return;
  if (!opts.youtube) throw new ExtractError('This transcript has to be fetched from its link, which this process cannot do.');
  const video = await fetchYoutubeTranscript(opts.youtube.baseUrl, sub.source_url, opts.youtube.timeoutMs);
  const content = Buffer.from(video.vtt, 'utf8');
  run.fetchedContent = content;
  run.fetched = {
    size_bytes: content.length,
    file_name: `${video.id}.vtt`,
    title: sub.title === youtubeTitle(video.id) ? video.title.slice(0, 300) : sub.title,
  };
  run.report('indexing', 10, null);
}

/** The submission's sections: streamed from its stored parts when its kind streams, else extracted from the whole file. */
function sectionsOf(run: IndexRun, kind: ReturnType<typeof kindOf>): AsyncIterable<Section[]> {
  const { db, orgId, submissionId, sub, fetchedContent } = run;
  const windows = async function* () {
    if (sub.whole?.length) {
      run.read = sub.whole.length;
      yield sub.whole;
      return;
    }
    for await (const part of storedContent(db, orgId, submissionId)) {
      run.read += part.length;
      yield part;
    }
  };
  const stream = fetchedContent ? null : sectionStream(kind);
  // A typed text is Markdown but not checked for binary content: its characters were checked on submission.
  return stream
    ? streamSections(stream, windows(), { checkText: sub.kind !== 'text' })
    : (async function* () {
        const parts: Uint8Array[] = [];
        if (fetchedContent) parts.push(fetchedContent);
        else for await (const part of windows()) parts.push(part);
        const whole = Buffer.concat(parts);
        parts.length = 0;
        run.read = run.size;
        yield await extract(kind, whole);
      })();
}

/**
 * The sections' chunks written in batches of BATCH_BYTES or BATCH_ROWS: the first batch alone (it
 * clears an earlier index), the middle ones PARALLEL at a time, the last one (which marks the
 * submission indexed) after them all.
 */
async function writeChunks(run: IndexRun, source: AsyncIterable<Section[]>) {
  const { inflight } = run;
  let written = 0;
  let pending: Chunk[] = [];
  let pendingBytes = 0;
  const emit = async (last: boolean) => {
    const rows = pending;
    const first = written;
    pending = [];
    pendingBytes = 0;
    written += rows.length;
    if (first === 0 || last) {
      await Promise.all(inflight);
      return writeBatch(run, first, rows, last);
    }
    const job: Promise<void> = writeBatch(run, first, rows, false).finally(() => inflight.delete(job));
    inflight.add(job);
    if (inflight.size >= PARALLEL) await Promise.race(inflight);
  };
  for await (const sections of source) {
    for (const c of chunkSections(sections)) {
      if (pending.length && (pendingBytes + c.text.length > BATCH_BYTES || pending.length >= BATCH_ROWS)) await emit(false);
      pending.push(c);
      pendingBytes += c.text.length;
    }
  }
  if (!written && !pending.length) throw new ExtractError('No text could be found in this file.');
  await emit(true);
}

/** One batch of chunks in one transaction, with the submission's progress (or, for the last, its being indexed). */
async function writeBatch(run: IndexRun, first: number, rows: Chunk[], last: boolean) {
  const { db, orgId, submissionId, scope, where, sub, fetched, fetchedContent } = run;
  const total = first + rows.length;
  const set = last
    ? { status: 'indexed' as const, progress: 100, error: null, chunk_count: total, indexed_at: new Date(), updated_at: new Date() }
    : { status: 'indexing' as const, progress: Math.min(99, 10 + Math.round((89 * run.read) / Math.max(run.size, 1))), error: null };
  await withTenant(db, scope, async (tx) => {
    // Each batch's statements go together (one round trip), in this order. The submission's row is
    // updated after the chunks are in: its lock is held to the commit, and parallel batches taking
    // it first would write one after the other.
    const update = (counted?: boolean) =>
      tx
        .update(submissions)
        .set({ ...set, ...(first === 0 ? fetched : {}), ...(counted === undefined ? {} : { lexemes_counted: counted }) })
        .where(where);
    if (first > 0 && !last) return void (await Promise.all([relaxed(tx), insertChunks(tx, sub, first, rows, false), update()]));
    if (first > 0)
      return void (await Promise.all([relaxed(tx), rows.length ? insertChunks(tx, sub, first, rows, false) : null, countLexemes(tx, sub), update(true)]));
    // The first batch also clears an earlier index (its statement locks the submission's row, so
    // a second run for the same submission waits for this one). A file of one batch is counted
    // as it is written, a larger one by its last batch.
    const [, emptied] = await Promise.all([
      relaxed(tx),
      takeOffChunks(tx, orgId, sub.project_id, submissionId),
      insertChunks(tx, sub, first, rows, last),
      update(last),
    ]);
    await dropEmptyLexemes(tx, orgId, sub.project_id, emptied);
    // A fetched transcript is stored with its first batch (the row is locked by now), so a re-index needs no network.
    if (fetchedContent) {
      await tx.execute(sql`delete from submission_parts where organization_id = ${orgId}::int and submission_id = ${submissionId}::int`);
      let seq = 0;
      for (const part of partsOf(fetchedContent)) await insertPart(tx, orgId, submissionId, seq++, part);
    }
  });
  run.report(set.status, set.progress, null, last ? total : 0);
}

/** A run that failed: its batches settled, its chunks removed, and the submission failed with the reason. */
async function markFailed(run: IndexRun, err: unknown) {
  const { db, orgId, submissionId, scope, where, sub } = run;
  await Promise.allSettled(run.inflight);
  const reason = err instanceof ExtractError || err instanceof SubmitError ? err.message : `Indexing failed: ${(err as Error).message}`;
  await withTenant(db, scope, async (tx) => {
    await removeChunks(tx, orgId, sub.project_id, submissionId);
    await tx.update(submissions).set({ status: 'failed', progress: 0, error: reason, chunk_count: 0, updated_at: new Date() }).where(where);
  });
  run.report('failed', 0, reason);
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
