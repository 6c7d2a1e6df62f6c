import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { inTenant } from '../core/tenancy.js';
import { coercedDate } from '../core/input.js';
import { idValue } from '../engine/crud.js';
import { answers, str } from '../engine/answers.js';
import { dashboardSummary } from './summary.js';

const tags = ['Incident'];
const id = idValue;
const date = () => coercedDate();

/** The dashboards' figures across incidents, cases, tasks, data sources and feedback (above every one of those domains). */
export function registerDashboardRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/iaos/metric/summary',
    {
      schema: {
        tags,
        summary: 'Dashboard figures: incidents, cases and tasks per month, times to stable and close, cost, people, data sources, feedback ratings',
        querystring: z.strictObject({ since: date().optional(), project_id: id.optional() }),
        ...answers(200, {
          type: 'object',
          properties: {
            since: str,
            project_id: { type: 'integer', nullable: true },
            incidents: { type: 'object', description: 'Times to stable and close, and counts by month' },
            cases: { type: 'object', description: 'Times to close, and counts by month' },
            tasks: { type: 'object', description: 'Times to resolve, and counts by month' },
            people: { type: 'object', description: 'Participants and commanders' },
            data: { type: 'object', description: 'Data sources by month, freshness, most queried' },
            feedback: { type: 'object', description: 'Ratings by month, latest comments, service feedback' },
          },
        }),
      },
    },
    (req) =>
      inTenant(req, (ctx) => dashboardSummary(ctx, { since: req.query.since ?? new Date(Date.now() - 365 * 86400_000), projectId: req.query.project_id }), {
        readOnly: true,
      }),
  );
}
