import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { inTenant } from '../core/tenancy.js';
import { ref, requiredText } from '../engine/fields.js';
import { escalateCase, probableCause } from './service.js';
import { fullCase } from './read.js';
import { idOrNameParam, idParam } from '../engine/crud.js';
import { nestNamed } from '../engine/nested.js';
import { caseResource } from './resources.js';
import { comments, events } from '../timeline/tables.js';
import { answers, arrayOf, int, messageAnswer, objectOf, recordWith, rowOf, str, type JsonSchema } from '../engine/answers.js';

const tags = ['Case'];
const list = (description: string): JsonSchema => ({ type: 'array', description, items: { type: 'object' } });
/** GET /cases/{id}: the case's record with every part of it. */
const fullCaseSchema = recordWith(caseResource, {
  documents: list('Attached documents: id, name, resource_type, weblink'),
  workflow_instances: list('Runs of workflows on the case, with their workflow {id, name}'),
  signals: list('Signal instances that raised the case'),
  groups: list('Signal groups of the case'),
  tags: list('Its tags'),
  events: arrayOf(rowOf(events)),
  comments: arrayOf(rowOf(comments)),
  participants: arrayOf(str),
  tasks: list('Its tasks'),
  incidents: list('The incident it was escalated to'),
});

/** Case actions beyond CRUD (spec §7 /cases). */
export function registerCaseRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/cases/:id',
    {
      schema: {
        tags,
        summary: 'One case (by id or name, OCO-1) with tags, timeline, comments and its incident',
        params: idOrNameParam,
        ...answers(200, fullCaseSchema),
      },
    },
    async (req) => nestNamed(caseResource, await inTenant(req, (ctx) => fullCase(ctx, req.params.id), { readOnly: true })),
  );

  app.put(
    '/cases/:id/escalate',
    {
      schema: {
        tags,
        summary: 'Escalate to an incident (type from the case type), copying tags and timeline',
        params: idParam,
        body: z
          .strictObject({
            incident_type_id: ref().nullish(),
            incident_priority_id: ref().nullish(),
            incident_severity_id: ref().nullish(),
            title: requiredText(500).optional(),
          })
          .nullish(),
        ...messageAnswer({ incident_id: int, case: fullCaseSchema }),
      },
    },
    (req) =>
      inTenant(req, async (ctx) => {
        const incidentId = await escalateCase(ctx, req.params.id, req.body ?? {});
        return { message: 'Case escalated successfully.', incident_id: incidentId, case: await fullCase(ctx, req.params.id) };
      }),
  );

  app.get(
    '/cases/:id/probable_cause',
    { schema: { tags, summary: 'Probable cause through the AI layer', params: idParam, ...answers(200, objectOf({ probable_cause: str, method: str })) } },
    (req) => inTenant(req, (ctx) => probableCause(ctx, req.params.id)),
  );
}
