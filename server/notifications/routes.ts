import { and, count, desc, eq, gte, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { searchFilters, SEARCH_FILTER_SUBJECTS } from './tables.js';
import { compileExpression, subjects, type FilterSubject } from './matching.js';
import { invalid, notFound } from '../core/errors.js';
import { inTenant } from '../core/tenancy.js';
import type { RequestContext } from '../core/context.js';
import { idParam } from '../engine/crud.js';
import { caseScope } from '../cases/scope.js';
import { incidentScope } from '../incidents/scope.js';
import { answers, arrayOf, int, objectOf, str } from '../engine/answers.js';
import { expressionOfPicks, filterPicks } from './resources.js';

const PREVIEW_DAYS = 30;
const PREVIEW_ITEMS = 25;
const tags = ['Search filter'];
const previewAnswer = answers(
  200,
  objectOf({
    subject: str,
    expression: { description: 'The expression previewed: the one sent, or the one the picks (filters) make' },
    days: int,
    total: int,
    items: arrayOf(objectOf({ id: int, name: str, title: str, status: str, project_id: int, reported_at: str })),
  }),
);

const previewBody = z.object({
  subject: z.enum(SEARCH_FILTER_SUBJECTS, { error: `Subject must be one of ${SEARCH_FILTER_SUBJECTS.join(', ')}` }).default('incident'),
  expression: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())], { error: 'The expression must be a filter object or list' }).optional(),
  // The picks a saved filter may be made from; the expression they make is previewed (and answered) when none is sent.
  filters: filterPicks.optional(),
});

/** What `expression` matches among the incidents or cases reported in the last 30 days: how many, and the newest 25. */
async function preview(ctx: RequestContext, subject: FilterSubject, expression: unknown) {
  const condition = compileExpression(ctx, subject, expression);
  const table = subjects[subject].table;
  // The caller's view: restricted incidents and cases they cannot open are not counted or listed.
  const scope = subject === 'incident' ? incidentScope(ctx) : caseScope(ctx);
  const where = and(scope, gte(table.reported_at, sql`now() - make_interval(days => ${PREVIEW_DAYS})`), condition);
  const [{ total } = { total: 0 }] = await ctx.tx.select({ total: count() }).from(table).where(where);
  const items = await ctx.tx
    .select({ id: table.id, name: table.name, title: table.title, status: table.status, project_id: table.project_id, reported_at: table.reported_at })
    .from(table)
    .where(where)
    .orderBy(desc(table.reported_at), desc(table.id))
    .limit(PREVIEW_ITEMS);
  return { subject, expression, days: PREVIEW_DAYS, total, items };
}

/** The filter editor's preview. */
export function registerNotificationRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/search/filters/preview',
    { schema: { tags, summary: 'What an expression would have matched over the last 30 days (count and first 25)', body: previewBody, ...previewAnswer } },
    async (req) => {
      const { subject, expression, filters } = req.body;
      if (expression === undefined && !filters) throw invalid('Send an expression, or picks as filters.', ['body', 'expression']);
      return inTenant(req, (ctx) => preview(ctx, subject, expression ?? expressionOfPicks(filters!)));
    },
  );
  app.get(
    '/search/filters/:id/preview',
    { schema: { tags, summary: 'What a saved filter would have matched over the last 30 days (count and first 25)', params: idParam, ...previewAnswer } },
    async (req) =>
      inTenant(req, async (ctx) => {
        const [filter] = await ctx.tx
          .select({ subject: searchFilters.subject, expression: searchFilters.expression })
          .from(searchFilters)
          .where(and(eq(searchFilters.organization_id, ctx.orgId), eq(searchFilters.id, req.params.id)));
        if (!filter) throw notFound('Search filter', req.params.id);
        return preview(ctx, filter.subject, filter.expression);
      }),
  );
}
