import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { inTenant } from '../core/tenancy.js';
import { answers, arrayOf, bool, int, num, objectOf, str } from '../engine/answers.js';
import { PAGE_SIZE, CANDIDATES, SEARCH_TYPE_NAMES, search, storedName } from './service.js';

const typeNames = SEARCH_TYPE_NAMES;
const typeList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) =>
    (Array.isArray(v) ? v : [v])
      .flatMap((t) => t.split(','))
      .map((t) => t.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.enum(typeNames, { error: `Must be one of: ${typeNames.join(', ')}.` })).max(typeNames.length))
  .transform((names) => names.map(storedName));

const searchAnswer = objectOf({
  query: str,
  page: int,
  items_per_page: int,
  total: int,
  total_capped: bool,
  groups: arrayOf(objectOf({ type: str, label: str, count: int })),
  results: arrayOf(objectOf({ type: str, id: str, title: str, link: str, headline: str, updated_at: str, exact: bool, score: num })),
});

export const searchQuery = z.strictObject({
  q: z.string().max(500, 'The search may hold at most 500 characters.').default(''),
  type: typeList.optional(),
  // Dispatch's `type[]=` as well as `type=`.
  'type[]': typeList.optional(),
  page: z.coerce
    .number()
    .int('Must be a whole number.')
    .min(1)
    .max(CANDIDATES / PAGE_SIZE)
    .default(1),
});

/** `GET /search?q=&type=&page=`: spec §7 and §9 (search/results). */
export function registerSearchRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/search',
    { schema: { tags: ['Search'], summary: 'Search every type at once, grouped by type, 25 a page', querystring: searchQuery, ...answers(200, searchAnswer) } },
    // It only reads: on PostgreSQL its statements then go out with BEGIN and the scope, and the answer
    // does not wait for COMMIT.
    async (req) =>
      inTenant(req, (ctx) => search(ctx, req.query.q, [...(req.query.type ?? []), ...(req.query['type[]'] ?? [])], req.query.page), { readOnly: true }),
  );
}
