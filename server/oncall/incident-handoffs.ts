import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { inTenant } from '../core/tenancy.js';
import { idParam, idValue } from '../engine/crud.js';
import { answers, arrayOf, messageAnswer, objectOf, recordOf, str } from '../engine/answers.js';
import { createIncidentHandoff, handoffPrefill } from './handoffs.js';
import { handoffResource } from './resources.js';

/** On-call handoffs started from an incident. */
export function registerIncidentHandoffRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/oncall/handoffs/prefill',
    {
      schema: {
        tags: ['Handoff'],
        summary: "Handoff dialog defaults: the caller's shift, its ongoing incidents (or one incident) and their tasks",
        querystring: z.strictObject({ incident_id: idValue.optional() }),
        ...answers(
          200,
          objectOf({
            handover_from: str,
            start_time: str,
            end_time: str,
            project_id: { type: 'integer', nullable: true },
            critical_ongoing_issues: str,
            pending_tasks: str,
            tasks_completed: str,
            mentions: str,
            incidents: arrayOf(str),
          }),
        ),
      },
    },
    (req) => inTenant(req, (ctx) => handoffPrefill(ctx, req.query.incident_id), { readOnly: true }),
  );
  app.post(
    '/iaos/:id/handoff',
    {
      schema: {
        tags: ['Incident'],
        summary: "Record an on-call handoff from the incident (in the incident's project) on its timeline",
        params: idParam,
        body: handoffResource.create,
        ...messageAnswer({ handoff: recordOf(handoffResource) }, 201),
      },
    },
    async (req, reply) => {
      const handoff = await inTenant(req, (ctx) => createIncidentHandoff(ctx, req.params.id, req.body as Record<string, unknown>));
      return reply.status(201).send({ message: 'Handoff created successfully.', handoff });
    },
  );
}
