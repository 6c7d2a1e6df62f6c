import fp from 'fastify-plugin';
import { registerJobs } from '../core/jobs/define.js';
import { workflowPollJob, workflowStartJob, workflowStepsJob, workflowTimeoutJob } from './engine.js';
import { registerWorkflowRoutes } from './routes.js';

/** Workflows: manual runs, engine callbacks, and the jobs that start, poll, time out and step through runs. */
export default fp(
  async (scope) => {
    registerWorkflowRoutes(scope);
    await registerJobs(scope, [workflowStartJob, workflowPollJob, workflowTimeoutJob, workflowStepsJob]);
  },
  { name: 'workflows', dependencies: ['firewatch-tenancy', 'firewatch-jobs', 'plugins'], fastify: '5.x' },
);
