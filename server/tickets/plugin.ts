import fp from 'fastify-plugin';
import { registerJobs } from '../core/jobs/define.js';
import { registerTicketRoutes } from './routes.js';
import { pruneTicketDeliveriesJob, ticketSyncJob } from './service.js';

/** Tickets in an outside system (Jira): opened and moved in the background, its webhook onto the timeline. */
export default fp(
  async (scope) => {
    registerTicketRoutes(scope);
    await registerJobs(scope, [ticketSyncJob, pruneTicketDeliveriesJob]);
  },
  { name: 'tickets', dependencies: ['firewatch-tenancy', 'firewatch-jobs', 'firewatch-secrets'], fastify: '5.x' },
);
