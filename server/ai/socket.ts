import { and, desc, eq, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { findAnonymousSession, NO_SESSION } from './anonymous.js';
import { hitAnonymousLimit } from './anonymous-limits.js';
import { accessOf, ask, giveFeedback, likedInProcessing } from './chat.js';
import { objectContent } from './content.js';
import { likedEvents, queueLiked, type LikedStatusEvent } from './liked.js';
import { checkProject, createSubmission, submissionColumns, submissionEvents, type SubmissionStatusEvent, type SubmitInput } from './ingest.js';
import { messagesToday } from './limits.js';
import { limitsFor, UNAUTHENTICATED_FRAME_BYTES, frameBytesFor } from '../billing/limits.js';
import { allowedLevels } from './retrieve.js';
import { youtubeId, youtubeTitle } from './youtube.js';
import { memberships } from '../core/db/tables.js';
import { SENSITIVITY_LEVELS, submissions } from './tables.js';
import { withTenant } from '../core/db/tenant.js';
import { HttpError, SERVER_ERROR_MESSAGE, type DetailItem } from '../core/errors.js';
import type { Queue } from '../core/jobs/queue.js';
import { API_KEY_PREFIX, type Actor } from '../core/context.js';
import { findApiKey } from '../core/api-keys.js';
import { SubmitError } from './submit-error.js';
import { DEPTH_MESSAGE, DEPTH_TYPE, scanJson } from '../core/json-limits.js';
import { useSocketTicket } from '../core/sessions.js';
import { runInTenant } from '../core/tenancy.js';
import { wakeQueued } from '../core/jobs/define.js';
import { queueIndex } from './jobs.js';
import { loadCase } from '../cases/scope.js';
import { loadIncident } from '../incidents/scope.js';
import type { LiveChange } from '../live/changes.js';

const id = z.union([z.string().max(100), z.number()]);
const projectId = z.number().int().positive().max(2147483647);
const sensitivity = z.enum(SENSITIVITY_LEVELS).default('internal');

/** Every message a client may send, by type (spec §7 plus chat, text and video submissions, feedback). */
const messages = {
  fetch_limits: z.strictObject({}).default({}),
  fetch_submissions: z.strictObject({ project_id: projectId }),
  file_upload: z.strictObject({
    fileName: z.string().min(1).max(300),
    fileType: z.string().max(200).optional().nullable(),
    fileContent: z.string().min(1),
    buildIndex: z.boolean().default(true),
    project_id: projectId,
    eccs_project_id: z.union([z.string(), z.number()]).nullish(),
    sensitivityLevel: sensitivity,
  }),
  text_submission: z.strictObject({
    title: z.string().max(300).optional(),
    text: z.string().min(1, 'This field is required').max(2_000_000),
    buildIndex: z.boolean().default(true),
    project_id: projectId,
    eccs_project_id: z.union([z.string(), z.number()]).nullish(),
    sensitivityLevel: sensitivity,
  }),
  video_transcript_submission: z.strictObject({
    url: z.string().url().max(2000),
    fileName: z.string().max(300).optional(),
    fileContent: z.string().optional(),
    title: z.string().max(300).optional(),
    buildIndex: z.boolean().default(true),
    project_id: projectId,
    eccs_project_id: z.union([z.string(), z.number()]).nullish(),
    sensitivityLevel: sensitivity,
  }),
  fetch_liked_messages_processing: z.strictObject({ project_id: projectId }),
  fetch_object_content: z.strictObject({
    object_type: z.enum(['chunk', 'submission']),
    object_id: z
      .union([
        z.number().int(),
        z
          .string()
          .regex(/^\d{1,10}$/)
          .transform(Number),
      ])
      .refine((n) => n >= 1 && n <= 2147483647, 'Must be a whole number from 1 to 2147483647'),
    chat_id: z.string().uuid().nullish(),
    is_shared_view: z.boolean().default(false),
  }),
  chat: z.strictObject({
    project_id: projectId.nullish(),
    chat_id: z.string().uuid().nullish(),
    text: z.string().trim().min(1, 'This field is required').max(4000),
  }),
  // The incident or case pages a client has open: each committed change of one sends a `changed` frame.
  watch: z
    .strictObject({ incident_id: projectId.optional(), case_id: projectId.optional() })
    .refine((d) => (d.incident_id === undefined) !== (d.case_id === undefined), 'Give either incident_id or case_id.'),
  unwatch: z.strictObject({ incident_id: projectId.optional(), case_id: projectId.optional() }),
  message_feedback: z.strictObject({ message_id: z.number().int().positive().max(2147483647), value: z.enum(['like', 'dislike']) }),
} as const;
type Messages = typeof messages;
type Name = keyof Messages;

const frame = z.object({ type: z.string().min(1).max(100), id: id.optional(), data: z.unknown().optional() });

/** Who is on the socket; `none` may only open shared chats' sources; an API key has Member rights, as on the API. */
type SocketCaller = Actor & { frameBytes: number };

async function authenticate(app: FastifyInstance, req: FastifyRequest): Promise<SocketCaller> {
  const orgId = req.org.id;
  const org = { orgId, orgSlug: req.org.slug, userId: null, apiKeyId: null, sessionId: null };
  const q = req.query as { ticket?: string; key?: string };
  // Scripts send their API key in the upgrade request's Authorization header; keys never go in a URL (URLs end up in logs).
  const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (bearer?.startsWith(API_KEY_PREFIX)) {
    const key = await findApiKey(app.db, orgId, bearer);
    if (key)
      return {
        ...org,
        kind: 'apikey',
        apiKeyId: key.id,
        role: 'Member',
        frameBytes: frameBytesFor(await limitsFor(app.db, app.config, orgId, false)),
      };
  }
  // A signed-in user comes with a single-use ticket (POST /auth/ws-ticket), never the session token.
  if (typeof q.ticket === 'string' && q.ticket) {
    const used = await useSocketTicket(app.db, orgId, q.ticket);
    if (used !== null) {
      const { userId, sid } = used;
      const [m] = await app.db
        .select({ role: memberships.role })
        .from(memberships)
        .where(and(eq(memberships.organization_id, orgId), eq(memberships.user_id, userId)));
      if (m)
        return {
          ...org,
          kind: 'user',
          userId,
          role: m.role,
          sid,
          frameBytes: frameBytesFor(await limitsFor(app.db, app.config, orgId, false)),
        };
    }
  }
  if (typeof q.key === 'string' && q.key) {
    const session = await findAnonymousSession(app.db, orgId, q.key);
    if (session)
      return {
        ...org,
        kind: 'anonymous',
        role: null,
        sessionId: session.id,
        frameBytes: frameBytesFor(await limitsFor(app.db, app.config, orgId, true)),
      };
  }
  return { ...org, kind: 'none', role: null, frameBytes: UNAUTHENTICATED_FRAME_BYTES };
}

/**
 * Raises this connection's frame limit above the server-wide one (sized for callers nobody has
 * authenticated). ws checks a frame's declared length against it before reading the payload, and
 * offers no public per-connection setting, so the receiver's own field is set.
 */
function allowFrames(socket: WebSocket, bytes: number) {
  const receiver = (socket as unknown as { _receiver?: { _maxPayload: number } })._receiver;
  if (receiver) receiver._maxPayload = bytes;
}

const callers = new WeakMap<FastifyRequest, SocketCaller>();

const detail = (msg: string, loc: (string | number)[] = [], type = 'value_error'): DetailItem[] => [{ msg, loc, type }];

/** One open socket: its caller, what it watches, and how it replies. The message handlers work on it. */
interface Connection {
  app: FastifyInstance;
  req: FastifyRequest;
  caller: SocketCaller;
  queue: Queue;
  /** Projects whose submissions' status this socket is sent. */
  watched: Set<number>;
  watchedIncidents: Set<number>;
  watchedCases: Set<number>;
  send: (type: string, data: unknown, replyTo?: string | number) => void;
  sendError: (d: DetailItem[], replyTo?: string | number, requestType?: string) => void;
}

/**
 * The live socket, GET /api/v1/{organization}/ws?ticket=… (from POST /auth/ws-ticket) or ?key=… (a visitor's anonymous key). Frames are JSON
 * {type, id?, data}; replies echo the id. A bad frame gets an `error` frame and the socket stays open.
 */
export function registerSocket(scope: FastifyInstance, deps: { queue: Queue }) {
  // The caller is known before the upgrade, so the connection's frame limit is set before it reads a frame.
  const preHandler = async (req: FastifyRequest) => {
    callers.set(req, await authenticate(req.server, req));
  };
  scope.get('/ws', { websocket: true, preHandler, config: { access: 'public' }, schema: { hide: true } }, (socket: WebSocket, req) => {
    const c = openConnection(socket, req, deps.queue);
    followEvents(c, socket);
    // A handler that fails unexpectedly is logged; it never becomes an unhandled rejection.
    socket.on('message', (raw: Buffer, isBinary: boolean) => {
      onMessage(c, raw, isBinary).catch((err: unknown) => {
        req.log.error({ err }, 'socket message failed');
        c.sendError(detail(SERVER_ERROR_MESSAGE, [], 'server_error'));
      });
    });
    c.send('ready', { authenticated: c.caller.kind !== 'none', kind: c.caller.kind, organization: req.org.slug, max_frame_bytes: c.caller.frameBytes });
  });
}

/** The connection of a socket just upgraded: its frame limit set and its session tracked. */
function openConnection(socket: WebSocket, req: FastifyRequest, queue: Queue): Connection {
  const app = req.server;
  const caller = callers.get(req)!;
  allowFrames(socket, caller.frameBytes);
  // Signing out, a password change elsewhere, the session running out or the key's revocation closes the socket (code 4001).
  if (caller.sid && caller.userId !== null) app.live.sessions.track(caller.sid, caller.userId, socket);
  if (caller.apiKeyId !== null) app.live.sessions.trackApiKey(caller.apiKeyId, socket);
  const send = (type: string, data: unknown, replyTo?: string | number) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(replyTo === undefined ? { type, data } : { type, id: replyTo, data }));
  };
  const sendError = (d: DetailItem[], replyTo?: string | number, requestType?: string) =>
    send('error', { detail: d, ...(requestType ? { request_type: requestType } : {}) }, replyTo);
  return { app, req, caller, queue, watched: new Set(), watchedIncidents: new Set(), watchedCases: new Set(), send, sendError };
}

/** Pushes to the socket what it follows, until it closes: its projects' submissions, its likes, and watched records. */
function followEvents(c: Connection, socket: WebSocket) {
  const { app, caller, send } = c;
  const onStatus = (e: SubmissionStatusEvent) => {
    if (e.orgId === caller.orgId && c.watched.has(e.projectId)) {
      const { orgId: _o, projectId: _p, ...rest } = e;
      send('submission_status', { ...rest, project_id: e.projectId });
    }
  };
  submissionEvents.on('status', onStatus);
  // What became of this caller's likes (curated as a Q&A, or why not).
  const onLiked = (e: LikedStatusEvent) => {
    if (e.orgId !== caller.orgId || (caller.userId === null && caller.sessionId === null)) return;
    if (e.userId === caller.userId && e.sessionId === caller.sessionId) {
      const { orgId: _o, userId: _u, sessionId: _s, projectId, ...rest } = e;
      send('liked_message_status', { ...rest, project_id: projectId });
    }
  };
  likedEvents.on('status', onLiked);
  // A change frame names the record only (the page fetches it through the API, which applies the caller's visibility).
  const onChange = (e: LiveChange) => {
    if (e.orgId !== caller.orgId) return;
    if ((e.incident_id !== null && c.watchedIncidents.has(e.incident_id)) || (e.case_id !== null && c.watchedCases.has(e.case_id)))
      send('changed', { incident_id: e.incident_id, case_id: e.case_id });
  };
  app.live.events.on('change', onChange);
  socket.on('close', () => {
    submissionEvents.off('status', onStatus);
    likedEvents.off('status', onLiked);
    app.live.events.off('change', onChange);
  });
}

const tenant = <T>({ app, caller }: Connection, fn: Parameters<typeof withTenant<T>>[2]) =>
  withTenant(app.db, { orgId: caller.orgId, userId: caller.userId }, fn);
const submitterOf = ({ caller }: Connection) => ({ orgId: caller.orgId, userId: caller.userId, sessionId: caller.sessionId });

// A visitor's uploads and chat messages count against their address and their organization.
const anonymousWrite = ({ app, caller, req }: Connection) =>
  caller.kind === 'anonymous' ? hitAnonymousLimit(app.db, app.config, 'write', caller.orgId, req.ip) : undefined;

/** Stores a submission and queues its indexing in the same transaction (the job exists exactly when the row does). */
async function submit(c: Connection, input: SubmitInput, buildIndex: boolean) {
  const { app, caller } = c;
  await anonymousWrite(c);
  // A visitor has no role; the transaction's work (the row, the job) needs none.
  const sub = await runInTenant(app.db, app.config, { ...caller, role: caller.role ?? 'Member' }, async (ctx) => {
    const made = await createSubmission(ctx.tx, submitterOf(c), await limitsFor(ctx.tx, app.config, caller.orgId, caller.kind === 'anonymous'), input);
    if (buildIndex) await queueIndex(ctx, made.id);
    return made;
  });
  // No request's answer wakes the workers here: wake them once it committed.
  if (buildIndex) wakeQueued(app.db);
  c.watched.add(input.projectId);
  return sub;
}

/** Replies to a submission message: `work`'s answer, or, when the submission is refused (a SubmitError), the `refused` answer. */
async function replySubmitted(
  c: Connection,
  type: string,
  replyTo: string | number | undefined,
  work: () => Promise<Record<string, unknown>>,
  refused: (message: string) => Record<string, unknown>,
) {
  try {
    c.send(type, await work(), replyTo);
  } catch (err) {
    if (!(err instanceof SubmitError)) throw err;
    c.send(type, refused(err.message), replyTo);
  }
}

const eccsProjectId = (d: { eccs_project_id?: string | number | null }) => (d.eccs_project_id == null ? null : String(d.eccs_project_id));

/** The caller's own submissions in a project, and those of a sensitivity level they may read (the newest 500). */
async function visibleSubmissions(c: Connection, project: number) {
  const { caller } = c;
  return tenant(c, async (tx) => {
    await checkProject(tx, submitterOf(c), project);
    const levels = allowedLevels(accessOf(caller));
    const mine =
      caller.userId !== null
        ? sql`${submissions.created_by} = ${caller.userId}`
        : caller.sessionId !== null
          ? sql`${submissions.anonymous_session_id} = ${caller.sessionId}`
          : sql`false`;
    return tx
      .select(submissionColumns)
      .from(submissions)
      .where(
        and(
          eq(submissions.organization_id, caller.orgId),
          eq(submissions.project_id, project),
          sql`(${submissions.sensitivity_level} in (${sql.join(
            levels.map((l) => sql`${l}`),
            sql`, `,
          )}) or ${mine})`,
        ),
      )
      .orderBy(desc(submissions.created_at), desc(submissions.id))
      .limit(500);
  });
}

/** A video transcript: an uploaded caption file as is, or a YouTube link whose captions the indexing job fetches. */
async function submitVideo(c: Connection, d: z.output<Messages['video_transcript_submission']>) {
  // A link's captions fetched or the reason they could not be reaches the socket as submission_status.
  const videoId = youtubeId(d.url);
  if (!d.fileContent && !videoId)
    throw new SubmitError(`'${d.url}' is not a YouTube video link. Give a YouTube link or upload the caption file (WebVTT or SRT).`, ['url']);
  const fileName = d.fileContent ? (d.fileName ?? 'captions.vtt') : `${videoId}.vtt`;
  const title = d.title?.trim() || (d.fileContent ? fileName : youtubeTitle(videoId!));
  const content = d.fileContent ? Buffer.from(d.fileContent, 'base64') : Buffer.alloc(0);
  const sub = await submit(
    c,
    {
      kind: 'video_transcript',
      projectId: d.project_id,
      eccsProjectId: eccsProjectId(d),
      title,
      fileName,
      fileType: null,
      sourceUrl: d.url,
      content,
      sensitivityLevel: d.sensitivityLevel,
    },
    d.buildIndex,
  );
  const message = d.fileContent
    ? 'Transcript submitted.'
    : d.buildIndex
      ? 'Transcript link received; its captions are being fetched.'
      : 'Transcript link saved; its captions are fetched when it is indexed.';
  return { status: 'success', submission_id: sub.id, message };
}

/** What each message type does: its parsed data in, its reply frames out. */
const handlers: { [K in Name]: (c: Connection, data: z.output<Messages[K]>, replyTo?: string | number) => Promise<void> } = {
  async fetch_limits(c, _d, replyTo) {
    const { app, caller } = c;
    const data = await tenant(c, async (tx) => ({
      ...(await limitsFor(tx, app.config, caller.orgId, caller.kind === 'anonymous')),
      messages_today: await messagesToday(tx, caller.orgId, { userId: caller.userId, sessionId: caller.sessionId }),
      model: app.config.AI_MODEL && app.config.AI_BASE_URL ? app.config.AI_MODEL : null,
    }));
    c.send('limits', data, replyTo);
  },
  async fetch_submissions(c, d, replyTo) {
    const items = await visibleSubmissions(c, d.project_id);
    c.watched.add(d.project_id);
    c.send('submissions', { project_id: d.project_id, items }, replyTo);
  },
  async file_upload(c, d, replyTo) {
    const content = Buffer.from(d.fileContent, 'base64');
    await replySubmitted(
      c,
      'submit_file_response',
      replyTo,
      async () => {
        const sub = await submit(
          c,
          {
            kind: 'file',
            projectId: d.project_id,
            eccsProjectId: eccsProjectId(d),
            title: d.fileName,
            fileName: d.fileName,
            fileType: d.fileType ?? null,
            content,
            sensitivityLevel: d.sensitivityLevel,
          },
          d.buildIndex,
        );
        return {
          status: 'success',
          submission_id: sub.id,
          fileName: d.fileName,
          submission_status: sub.status,
          message: d.buildIndex ? 'File uploaded; indexing has started.' : 'File uploaded.',
        };
      },
      (message) => ({ status: 'error', submission_id: null, fileName: d.fileName, message: `Upload failed: ${message}` }),
    );
  },
  async text_submission(c, d, replyTo) {
    await replySubmitted(
      c,
      'submit_text_response',
      replyTo,
      async () => {
        const title = d.title?.trim() || d.text.replace(/\s+/g, ' ').trim().slice(0, 60);
        const sub = await submit(
          c,
          {
            kind: 'text',
            projectId: d.project_id,
            eccsProjectId: eccsProjectId(d),
            title,
            content: Buffer.from(d.text, 'utf8'),
            sensitivityLevel: d.sensitivityLevel,
          },
          d.buildIndex,
        );
        return { status: 'success', submission_id: sub.id, message: 'Text submitted.' };
      },
      (message) => ({ status: 'error', submission_id: null, message: `Submission failed. ${message}` }),
    );
  },
  async video_transcript_submission(c, d, replyTo) {
    await replySubmitted(
      c,
      'submit_video_response',
      replyTo,
      () => submitVideo(c, d),
      (message) => ({ status: 'error', submission_id: null, message: `Submission failed. ${message}` }),
    );
  },
  async fetch_liked_messages_processing(c, d, replyTo) {
    const list = await tenant(c, async (tx) => {
      await checkProject(tx, submitterOf(c), d.project_id);
      return likedInProcessing(tx, c.caller.orgId, d.project_id);
    });
    c.send('liked_messages_processing', { project_id: d.project_id, messages: list }, replyTo);
  },
  async fetch_object_content(c, d, replyTo) {
    const { caller } = c;
    const content = await tenant(c, (tx) => objectContent(tx, caller.kind === 'none' ? null : caller, caller.orgId, d));
    c.send('object_content', content, replyTo);
  },
  async chat(c, d, replyTo) {
    const { app, send } = c;
    await anonymousWrite(c);
    const result = await ask(app.db, app.config, c.caller, d, {
      sources: (data) => send('chat_sources', data, replyTo),
      token: (data) => send('chat_token', data, replyTo),
      reset: (data) => send('chat_reset', data, replyTo),
    });
    send(
      'chat_done',
      {
        chat_id: result.chat_id,
        message_id: result.message_id,
        answer: result.answer,
        sources: result.sources,
        answered_by: result.answered_by,
        notice: result.notice,
      },
      replyTo,
    );
  },
  async watch(c, d, replyTo) {
    const { app, caller } = c;
    if (caller.role === null) return c.sendError(detail(NO_SESSION, [], 'no_session'), replyTo, 'watch');
    const role = caller.role;
    // Only a record the caller may see can be watched (another organization's or a hidden one is a 404).
    await runInTenant(app.db, app.config, { ...caller, role }, async (ctx) => {
      if (d.incident_id !== undefined) await loadIncident(ctx, d.incident_id);
      if (d.case_id !== undefined) await loadCase(ctx, d.case_id);
    });
    if (d.incident_id !== undefined) c.watchedIncidents.add(d.incident_id);
    if (d.case_id !== undefined) c.watchedCases.add(d.case_id);
    c.send('watching', { incident_id: d.incident_id ?? null, case_id: d.case_id ?? null }, replyTo);
  },
  async unwatch(c, d, replyTo) {
    if (d.incident_id !== undefined) c.watchedIncidents.delete(d.incident_id);
    if (d.case_id !== undefined) c.watchedCases.delete(d.case_id);
    c.send('unwatched', { incident_id: d.incident_id ?? null, case_id: d.case_id ?? null }, replyTo);
  },
  async message_feedback(c, d, replyTo) {
    const vote = await tenant(c, (tx) => giveFeedback(tx, c.caller, d.message_id, d.value));
    await queueLiked(c.queue, c.caller.orgId, vote.feedback_id);
    c.send('message_feedback_response', vote, replyTo);
  },
};

/** A message's data that fails its schema, as the detail items of an HTTP 422 (an unknown field is extra_forbidden). */
const bodyErrors = (issues: z.ZodIssue[]): DetailItem[] =>
  issues.map((i) => {
    const keys = (i as { keys?: string[] }).keys;
    return i.code === 'unrecognized_keys' && keys
      ? { msg: `Unknown field '${keys.join("', '")}'.`, loc: ['data', ...keys], type: 'extra_forbidden' }
      : { msg: i.message, loc: ['data', ...i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))], type: i.code };
  });

/** One frame: checked (text, depth, JSON, frame shape, known type, a session, the data's schema), then handled by its type. */
async function onMessage(c: Connection, raw: Buffer, isBinary: boolean): Promise<void> {
  const { caller, sendError } = c;
  if (isBinary) return sendError(detail('Binary frames are not accepted; send JSON text.', [], 'frame_invalid'));
  // The same depth limit as an HTTP body, before parsing (NUL is refused by each message's handler).
  if (scanJson(raw).tooDeep) return sendError(detail(DEPTH_MESSAGE, [], DEPTH_TYPE));
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return sendError(detail('The message is not valid JSON.', [], 'json_invalid'));
  }
  const f = frame.safeParse(parsed);
  if (!f.success) return sendError(detail('A message must be {"type": "<name>", "data": {...}}.', [], 'frame_invalid'));
  const { type, id: replyTo } = f.data;
  if (!Object.hasOwn(messages, type)) return sendError(detail(`Unknown message type '${type}'.`, ['type'], 'unknown_type'), replyTo, type);
  const name = type as Name;
  if (caller.kind === 'none' && !(name === 'fetch_object_content' && (f.data.data as { is_shared_view?: boolean } | undefined)?.is_shared_view)) {
    return sendError(detail(NO_SESSION, [], 'no_session'), replyTo, type);
  }
  const body = messages[name].safeParse(f.data.data ?? {});
  if (!body.success) return sendError(bodyErrors(body.error.issues), replyTo, type);
  try {
    await (handlers[name] as (c: Connection, d: unknown, r?: string | number) => Promise<void>)(c, body.data, replyTo);
  } catch (err) {
    if (err instanceof HttpError) return sendError(err.detail, replyTo, type);
    if (err instanceof SubmitError) return sendError(detail(err.message, ['data', ...err.loc]), replyTo, type);
    c.req.log.error({ err, type }, 'socket message failed');
    sendError(detail(SERVER_ERROR_MESSAGE, [], 'server_error'), replyTo, type);
  }
}
