import fp from 'fastify-plugin';
import { registerJobs } from '../core/jobs/define.js';
import { registerCommitRoutes } from './routes.js';
import { commitScheduleJob, commitSyncJob } from './sync.js';

/** Commits synced from GitHub on a schedule and on demand, and an incident's suspects among them. */
export default fp(
  async (scope) => {
    registerCommitRoutes(scope);
    await registerJobs(scope, [commitSyncJob, commitScheduleJob]);
  },
  { name: 'commits', dependencies: ['firewatch-tenancy', 'firewatch-jobs', 'firewatch-secrets'], fastify: '5.x' },
);
