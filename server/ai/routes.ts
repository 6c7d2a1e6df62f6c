import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createAnonymousSession, requireAnonymousSession } from './anonymous.js';
import { giveFeedback, likedInProcessing, loadChat, messageColumns, type Chatter } from './chat.js';
import { queueLiked } from './liked.js';
import { DEFAULT_PLATFORM, questionsToday, recordEngagement, trending } from './curated.js';
import { createSubmissionFromStream, removeChunks, submissionColumns } from './ingest.js';
import { queueIndex } from './jobs.js';
import { messagesToday } from './limits.js';
import { limitsFor } from '../billing/limits.js';
import { SubmitError } from './submit-error.js';
import { allowedLevels } from './retrieve.js';
import { sharedMessages, sharePreview } from './shared-view.js';
import { anonymousProjects, anonymousSessions, chatMessages, chats, curatedContent, messageFeedback, SENSITIVITY_LEVELS, submissions } from './tables.js';
import { organizations } from '../core/db/tables.js';
import { projects } from '../core/db/projects.js';
import { withTenant } from '../core/db/tenant.js';
import { forbidden, httpError, notFound } from '../core/errors.js';
import { inTenant, runInTenant } from '../core/tenancy.js';
import { idParam } from '../engine/crud.js';
import { answers, arrayOf, bool, int, nullableStr, num, objectOf, selectionOf, str, type JsonSchema } from '../engine/answers.js';
import { color, requiredText, text } from '../engine/fields.js';
import { atLeast } from '../core/context.js';
import { hitAnonymousLimit, requireAnonymousAccess } from './anonymous-limits.js';

const keyParam = z.object({ key: z.string().max(100) });
const chatParam = z.object({ id: z.string().uuid({ error: 'The chat id must be a UUID.' }) });
const numId = idParam;
const platformQuery = z.strictObject({
  platform: z.string().trim().toLowerCase().max(40).default(DEFAULT_PLATFORM),
  limit: z.coerce.number().int().min(1).max(50).default(10),
});
const projectBody = z.strictObject({ name: requiredText(100), description: text(2000), color: color().optional() });
const projectCols = { id: projects.id, name: projects.name, description: projects.description, color: projects.color, created_at: projects.created_at };
const orgCols = {
  id: organizations.id,
  name: organizations.name,
  slug: organizations.slug,
  description: organizations.description,
  banner_text: organizations.banner_text,
  banner_color: organizations.banner_color,
  banner_enabled: organizations.banner_enabled,
  plan: organizations.plan,
};

// What the routes answer, for the OpenAPI document (server/engine/answers.ts).
/** A list answered whole, in the shape of a list page. */
const listOf = (item: JsonSchema) => objectOf({ items: arrayOf(item), itemsPerPage: int, page: int, total: int });
const session = { anonymous: bool, organization_slug: str, created_at: anonymousSessions.created_at, expires_at: anonymousSessions.expires_at };
const trendingFields = {
  platform: str,
  items: arrayOf(
    selectionOf({
      id: curatedContent.id,
      text: curatedContent.text,
      link: curatedContent.link,
      created_at: curatedContent.created_at,
      platform: curatedContent.platform,
      score: num,
    }),
  ),
};
const trendingAnswer = objectOf(trendingFields);
/**
 * Anonymous visitors also read how many questions were asked on the public page today (UTC),
 * everyone's together, and today's most-asked of them (`questions`; the page shows `items`, the
 * curated content, when there are none).
 */
const anonymousTrendingAnswer = objectOf({
  ...trendingFields,
  asked_today: int,
  questions: arrayOf(objectOf({ text: str, asked: int, last_asked_at: { type: 'string', format: 'date-time' } })),
});
const chatColumns = { id: chats.id, title: chats.title, project_id: chats.project_id, created_at: chats.created_at, updated_at: chats.updated_at };
/** A chat as lists show it: `shared` is whether anyone with its link may read it. */
const chatSummary = { ...chatColumns, shared: bool };
/** A chat with its messages, each with the caller's like or dislike (`feedback`). */
const chatAnswer = selectionOf({
  ...chatSummary,
  messages: arrayOf(selectionOf({ ...messageColumns, feedback: { ...nullableStr, enum: ['like', 'dislike', null] } })),
});

const memberOf = (req: FastifyRequest): Chatter => ({ orgId: req.caller.orgId, userId: req.caller.userId, role: req.caller.role, sessionId: null });

/**
 * The AI workspace's REST side: anonymous sessions and their projects, trending curated content,
 * chats (list, reopen, share, shared view), answer feedback, and submissions.
 */
const pub = { access: 'public' as const };
/** A transaction in the organization as an anonymous visitor (no user). */
const anonymousTx = <T>(scope: FastifyInstance, orgId: number, fn: Parameters<typeof withTenant<T>>[2]) => withTenant(scope.db, { orgId, userId: null }, fn);
/** The submission if the caller uploaded it or is an Admin and above (403 otherwise). */
const ownSubmission = async (req: FastifyRequest, id: number, tx: Parameters<Parameters<typeof inTenant>[1]>[0]['tx']) => {
  const [s] = await tx
    .select({ id: submissions.id, created_by: submissions.created_by, status: submissions.status, project_id: submissions.project_id })
    .from(submissions)
    .where(and(eq(submissions.organization_id, req.caller.orgId), eq(submissions.id, id)));
  if (!s) throw notFound('Submission', id);
  if (s.created_by !== req.caller.userId && !atLeast(req.caller.role, 'Admin')) throw forbidden('Only the uploader or an Admin may change this submission.');
  return s;
};

/** The AI layer's routes (spec §6, §7), one register function per kind of action. */
export function registerAiRoutes(scope: FastifyInstance) {
  registerAnonymousSessionRoutes(scope);
  registerAnonymousProjectRoutes(scope);
  registerTrendingRoutes(scope);
  registerChatRoutes(scope);
  registerChatSharingRoutes(scope);
  registerSubmissionListRoute(scope);
  registerSubmissionUploadRoute(scope);
  registerSubmissionRoutes(scope);
}

/** Anonymous sessions (spec §6, §7): opened, and read back by their key. */
function registerAnonymousSessionRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/auth/anonymous',
    {
      config: pub,
      schema: { tags: ['Anonymous'], summary: 'Start an anonymous session (a temporary key)', ...answers(201, selectionOf({ key: str, ...session })) },
    },
    async (req, reply) => {
      await requireAnonymousAccess(scope.db, req.org.id);
      await hitAnonymousLimit(scope.db, scope.config, 'session', req.org.id, req.ip);
      const { key, session } = await createAnonymousSession(scope.db, req.org.id, scope.config.ANONYMOUS_SESSION_DAYS);
      return reply.status(201).send({ key, anonymous: true, organization_slug: req.org.slug, created_at: session.created_at, expires_at: session.expires_at });
    },
  );

  app.get(
    '/auth/anonymous/me/:key',
    {
      config: pub,
      schema: {
        tags: ['Anonymous'],
        summary: 'The anonymous session of a key',
        params: keyParam,
        ...answers(200, selectionOf({ ...session, projects: arrayOf(int) })),
      },
    },
    async (req) => {
      const session = await requireAnonymousSession(scope.db, req.org.id, req.params.key);
      const own = await anonymousTx(scope, req.org.id, (tx) =>
        tx.select({ id: anonymousProjects.project_id }).from(anonymousProjects).where(eq(anonymousProjects.session_id, session.id)),
      );
      return {
        anonymous: true,
        organization_slug: req.org.slug,
        created_at: session.created_at,
        expires_at: session.expires_at,
        projects: own.map((p) => p.id),
      };
    },
  );

  /** Spec §7: the organization list of an anonymous session is its own organization. */
  app.get(
    '/organizations/anonymous/:key',
    {
      config: pub,
      schema: { tags: ['Anonymous'], summary: "An anonymous session's organization", params: keyParam, ...answers(200, listOf(selectionOf(orgCols))) },
    },
    async (req) => {
      await requireAnonymousSession(scope.db, req.org.id, req.params.key);
      const [org] = await scope.db.select(orgCols).from(organizations).where(eq(organizations.id, req.org.id));
      return { items: [org], itemsPerPage: 50, page: 1, total: 1 };
    },
  );
}

/** What an anonymous visitor sees of the organization: its projects, and a project of their own. */
function registerAnonymousProjectRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  /** Projects a visitor can chat in: their own, and those with public indexed material. */
  app.get(
    '/projects/anonymous/:key',
    {
      config: pub,
      schema: {
        tags: ['Anonymous'],
        summary: 'Projects open to an anonymous session',
        params: keyParam,
        ...answers(200, listOf(selectionOf({ ...projectCols, own: bool }))),
      },
    },
    async (req) => {
      const session = await requireAnonymousSession(scope.db, req.org.id, req.params.key);
      const items = await anonymousTx(scope, req.org.id, (tx) =>
        tx
          .select({
            ...projectCols,
            own: sql<boolean>`exists (select 1 from anonymous_projects a where a.organization_id = ${projects.organization_id} and a.project_id = ${projects.id} and a.session_id = ${session.id})`,
          })
          .from(projects)
          .where(
            and(
              eq(projects.organization_id, req.org.id),
              sql`(exists (select 1 from anonymous_projects a where a.organization_id = ${projects.organization_id} and a.project_id = ${projects.id} and a.session_id = ${session.id})
              or exists (select 1 from submissions s where s.organization_id = ${projects.organization_id} and s.project_id = ${projects.id} and s.sensitivity_level = 'public' and s.status = 'indexed'))`,
            ),
          )
          .orderBy(asc(projects.name)),
      );
      return { items, itemsPerPage: -1, page: 1, total: items.length };
    },
  );

  app.get(
    '/projects/anonymous/user/:key',
    {
      config: pub,
      schema: { tags: ['Anonymous'], summary: 'Projects an anonymous session created', params: keyParam, ...answers(200, listOf(selectionOf(projectCols))) },
    },
    async (req) => {
      const session = await requireAnonymousSession(scope.db, req.org.id, req.params.key);
      const items = await anonymousTx(scope, req.org.id, (tx) =>
        tx
          .select(projectCols)
          .from(projects)
          .innerJoin(anonymousProjects, and(eq(anonymousProjects.organization_id, projects.organization_id), eq(anonymousProjects.project_id, projects.id)))
          .where(and(eq(projects.organization_id, req.org.id), eq(anonymousProjects.session_id, session.id)))
          .orderBy(asc(projects.name)),
      );
      return { items, itemsPerPage: -1, page: 1, total: items.length };
    },
  );

  app.post(
    '/projects/anonymous/:key',
    {
      config: pub,
      schema: {
        tags: ['Anonymous'],
        summary: 'Create a project for an anonymous session',
        params: keyParam,
        body: projectBody,
        ...answers(201, selectionOf(projectCols)),
      },
    },
    async (req, reply) => {
      const session = await requireAnonymousSession(scope.db, req.org.id, req.params.key);
      await hitAnonymousLimit(scope.db, scope.config, 'write', req.org.id, req.ip);
      const project = await anonymousTx(scope, req.org.id, async (tx) => {
        const [p] = await tx
          .insert(projects)
          .values({
            organization_id: req.org.id,
            name: req.body.name,
            description: req.body.description ?? null,
            ...(req.body.color ? { color: req.body.color } : {}),
          })
          .returning(projectCols);
        await tx.insert(anonymousProjects).values({ organization_id: req.org.id, session_id: session.id, project_id: p!.id });
        return p!;
      });
      return reply.status(201).send(project);
    },
  );
}

/** Curated content: trending and engagements (the CRUD definition serves the rest). */
function registerTrendingRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/curated_content/trending',
    { schema: { tags: ['Curated content item'], summary: 'Trending curated content', querystring: platformQuery, ...answers(200, trendingAnswer) } },
    (req) => inTenant(req, async (ctx) => ({ platform: req.query.platform, items: await trending(ctx.tx, ctx.orgId, req.query.platform, req.query.limit) })),
  );

  app.get(
    '/curated_content/anonymous/trending/:key',
    {
      config: pub,
      schema: {
        tags: ['Anonymous'],
        summary: 'Trending curated content for an anonymous session',
        params: keyParam,
        querystring: platformQuery,
        ...answers(200, anonymousTrendingAnswer),
      },
    },
    async (req) => {
      await requireAnonymousSession(scope.db, req.org.id, req.params.key);
      const [items, asked_today, questions] = await anonymousTx(scope, req.org.id, async (tx) => [
        await trending(tx, req.org.id, req.query.platform, req.query.limit),
        await messagesToday(tx, req.org.id, { userId: null, sessionId: null }),
        await questionsToday(tx, req.org.id),
      ]);
      return { platform: req.query.platform, items, asked_today, questions };
    },
  );

  app.post(
    '/curated_content/:id/engagements',
    {
      config: pub,
      schema: {
        tags: ['Curated content item'],
        summary: 'Record a view, click or share (signed in, or with ?key=)',
        params: numId,
        querystring: z.strictObject({ key: z.string().max(100).optional() }),
        body: z.strictObject({ kind: z.enum(['view', 'click', 'share', 'like']).default('view') }).default({ kind: 'view' }),
        ...answers(204, null),
      },
    },
    async (req, reply) => {
      if (!req.caller) await requireAnonymousSession(scope.db, req.org.id, req.query.key);
      const ok = await anonymousTx(scope, req.org.id, (tx) => recordEngagement(tx, req.org.id, req.params.id, req.body.kind));
      if (!ok) throw notFound('Curated content item', req.params.id);
      return reply.status(204).send();
    },
  );
}

/** Chats: listed, reopened, renamed and deleted. */
function registerChatRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/chats',
    {
      schema: {
        tags: ['Chat'],
        summary: "The caller's chats, newest first",
        querystring: z.strictObject({
          project_id: z.coerce.number().int().positive().optional(),
          page: z.coerce.number().int().min(1).default(1),
          itemsPerPage: z.coerce.number().int().min(1).max(200).default(50),
        }),
        ...answers(200, listOf(selectionOf(chatSummary))),
      },
    },
    (req) =>
      inTenant(req, async (ctx) => {
        if (ctx.userId === null) throw forbidden('Chats belong to signed-in users.');
        const where = and(
          eq(chats.organization_id, ctx.orgId),
          eq(chats.user_id, ctx.userId),
          req.query.project_id ? eq(chats.project_id, req.query.project_id) : undefined,
        );
        const items = await ctx.tx
          .select({ ...chatColumns, shared: sql<boolean>`${chats.shared_at} is not null` })
          .from(chats)
          .where(where)
          .orderBy(desc(chats.updated_at))
          .limit(req.query.itemsPerPage)
          .offset((req.query.page - 1) * req.query.itemsPerPage);
        const [{ n }] = (await ctx.tx
          .select({ n: sql<number>`count(*)::int` })
          .from(chats)
          .where(where)) as [{ n: number }];
        return { items, itemsPerPage: req.query.itemsPerPage, page: req.query.page, total: n };
      }),
  );

  app.get('/chats/:id', { schema: { tags: ['Chat'], summary: 'Reopen a chat with its messages', params: chatParam, ...answers(200, chatAnswer) } }, (req) =>
    inTenant(req, (ctx) => loadChat(ctx.tx, memberOf(req), ctx.orgId, req.params.id)),
  );

  app.put(
    '/chats/:id',
    {
      schema: {
        tags: ['Chat'],
        summary: 'Rename or share a chat',
        params: chatParam,
        body: z.strictObject({ title: requiredText(200).optional(), shared: z.boolean().optional() }),
        ...answers(200, chatAnswer),
      },
    },
    (req) =>
      inTenant(req, async (ctx) => {
        const who = memberOf(req);
        await loadChat(ctx.tx, who, ctx.orgId, req.params.id);
        const set: Record<string, unknown> = { updated_at: new Date() };
        if (req.body.title !== undefined) set.title = req.body.title;
        if (req.body.shared !== undefined) set.shared_at = req.body.shared ? new Date() : null;
        await ctx.tx
          .update(chats)
          .set(set)
          .where(and(eq(chats.organization_id, ctx.orgId), eq(chats.id, req.params.id)));
        return loadChat(ctx.tx, who, ctx.orgId, req.params.id);
      }),
  );

  app.delete('/chats/:id', { schema: { tags: ['Chat'], summary: 'Delete a chat', params: chatParam, ...answers(204, null) } }, async (req, reply) => {
    await inTenant(req, async (ctx) => {
      await loadChat(ctx.tx, memberOf(req), ctx.orgId, req.params.id);
      await ctx.tx.delete(chats).where(and(eq(chats.organization_id, ctx.orgId), eq(chats.id, req.params.id)));
    });
    return reply.status(204).send();
  });
}

/** Shared chats, answer feedback and liked answers. */
function registerChatSharingRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  /** landing?chat_id=: a shared chat, read-only, for anyone. */
  app.get(
    '/chats/shared/:id',
    {
      config: pub,
      schema: {
        tags: ['Chat'],
        summary: 'A shared chat, read-only (no sign-in)',
        params: chatParam,
        ...answers(200, selectionOf({ ...chatSummary, messages: arrayOf(selectionOf({ ...messageColumns, withheld: int })), read_only: bool })),
      },
    },
    (req) => {
      // A member reads what their own chat would show them; anyone else public material only (shared-view.ts).
      const viewer = req.caller?.kind === 'user' ? memberOf(req) : null;
      return withTenant(scope.db, { orgId: req.org.id, userId: viewer?.userId ?? null }, async (tx) => {
        const chat = await loadChat(tx, null, req.org.id, req.params.id, { shared: true });
        const messages = await sharedMessages(
          tx,
          viewer,
          req.org.id,
          chat.messages.map(({ feedback: _f, ...m }) => m),
        );
        return { ...chat, messages, read_only: true };
      });
    },
  );

  /** What sharing would show readers who are not signed in: each cited source, and whether it is withheld. */
  app.get(
    '/chats/:id/share-preview',
    {
      schema: {
        tags: ['Chat'],
        summary: 'Which cited sources a shared link would withhold from readers who are not signed in',
        params: chatParam,
        ...answers(200, objectOf({ sources: arrayOf(objectOf({ title: str, object_type: str, public: bool, reason: nullableStr })), withheld: int })),
      },
    },
    (req) =>
      inTenant(req, async (ctx) => {
        const chat = await loadChat(ctx.tx, memberOf(req), ctx.orgId, req.params.id);
        return sharePreview(ctx.tx, ctx.orgId, chat.messages);
      }),
  );

  app.post(
    '/chat_messages/:id/feedback',
    {
      schema: {
        tags: ['Chat'],
        summary: 'Like or dislike an answer',
        params: numId,
        body: z.strictObject({ value: z.enum(['like', 'dislike']) }),
        ...answers(200, selectionOf({ message_id: int, value: messageFeedback.value, message: str, feedback_id: int })),
      },
    },
    async (req) => {
      const vote = await inTenant(req, (ctx) => giveFeedback(ctx.tx, memberOf(req), req.params.id, req.body.value));
      await queueLiked(scope.queue, req.caller.orgId, vote.feedback_id);
      return vote;
    },
  );

  app.get(
    '/chat_messages/liked',
    {
      schema: {
        tags: ['Chat'],
        summary: 'Liked answers waiting in processing',
        querystring: z.strictObject({ project_id: z.coerce.number().int().positive() }),
        ...answers(
          200,
          objectOf({
            project_id: int,
            messages: arrayOf(
              selectionOf({
                id: messageFeedback.id,
                message_id: chatMessages.id,
                chat_id: chatMessages.chat_id,
                answer: chatMessages.text,
                sources: chatMessages.sources,
                question: nullableStr,
                liked_at: messageFeedback.updated_at,
                status: messageFeedback.status,
                error: messageFeedback.error,
              }),
            ),
          }),
        ),
      },
    },
    (req) => inTenant(req, async (ctx) => ({ project_id: req.query.project_id, messages: await likedInProcessing(ctx.tx, ctx.orgId, req.query.project_id) })),
  );
}

/** A project's submissions (uploads go through the socket too; listing, re-indexing and deleting are plain calls). */
function registerSubmissionListRoute(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/submissions',
    {
      schema: {
        tags: ['Submission'],
        summary: "A project's submissions",
        querystring: z.strictObject({ project_id: z.coerce.number().int().positive() }),
        ...answers(200, listOf(selectionOf(submissionColumns))),
      },
    },
    (req) =>
      inTenant(req, async (ctx) => {
        const levels = allowedLevels(ctx.userId !== null ? { kind: 'user', userId: ctx.userId, role: ctx.role } : { kind: 'apikey' });
        const items = await ctx.tx
          .select(submissionColumns)
          .from(submissions)
          .where(
            and(
              eq(submissions.organization_id, ctx.orgId),
              eq(submissions.project_id, req.query.project_id),
              sql`(${inArray(submissions.sensitivity_level, levels)} or ${submissions.created_by} = ${ctx.userId ?? 0})`,
            ),
          )
          .orderBy(desc(submissions.created_at), desc(submissions.id));
        return { items, itemsPerPage: -1, page: 1, total: items.length };
      }),
  );
}

/**
 * A file upload over HTTP, the body being the file's bytes (any content type): read as a stream and
 * stored a part at a time (createSubmissionFromStream), so a 100 MB file is never held whole and
 * the request body limit does not apply (the plan's file size does). Indexing is queued once stored.
 */
function registerSubmissionUploadRoute(scope: FastifyInstance) {
  scope.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    raw.withTypeProvider<ZodTypeProvider>().post(
      '/submissions/upload',
      {
        config: { fileBody: true },
        schema: {
          tags: ['Submission'],
          summary: 'Upload a file (the body is the file), streamed to storage, then indexed',
          querystring: z.strictObject({
            project_id: z.coerce.number().int().positive(),
            fileName: z.string().trim().min(1).max(300),
            fileType: z.string().max(200).optional(),
            eccs_project_id: z.string().max(100).optional(),
            sensitivityLevel: z.enum(SENSITIVITY_LEVELS).default('internal'),
            buildIndex: z.enum(['true', 'false']).default('true'),
          }),
          ...answers(
            201,
            selectionOf({
              status: { type: 'string', enum: ['success'] },
              submission_id: submissions.id,
              fileName: submissions.file_name,
              size_bytes: submissions.size_bytes,
              submission_status: submissions.status,
              message: str,
            }),
          ),
        },
      },
      async (req, reply) => {
        const q = req.query;
        if (/^multipart\//i.test(req.headers['content-type'] ?? '')) {
          reply.header('connection', 'close');
          throw httpError(415, "Send the file's bytes as the request body, not as a multipart form.", 'unsupported_media_type', ['body']);
        }
        const body = req.body as AsyncIterable<Uint8Array> | undefined;
        const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
        const who = { orgId: req.caller.orgId, userId: req.caller.userId, sessionId: null };
        let sub;
        try {
          // The index job is queued in the submission's own transaction: it exists exactly when the
          // upload committed (a crash between the two left uploads nothing would index).
          sub = await runInTenant(scope.db, scope.config, req.caller, async (ctx) => {
            const made = await createSubmissionFromStream(
              ctx.tx,
              who,
              await limitsFor(ctx.tx, scope.config, who.orgId, false),
              {
                projectId: q.project_id,
                title: q.fileName,
                fileName: q.fileName,
                fileType: q.fileType ?? (req.headers['content-type'] === 'application/octet-stream' ? null : (req.headers['content-type'] ?? null)),
                eccsProjectId: q.eccs_project_id ?? null,
                sensitivityLevel: q.sensitivityLevel,
              },
              body ?? [],
              Number.isFinite(declared) ? declared : undefined,
            );
            if (q.buildIndex === 'true') await queueIndex(ctx, made.id);
            return made;
          });
        } catch (err) {
          if (!(err instanceof SubmitError)) throw err;
          // The rest of a refused body is not read: the connection closes after the answer.
          if (!req.raw.readableEnded) reply.header('connection', 'close');
          throw httpError(err.status, err.message, err.status === 413 ? 'too_large' : 'value_error', err.loc.length ? ['body', ...err.loc] : ['body']);
        }
        return reply.status(201).send({
          status: 'success',
          submission_id: sub.id,
          fileName: q.fileName,
          size_bytes: sub.size_bytes,
          submission_status: sub.status,
          message: q.buildIndex === 'true' ? 'File uploaded; indexing has started.' : 'File uploaded.',
        });
      },
    );
  });
}

/** Re-indexing and deleting a submission: its uploader or an Admin and above. */
function registerSubmissionRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/submissions/:id/index',
    {
      schema: {
        tags: ['Submission'],
        summary: 'Index (again) a submission',
        params: numId,
        ...answers(202, selectionOf({ submission_id: int, status: submissions.status, message: str })),
      },
    },
    async (req, reply) => {
      await inTenant(req, async (ctx) => {
        const sub = await ownSubmission(req, req.params.id, ctx.tx);
        await removeChunks(ctx.tx, ctx.orgId, sub.project_id, sub.id);
        await ctx.tx
          .update(submissions)
          .set({ status: 'uploaded', progress: 0, error: null, chunk_count: 0 })
          .where(and(eq(submissions.organization_id, ctx.orgId), eq(submissions.id, req.params.id)));
        await queueIndex(ctx, req.params.id);
      });
      return reply.status(202).send({ submission_id: req.params.id, status: 'uploaded', message: 'Indexing has started.' });
    },
  );

  app.delete(
    '/submissions/:id',
    { schema: { tags: ['Submission'], summary: 'Delete a submission and its passages', params: numId, ...answers(204, null) } },
    async (req, reply) => {
      await inTenant(req, async (ctx) => {
        const sub = await ownSubmission(req, req.params.id, ctx.tx);
        await removeChunks(ctx.tx, ctx.orgId, sub.project_id, sub.id);
        await ctx.tx.delete(submissions).where(and(eq(submissions.organization_id, ctx.orgId), eq(submissions.id, req.params.id)));
      });
      return reply.status(204).send();
    },
  );
}
