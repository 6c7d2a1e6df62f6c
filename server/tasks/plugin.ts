import fp from 'fastify-plugin';
import { registerJobs } from '../core/jobs/define.js';
import { taskRemindersJob } from './jobs.js';
import { registerTaskRoutes } from './routes.js';
import { addIncidentPart } from '../incidents/read.js';
import { incidentTasksPart } from './service.js';
import { tasks } from './tables.js';

/** Tasks: reminders sent on demand and on a schedule, and the full incident's list of them. */
export default fp(
  async (scope) => {
    registerTaskRoutes(scope, { mailer: scope.mailer });
    addIncidentPart('tasks', incidentTasksPart, [tasks]);
    await registerJobs(scope, [taskRemindersJob]);
  },
  { name: 'tasks', dependencies: ['firewatch-tenancy', 'firewatch-jobs'], fastify: '5.x' },
);
