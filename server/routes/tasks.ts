import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { getRecord, idParam } from './crud.js';
import { inTenant } from '../plugins/tenancy.js';
import { taskResource } from '../resources/incidents.js';
import { setTaskStatus } from '../services/incidents/tasks.js';

/** Task actions beyond CRUD (spec §7 /tasks): resolve and reopen with their messages. */
export function registerTaskRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  for (const [path, status] of [['mark-resolved', 'Resolved'], ['mark-open', 'Open']] as const) {
    app.post(`/tasks/:id/${path}`, { schema: { tags: ['Task'], summary: status === 'Resolved' ? 'Resolve a task' : 'Reopen a task', params: idParam } }, (req) =>
      inTenant(req, async (ctx) => {
        const message = await setTaskStatus(ctx, req.params.id, status);
        return { message, task: await getRecord(taskResource, ctx, req.params.id) };
      }),
    );
  }
}
