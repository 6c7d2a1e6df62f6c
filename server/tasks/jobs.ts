import { z } from 'zod';
import { defineJob } from '../core/jobs/define.js';
import { remindEveryOrganization } from './service.js';

/** The scheduled sweep that e-mails the owners and assignees of overdue tasks, every organization (TASK_REMINDER_CRON). */
export const taskRemindersJob = defineJob({
  name: 'task-reminders',
  payload: z.object({}),
  cron: (config) => config.TASK_REMINDER_CRON,
  run: async (_data, { app }) => {
    const sent = await remindEveryOrganization(app.db, app.config, app.mailer, app.log);
    if (sent) app.log.info({ sent }, 'task reminders sent');
  },
});
