import { systemActor } from '../core/context.js';
import { and, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { atLeast } from '../core/context.js';
import { forbidden, notFound } from '../core/errors.js';
import { inTenant, runInTenant } from '../core/tenancy.js';
import { idParam } from '../engine/crud.js';
import { answers, answersBy, arrayOf, int, nullableStr, objectOf, selectionOf, str, type JsonSchema } from '../engine/answers.js';
import { addEvent } from '../timeline/events.js';
import { entityTypes, signalEngagementRequests, signalEngagements, signals } from './tables.js';
import { newIngestKey } from './resources.js';
import { forgetSources } from './sources.js';
import { extract } from './extract.js';
import { summaryOf } from './process.js';
import { hashEngagementToken } from './follow-up.js';
import { users } from '../core/db/tables.js';
import { hitRateLimit } from '../accounts/rate-limit.js';
import { dummyPasswordHash, normalizeEmail, verifyPassword } from '../accounts/service.js';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (reply: FastifyReply, status: number, title: string, body: string) =>
  reply
    .status(status)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem"><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
    );

// What the routes answer, for the OpenAPI document (server/engine/answers.ts).
const rotated = selectionOf({ id: signals.id, ingest_key: str, previous_key_expires_at: signals.previous_key_expires_at });
const previewAnswer = objectOf({
  title: str,
  entities: arrayOf({
    type: 'object',
    description: 'A value found, or (value null) the error the type met on this payload',
    properties: { entity_type_id: int, entity_type: str, value: nullableStr, error: str },
    required: ['entity_type_id', 'entity_type', 'value'],
  }),
});
/** The engagement pages are HTML for people, not JSON. */
const htmlPage: JsonSchema = { content: { 'text/html': { schema: { type: 'string', description: 'An HTML page' } } } };

/** Signal routes beside CRUD: key rotation, the editor's live preview, and the answer to an engagement. */
export function registerSignalExtras(scope: FastifyInstance) {
  registerKeyRotation(scope);
  registerPreview(scope);
  // The links in the e-mail open a page with a button; only the POST it sends records the answer.
  scope.register(registerEngagementAnswers);
}

const tags = ['Signal'];

/** POST /signals/{id}/rotate_key. */
function registerKeyRotation(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/signals/:id/rotate_key',
    {
      schema: {
        tags,
        summary: 'A new ingest key (shown once); the old one keeps working for grace_hours so sources can move over',
        params: idParam,
        body: z.strictObject({ grace_hours: z.number().min(0).max(168).default(24) }).default({ grace_hours: 24 }),
        ...answers(200, rotated),
      },
    },
    (req) =>
      inTenant(req, async (ctx) => {
        if (!atLeast(ctx.role, 'Admin')) throw forbidden();
        const [signal] = await ctx.tx
          .select({ id: signals.id, hash: signals.ingest_key_hash })
          .from(signals)
          .where(and(eq(signals.organization_id, ctx.orgId), eq(signals.id, req.params.id)));
        if (!signal) throw notFound('Signal', req.params.id);
        forgetSources();
        const key = newIngestKey();
        const expires = req.body.grace_hours > 0 ? new Date(Date.now() + req.body.grace_hours * 3_600_000) : null;
        await ctx.tx
          .update(signals)
          .set({ ingest_key_hash: key.hash, previous_ingest_key_hash: expires ? signal.hash : null, previous_key_expires_at: expires, updated_at: new Date() })
          .where(and(eq(signals.organization_id, ctx.orgId), eq(signals.id, signal.id)));
        return { id: signal.id, ingest_key: key.key, previous_key_expires_at: expires };
      }),
  );
}

/** POST /signals/preview: the definition editor's live preview. */
function registerPreview(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/signals/preview',
    {
      schema: {
        tags,
        summary: 'What a pasted payload would give: the entities each type extracts and the case title',
        body: z.strictObject({ raw: z.record(z.string(), z.unknown()), entity_type_ids: z.array(z.number().int().positive()).max(100).default([]) }),
        ...answers(200, previewAnswer),
      },
    },
    (req) =>
      inTenant(
        req,
        async (ctx) => {
          const types = await ctx.tx
            .select()
            .from(entityTypes)
            .where(and(eq(entityTypes.organization_id, ctx.orgId), eq(entityTypes.enabled, true)));
          const used = types.filter((t) => t.scope === 'all' || req.body.entity_type_ids.includes(t.id));
          const entities = used.flatMap((t): { entity_type_id: number; entity_type: string; value: string | null; error?: string }[] => {
            try {
              return extract(req.body.raw, [t]).map((e) => ({ entity_type_id: t.id, entity_type: t.name, value: e.value }));
            } catch (err) {
              return [{ entity_type_id: t.id, entity_type: t.name, value: null, error: (err as Error).message }];
            }
          });
          return { title: summaryOf({ raw: req.body.raw, source: 'native' }, '(the definition name)'), entities };
        },
        { readOnly: true },
      ),
  );
}

/** The engagement pages: GET shows the answer's form, POST records it (with a second factor when the engagement asks for one). */
async function registerEngagementAnswers(child: FastifyInstance) {
  // The form's only field is the password a require_mfa engagement asks for.
  child.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
    done(null, { password: new URLSearchParams(body as string).get('password') ?? undefined }),
  );
  const respond = child.withTypeProvider<ZodTypeProvider>();
  respond.get(
    '/signals/engagements/respond',
    {
      config: { access: 'public' },
      schema: { tags, summary: 'The page an engagement e-mail links to', querystring: engagementQuery, ...answersBy({ 200: htmlPage, 404: htmlPage }) },
    },
    async (req, reply) => {
      const row = await asSystem(req, findRequest(req.org.id, req.query.token));
      if (!row) return page(reply, 404, 'This link is not valid', '<p>It may have been replaced by a newer e-mail.</p>');
      if (row.status !== 'pending') return page(reply, 200, 'Already answered', `<p>You answered: ${row.status}. Thank you.</p>`);
      const verb = req.query.answer === 'approve' ? 'Yes, this was me / expected' : 'No, I do not recognize this';
      const factor = row.require_mfa
        ? `<p><label>Your Firewatch password <input type="password" name="password" autocomplete="current-password" required></label></p>`
        : '';
      return page(
        reply,
        200,
        row.engagement,
        `<form method="post"><p>Confirm your answer for ${escapeHtml(row.email)}:</p>${factor}<button type="submit">${verb}</button></form>`,
      );
    },
  );
  respond.post(
    '/signals/engagements/respond',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Records the answer on the case timeline',
        querystring: engagementQuery,
        ...answersBy({ 200: htmlPage, 401: htmlPage, 404: htmlPage }),
      },
    },
    async (req, reply) => {
      const pending = await asSystem(req, findRequest(req.org.id, req.query.token));
      if (pending?.require_mfa && pending.status === 'pending' && !(await secondFactor(req, pending))) {
        return page(
          reply,
          401,
          'Not confirmed',
          '<p>This confirmation needs the Firewatch password of the account with this e-mail address (a second factor beside the e-mail link). Go back and try again.</p>',
        );
      }
      const answered = await asSystem(req, (ctx) => recordAnswer(ctx, req.org.id, req.query.token, req.query.answer));
      if (!answered) return page(reply, 404, 'This link is not valid', '<p>It may have been replaced by a newer e-mail.</p>');
      return page(reply, 200, 'Thank you', `<p>Your answer was recorded: ${answered.status}.</p>`);
    },
  );
}

const engagementQuery = z.object({ token: z.string().min(10).max(200), answer: z.enum(['approve', 'deny']) });

/** The engagement request a link's token names, with its engagement's name and whether it asks for a second factor. */
const findRequest = (orgId: number, token: string) => async (ctx: Parameters<Parameters<typeof inTenant>[1]>[0]) => {
  const [row] = await ctx.tx
    .select({
      id: signalEngagementRequests.id,
      status: signalEngagementRequests.status,
      case_id: signalEngagementRequests.case_id,
      email: signalEngagementRequests.email,
      engagement: signalEngagements.name,
      require_mfa: signalEngagements.require_mfa,
    })
    .from(signalEngagementRequests)
    .innerJoin(
      signalEngagements,
      and(eq(signalEngagements.organization_id, signalEngagementRequests.organization_id), eq(signalEngagements.id, signalEngagementRequests.engagement_id)),
    )
    .where(and(eq(signalEngagementRequests.organization_id, orgId), eq(signalEngagementRequests.token_hash, hashEngagementToken(token))));
  return row ?? null;
};

/** The engagement pages run as the system in the link's organization (nobody is signed in). */
const asSystem = <T>(req: { server: FastifyInstance; org: { id: number; slug: string } }, fn: Parameters<typeof runInTenant<T>>[3]) =>
  runInTenant(req.server.db, req.server.config, systemActor({ orgId: req.org.id, orgSlug: req.org.slug }), fn);

/**
 * require_mfa: the link proves the mailbox; the answer also needs a second factor, the Firewatch
 * password of the account with that e-mail (checked like a sign-in: argon2, a dummy hash when there
 * is none, and a limit of LOGIN_RATE_LIMIT tries per request within the sign-in window).
 */
const secondFactor = async (req: FastifyRequest, row: { id: number; email: string }) => {
  const password = (req.body as { password?: string } | undefined)?.password;
  await hitRateLimit(req.server.db, [[`engage:${req.org.id}:${row.id}`, req.server.config.LOGIN_RATE_LIMIT]], req.server.config.LOGIN_RATE_WINDOW_SECONDS);
  const [user] = await req.server.db
    .select({ hash: users.password_hash })
    .from(users)
    .where(eq(users.email, normalizeEmail(row.email)));
  const valid = await verifyPassword(user?.hash ?? (await dummyPasswordHash()), password ?? '');
  return valid && !!user?.hash && !!password;
};

/** The answer recorded on a pending request and the case timeline; an answered request as it is; null when the token names none. */
async function recordAnswer(ctx: Parameters<Parameters<typeof inTenant>[1]>[0], orgId: number, token: string, answer: 'approve' | 'deny') {
  const row = await findRequest(orgId, token)(ctx);
  if (!row) return null;
  if (row.status !== 'pending') return row;
  const status = answer === 'approve' ? 'approved' : 'denied';
  // Only a pending request moves: two clicks at once record one answer.
  const moved = await ctx.tx
    .update(signalEngagementRequests)
    .set({ status, answered_at: new Date(), updated_at: new Date() })
    .where(and(eq(signalEngagementRequests.id, row.id), inArray(signalEngagementRequests.status, ['pending'])))
    .returning({ id: signalEngagementRequests.id });
  if (moved.length) {
    await addEvent(ctx, {
      case_id: row.case_id,
      type: 'Other',
      source: 'Signal',
      description: `${row.email} ${status === 'approved' ? 'confirmed the alert (approved)' : 'did not recognize the alert (denied)'}: ${row.engagement}`,
      details: { engagement_request_id: row.id, answer: status },
    });
  }
  return { ...row, status };
}
