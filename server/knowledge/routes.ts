import { and, asc, desc, eq, or, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { tags } from '../tags/tables.js';
import { terms } from './tables.js';
import { notFound } from '../core/errors.js';
import { readableFields } from '../engine/list-query.js';
import { inTenant } from '../core/tenancy.js';
import type { ResourceDefinition } from '../engine/define.js';
import { termResource } from './resources.js';
import { tagResource } from '../tags/resources.js';
import { getRecord, idParam, scopeOf } from '../engine/crud.js';
import { answers, arrayOf, int, objectOf, recordWith, str } from '../engine/answers.js';

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

export function registerCatalogRoutes(scope: FastifyInstance, resources: ResourceDefinition[]) {
  registerTagRecommendations(scope, resources);
}
