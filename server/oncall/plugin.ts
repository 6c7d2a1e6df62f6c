import fp from 'fastify-plugin';
import { registerJobs } from '../core/jobs/define.js';
import { registerChannelRoutes } from './channels.js';
import { deliverJob } from './delivery.js';
import { escalateJob } from './escalation.js';
import { externalPageJob, resolveExternalJob } from './external.js';
import { casePagingJob, subscribePaging } from './hooks.js';
import { preshiftJob } from './preshift.js';
import { registerPublicOncallRoutes } from './public.js';
import { registerOncallRoutes } from './routes.js';
import { registerIncidentHandoffRoutes } from './incident-handoffs.js';

/** On-call: schedules, escalation, paging from incidents and cases, channels, feeds and e-mail links. */
export default fp(
  async (scope) => {
    registerOncallRoutes(scope);
    registerChannelRoutes(scope);
    registerIncidentHandoffRoutes(scope);
    // Encapsulated: its form parser stays with the links' routes.
    await scope.register(async (inner) => registerPublicOncallRoutes(inner));
    await registerJobs(scope, [escalateJob, deliverJob, externalPageJob, resolveExternalJob, casePagingJob, preshiftJob]);
    subscribePaging();
  },
  { name: 'oncall', dependencies: ['firewatch-tenancy', 'firewatch-jobs', 'plugins'], fastify: '5.x' },
);
