import fp from 'fastify-plugin';
import { registerJobs } from '../core/jobs/define.js';
import { registerStatuspageRoutes } from './routes.js';
import { statusPostJob } from './service.js';

/** A public status page (Atlassian Statuspage): posts, follow-ups and the resolve, in the background. */
export default fp(
  async (scope) => {
    registerStatuspageRoutes(scope);
    await registerJobs(scope, [statusPostJob]);
  },
  { name: 'statuspage', dependencies: ['firewatch-tenancy', 'firewatch-jobs', 'firewatch-secrets'], fastify: '5.x' },
);
