import type { FastifyInstance } from 'fastify';
import { registerAnonymousCleanup } from './ai/anonymous-cleanup.js';
import { registerBackgroundJobs } from './incidents/background.js';
import type { Mailer } from './core/mail.js';
import { remindEveryOrganization } from './tasks/service.js';

/** The scheduled sweep that e-mails the owners and assignees of overdue tasks, every organization. */
export const TASK_REMINDERS_JOB = 'task-reminders';

/**
 * The app's own jobs on its queue (app.queue): incident and case background work, and the task
 * reminder schedule (TASK_REMINDER_CRON). The queue starts when the app is ready, before any request,
 * because a request inserts its jobs in its own transaction and cannot set the queue up from there.
 */
export async function registerAppJobs(app: FastifyInstance, deps: { mailer: Mailer }) {
  await registerBackgroundJobs(app);
  await app.queue.work(TASK_REMINDERS_JOB, async () => {
    const sent = await remindEveryOrganization(app.db, app.config, deps.mailer, app.log);
    if (sent) app.log.info({ sent }, 'task reminders sent');
  });
  const cron = app.config.TASK_REMINDER_CRON;
  await app.queue.schedule(TASK_REMINDERS_JOB, cron === 'off' ? null : cron);
  await registerAnonymousCleanup(app);
  app.addHook('onReady', () => app.queue.start());
}
