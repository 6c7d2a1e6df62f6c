import fp from 'fastify-plugin';
import { registerJobs } from '../core/jobs/define.js';
import { deliveryJob } from './delivery.js';
import { registerWebhookRoutes } from './routes.js';

/** Outgoing webhooks: deliveries with retries, and replays. */
export default fp(
  async (scope) => {
    registerWebhookRoutes(scope);
    await registerJobs(scope, [deliveryJob]);
  },
  { name: 'webhooks', dependencies: ['firewatch-tenancy', 'firewatch-jobs', 'firewatch-secrets'], fastify: '5.x' },
);
