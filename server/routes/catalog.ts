import { and, desc, asc, eq, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { feedback, serviceFeedback, tags } from '../db/schema/index.js';
import { forbidden, notFound } from '../errors.js';
import { readableFields } from '../lib/list-query.js';
import { inTenant } from '../plugins/tenancy.js';
import type { ResourceDefinition } from '../resources/define.js';
import { feedbackResource, serviceFeedbackResource } from '../resources/feedback.js';
import { tagResource } from '../resources/tags.js';
import { atLeast } from '../services/auth.js';
import { getRecord, idParam, scopeOf } from './crud.js';

const pairParams = idParam.extend({ id2: z.coerce.number({ error: 'The second id must be a whole number.' }).int().min(0) });

/**
 * DELETE {path}/{id}/{id2}: deletes a feedback entry given by the person it came from (participant
 * or individual contact). A second id of 0 means "whoever gave it".
 */
function registerPairDelete(scope: FastifyInstance, def: ResourceDefinition, second: PgColumn) {
  scope.withTypeProvider<ZodTypeProvider>().delete(`${def.path}/:id/:id2`, { schema: { tags: [def.label], summary: `Delete a ${def.label.toLowerCase()} given by someone`, params: pairParams } }, async (req, reply) => {
    await inTenant(req, async (ctx) => {
      if (!atLeast(ctx.role, def.writeRole ?? 'Member')) throw forbidden();
      const { columns } = readableFields(def, ctx);
      const { id, id2 } = req.params;
      const where = and(eq(columns.id!, id), scopeOf(def, ctx), id2 === 0 ? undefined : eq(second, id2));
      const gone = await ctx.tx.delete(def.table).where(where).returning({ id: columns.id! });
      if (!gone.length) throw notFound(def.label, id);
    });
    return reply.status(204).send();
  });
}

/** GET /tags/recommendations/{model}/{id}: tags whose names occur in the object's text, best first. */
function registerTagRecommendations(scope: FastifyInstance, resources: ResourceDefinition[]) {
  const byName = new Map<string, ResourceDefinition>();
  for (const def of resources) {
    byName.set(def.model.toLowerCase(), def);
    byName.set(def.path.replace(/^\//, '').toLowerCase(), def);
  }
  const params = z.object({ model: z.string().max(100), id: idParam.shape.id });
  scope.withTypeProvider<ZodTypeProvider>().get('/tags/recommendations/:model/:id', { schema: { tags: ['Tag'], summary: 'Tags recommended for an object', params } }, (req) =>
    inTenant(req, async (ctx) => {
      const def = byName.get(req.params.model.toLowerCase());
      if (!def || !def.search.length) throw notFound('Model', req.params.model);
      const record = await getRecord(def, ctx, req.params.id);
      // The object's text is what `q` searches in it: its title, name, description...
      const text = def.search.map((f) => record[f]).filter((v) => typeof v === 'string').join('\n');
      if (!text.trim()) return { items: [], total: 0 };
      // The tag name as a literal in a regular expression, not touching letters or digits either side.
      const escaped = sql`regexp_replace(${tags.name}, ${'([!$()*+.:<=>?[\\]^{|}\\\\-])'}::text, ${'\\\\\\1'}::text, 'g')`;
      const score = sql<number>`regexp_count(${text}::text, '(?<![[:alnum:]_])' || ${escaped} || '(?![[:alnum:]_])', 1, 'i')`;
      const { selection } = readableFields(tagResource, ctx);
      const items = await ctx.tx
        .select({ ...selection, score: score.as('score') })
        .from(tags)
        .where(and(scopeOf(tagResource, ctx), eq(tags.discoverable, true), sql`strpos(lower(${text}::text), lower(${tags.name})) > 0`, sql`${score} > 0`))
        .orderBy(desc(sql`score`), desc(tags.count), asc(tags.name), asc(tags.id))
        .limit(50);
      return { items, total: items.length };
    }),
  );
}

export function registerCatalogRoutes(scope: FastifyInstance, resources: ResourceDefinition[]) {
  registerPairDelete(scope, feedbackResource, feedback.participant_id);
  registerPairDelete(scope, serviceFeedbackResource, serviceFeedback.individual_contact_id);
  registerTagRecommendations(scope, resources);
}
