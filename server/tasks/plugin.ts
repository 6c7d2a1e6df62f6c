import fp from 'fastify-plugin';
import { registerJobs } from '../core/jobs/define.js';
import { taskRemindersJob } from './jobs.js';
import { registerTaskRoutes } from './routes.js';

/** Tasks: reminders sent on demand and on a schedule. */
export default fp(
  async (scope) => {
    registerTaskRoutes(scope, { mailer: scope.mailer });
    await registerJobs(scope, [taskRemindersJob]);
  },
  { name: 'tasks', dependencies: ['firewatch-tenancy', 'firewatch-jobs'], fastify: '5.x' },
);
