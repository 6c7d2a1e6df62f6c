import fp from 'fastify-plugin';
import { registerJobs } from '../core/jobs/define.js';
import { registerCaseRoutes } from './routes.js';
import { caseProvisionJob } from './service.js';

/** Cases: their action routes and the job that opens a case's conversation. */
export default fp(
  async (scope) => {
    registerCaseRoutes(scope);
    await registerJobs(scope, [caseProvisionJob]);
  },
  { name: 'cases', dependencies: ['firewatch-tenancy', 'firewatch-jobs'], fastify: '5.x' },
);
