import { and, asc, count, desc, eq, or, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { summarize } from '../ai/answer.js';
import { FEEDBACK_RATINGS, feedback, SERVICE_FEEDBACK_RATINGS, serviceFeedback } from '../feedback/tables.js';
import { tags } from '../tags/tables.js';
import { terms } from './tables.js';
import { forbidden, notFound } from '../core/errors.js';
import { readableFields } from '../engine/list-query.js';
import { inTenant } from '../core/tenancy.js';
import type { ResourceDefinition } from '../engine/define.js';
import { feedbackResource, serviceFeedbackResource } from '../feedback/resources.js';
import { termResource } from './resources.js';
import { projectResource } from '../projects/resources.js';
import { tagResource } from '../tags/resources.js';
import { atLeast } from '../core/context.js';
import { getRecord, idParam, idValue, scopeOf } from '../engine/crud.js';
import { answers, arrayOf, int, mapOf, nullableStr, objectOf, recordWith, str } from '../engine/answers.js';

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

/** How often `needle` occurs in `text` as a whole word (not touching letters, digits or _), ignoring case. */
function occurrences(text: string, needle: PgColumn) {
  // The needle as a literal in a regular expression.
  const escaped = sql`regexp_replace(${needle}, ${'([!$()*+.:<=>?[\\]^{|}\\\\-])'}::text, ${'\\\\\\1'}::text, 'g')`;
  const count = sql<number>`regexp_count(${text}::text, '(?<![[:alnum:]_])' || ${escaped} || '(?![[:alnum:]_])', 1, 'i')`;
  // strpos first: the cheap test rules out almost every row before the regular expression runs.
  return sql<number>`(case when strpos(lower(${text}::text), lower(${needle})) > 0 then ${count} else 0 end)`;
}

/**
 * GET /tags/recommendations/{model}/{id}: the discoverable tags whose names, or whose terms (the
 * discoverable terms linked to the tag), occur in the object's text. Best first: most occurrences,
 * then more of them on the tag's own name (a closer match than a synonym), then the most used tag.
 */
function registerTagRecommendations(scope: FastifyInstance, resources: ResourceDefinition[]) {
  const byName = new Map<string, ResourceDefinition>();
  for (const def of resources) {
    byName.set(def.model.toLowerCase(), def);
    byName.set(def.path.replace(/^\//, '').toLowerCase(), def);
  }
  const params = z.object({ model: z.string().max(100), id: idParam.shape.id });
  const recommended = recordWith(tagResource, { score: int, matched_terms: arrayOf(str) });
  scope
    .withTypeProvider<ZodTypeProvider>()
    .get(
      '/tags/recommendations/:model/:id',
      { schema: { tags: ['Tag'], summary: 'Tags recommended for an object', params, ...answers(200, objectOf({ items: arrayOf(recommended), total: int })) } },
      (req) =>
        inTenant(req, async (ctx) => {
          const def = byName.get(req.params.model.toLowerCase());
          if (!def || !def.search.length) throw notFound('Model', req.params.model);
          const record = await getRecord(def, ctx, req.params.id);
          // The object's text is what `q` searches in it: its title, name, description...
          const text = def.search
            .map((f) => record[f])
            .filter((v) => typeof v === 'string')
            .join('\n');
          if (!text.trim()) return { items: [], total: 0 };

          const termHits = occurrences(text, terms.text);
          const foundTerms = await ctx.tx
            .select({ id: terms.id, text: terms.text, hits: termHits })
            .from(terms)
            .where(and(scopeOf(termResource, ctx), eq(terms.discoverable, true), sql`${termHits} > 0`))
            .orderBy(desc(termHits), asc(terms.id))
            .limit(200);
          const termById = new Map(foundTerms.map((f) => [f.id, f]));

          const nameHits = occurrences(text, tags.name);
          const linked = foundTerms.map((f) => sql`${tags.terms} @> ${JSON.stringify([f.id])}::jsonb`);
          const { selection } = readableFields(tagResource, ctx);
          const candidates = await ctx.tx
            .select({ ...selection, name_hits: nameHits.as('name_hits') })
            .from(tags)
            .where(and(scopeOf(tagResource, ctx), eq(tags.discoverable, true), or(sql`${nameHits} > 0`, ...linked)));

          type Tag = Record<string, unknown> & { id: number; name: string; count: number; terms: { id: number }[] };
          const items = (candidates as unknown as (Tag & { name_hits: number })[])
            .map(({ name_hits, ...tag }) => {
              const name = tag.name.toLowerCase();
              // A term spelled like the tag's own name is the same match, counted once.
              const matched = tag.terms.flatMap(({ id }) => termById.get(id) ?? []).filter((f) => f.text.toLowerCase() !== name);
              const score = Number(name_hits) + matched.reduce((sum, f) => sum + Number(f.hits), 0);
              return { ...tag, score, name_hits: Number(name_hits), matched_terms: matched.map((f) => f.text) };
            })
            .filter((i) => i.score > 0)
            .sort((a, b) => b.score - a.score || b.name_hits - a.name_hits || b.count - a.count || a.name.localeCompare(b.name) || a.id - b.id)
            .slice(0, 50)
            .map(({ name_hits: _, ...item }) => item);
          return { items, total: items.length };
        }),
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

export function registerCatalogRoutes(scope: FastifyInstance, resources: ResourceDefinition[]) {
  registerPairDelete(scope, feedbackResource, feedback.participant_id);
  registerPairDelete(scope, serviceFeedbackResource, serviceFeedback.individual_contact_id);
  registerFeedbackSummary(scope, feedbackResource, feedback, FEEDBACK_RATINGS);
  registerFeedbackSummary(scope, serviceFeedbackResource, serviceFeedback, SERVICE_FEEDBACK_RATINGS);
  registerTagRecommendations(scope, resources);
}
