import type { FastifyInstance } from 'fastify';
import type { Mailer } from '../core/mail.js';
import { forbidden } from '../core/errors.js';
import { may } from '../core/context.js';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { getRecord, idParam } from '../engine/crud.js';
import { inTenant } from '../core/tenancy.js';
import { taskResource } from './resources.js';
import { int, messageAnswer, recordOf } from '../engine/answers.js';
import { sendReminderMails, setTaskStatus, taskReminders } from './service.js';

/** Task actions beyond CRUD (spec §7 /tasks): resolve and reopen with their messages. */
export function registerTaskRoutes(scope: FastifyInstance, deps?: { mailer: Mailer }) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  // Sends this organization's due reminders now; the job queue does so for all on a schedule (server/app-jobs.ts).
  app.post(
    '/tasks/reminders/send',
    { schema: { tags: ['Task'], summary: 'E-mail the owners and assignees of overdue open tasks (once a day per task)', ...messageAnswer({ sent: int }) } },
    async (req) => {
      const mails = await inTenant(req, async (ctx) => {
        if (!may(ctx.role, 'webhooks')) throw forbidden('Only an Admin or above may send task reminders.');
        return taskReminders(ctx);
      });
      const sent = deps ? await sendReminderMails(deps.mailer, mails, req.log) : 0;
      return { message: `${sent} reminder(s) sent.`, sent };
    },
  );
  for (const [path, status] of [
    ['mark-resolved', 'Resolved'],
    ['mark-open', 'Open'],
  ] as const) {
    app.post(
      `/tasks/:id/${path}`,
      {
        schema: {
          tags: ['Task'],
          summary: status === 'Resolved' ? 'Resolve a task' : 'Reopen a task',
          params: idParam,
          ...messageAnswer({ task: recordOf(taskResource) }),
        },
      },
      (req) =>
        inTenant(req, async (ctx) => {
          const message = await setTaskStatus(ctx, req.params.id, status);
          return { message, task: await getRecord(taskResource, ctx, req.params.id) };
        }),
    );
  }
}
