import fp from 'fastify-plugin';
import { registerJobs } from '../core/jobs/define.js';
import { postmortemJob } from './actions.js';
import { incidentProvisionJob, statusWorkflowsJob } from './lifecycle.js';
import { registerIncidentRoutes } from './routes.js';
import { loadIncident } from './scope.js';
import { setTimelineOwner } from '../timeline/actions.js';

/** Incidents: their action routes, and the jobs that provision them, run their status workflows and write the postmortem. */
export default fp(
  async (scope) => {
    registerIncidentRoutes(scope, { mailer: scope.mailer });
    setTimelineOwner('incident', loadIncident);
    await registerJobs(scope, [incidentProvisionJob, statusWorkflowsJob, postmortemJob]);
  },
  { name: 'incidents', dependencies: ['firewatch-tenancy', 'firewatch-jobs'], fastify: '5.x' },
);
