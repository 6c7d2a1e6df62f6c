import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { summarize } from '../ai/answer.js';
import { FEEDBACK_RATINGS, feedback, SERVICE_FEEDBACK_RATINGS, serviceFeedback } from './tables.js';
import { feedbackResource, serviceFeedbackResource } from './resources.js';
import { forbidden, notFound } from '../core/errors.js';
import { readableFields } from '../engine/list-query.js';
import { inTenant } from '../core/tenancy.js';
import type { ResourceDefinition } from '../engine/define.js';
import { projectResource } from '../projects/resources.js';
import { atLeast } from '../core/context.js';
import { getRecord, idParam, idValue, scopeOf } from '../engine/crud.js';
import { answers, int, mapOf, nullableStr, objectOf, str } from '../engine/answers.js';

/** Feedback's routes beyond CRUD: deleting an entry by who gave it, and a project's summary. */

const pairParams = idParam.extend({ id2: z.coerce.number({ error: 'The second id must be a whole number.' }).int().min(0) });

/**
 * DELETE {path}/{id}/{id2}: deletes a feedback entry given by the person it came from (participant
 * or individual contact). A second id of 0 means "whoever gave it".
 */
function registerPairDelete(scope: FastifyInstance, def: ResourceDefinition, second: PgColumn) {
  scope
    .withTypeProvider<ZodTypeProvider>()
    .delete(
      `${def.path}/:id/:id2`,
      { schema: { tags: [def.label], summary: `Delete a ${def.label.toLowerCase()} given by someone`, params: pairParams, ...answers(204, null) } },
      async (req, reply) => {
        await inTenant(req, async (ctx) => {
          if (!atLeast(ctx.role, def.writeRole ?? 'Member')) throw forbidden();
          const { columns } = readableFields(def, ctx);
          const { id, id2 } = req.params;
          const where = and(eq(columns.id!, id), scopeOf(def, ctx), id2 === 0 ? undefined : eq(second, id2));
          const gone = await ctx.tx.delete(def.table).where(where).returning({ id: columns.id! });
          if (!gone.length) throw notFound(def.label, id);
        });
        return reply.status(204).send();
      },
    );
}

/** At most this many of the newest entries go into one feedback summary. */
const SUMMARY_ENTRIES = 200;

/**
 * GET {path}/summarize/{projectId}: what a project's feedback says, through the AI layer's summarizer
 * (the configured model, else the most central sentences), with the count of each rating.
 */
function registerFeedbackSummary(scope: FastifyInstance, def: ResourceDefinition, table: typeof feedback | typeof serviceFeedback, ratings: readonly string[]) {
  const params = z.object({ projectId: idValue });
  scope.withTypeProvider<ZodTypeProvider>().get(
    `${def.path}/summarize/:projectId`,
    {
      schema: {
        tags: [def.label],
        summary: `Summarize a project's ${def.label.toLowerCase()}`,
        params,
        ...answers(
          200,
          objectOf({
            project_id: int,
            total: int,
            ratings: mapOf(int, 'How many entries gave each rating'),
            summary: str,
            method: str,
            notice: nullableStr,
          }),
        ),
      },
    },
    async (req) => {
      const { projectId } = req.params;
      const { counts, rows } = await inTenant(req, async (ctx) => {
        await getRecord(projectResource, ctx, projectId);
        const where = and(scopeOf(def, ctx), eq(table.project_id, projectId));
        const counts = await ctx.tx.select({ rating: table.rating, n: count() }).from(table).where(where).groupBy(table.rating);
        const rows = await ctx.tx
          .select({ feedback: table.feedback })
          .from(table)
          .where(and(where, sql`nullif(trim(${table.feedback}), '') is not null`))
          .orderBy(desc(table.created_at), desc(table.id))
          .limit(SUMMARY_ENTRIES);
        return { counts, rows };
      });
      // Outside the request's transaction: a model may take a while to answer.
      const result = await summarize(
        req.server.config,
        rows.map((r) => r.feedback!),
        {
          instruction: `Summarize what this ${def.label.toLowerCase()} says, in at most 3 sentences: what went well and what did not. Use only what the texts say.`,
          maxSentences: 3,
        },
      );
      const total = counts.reduce((sum, c) => sum + c.n, 0);
      return {
        project_id: projectId,
        total,
        ratings: Object.fromEntries(ratings.map((r) => [r, counts.find((c) => c.rating === r)?.n ?? 0])),
        summary: result.summary || (total ? 'The feedback has ratings but no comments yet.' : 'No feedback has been given yet.'),
        method: result.answered_by,
        notice: result.notice,
      };
    },
  );
}

export function registerFeedbackRoutes(scope: FastifyInstance) {
  registerPairDelete(scope, feedbackResource, feedback.participant_id);
  registerPairDelete(scope, serviceFeedbackResource, serviceFeedback.individual_contact_id);
  registerFeedbackSummary(scope, feedbackResource, feedback, FEEDBACK_RATINGS);
  registerFeedbackSummary(scope, serviceFeedbackResource, serviceFeedback, SERVICE_FEEDBACK_RATINGS);
}
