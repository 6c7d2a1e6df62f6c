import fp from 'fastify-plugin';
import { registerJobs } from '../core/jobs/define.js';
import { dailyReportJob, notificationJob } from './dispatch.js';
import { registerNotificationRoutes } from './routes.js';

/** Notifications: a message per matching change, the daily report, and the filter preview. */
export default fp(
  async (scope) => {
    registerNotificationRoutes(scope);
    await registerJobs(scope, [notificationJob, dailyReportJob]);
  },
  { name: 'notifications', dependencies: ['firewatch-tenancy', 'firewatch-jobs', 'plugins'], fastify: '5.x' },
);
