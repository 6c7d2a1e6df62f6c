import fp from 'fastify-plugin';
import { registerJobs } from '../core/jobs/define.js';
import { registerCaseRoutes } from './routes.js';
import { caseProvisionJob, closeLinkedCases } from './service.js';
import { onIncidentClosed } from '../incidents/lifecycle.js';
import { addIncidentPart } from '../incidents/read.js';
import { incidentCasesPart } from './read.js';
import { loadCase } from './scope.js';
import { setTimelineOwner } from '../timeline/actions.js';

/** Cases: their action routes, the job that opens a case's conversation, closing with their incident, and the incident's list of them. */
export default fp(
  async (scope) => {
    registerCaseRoutes(scope);
    setTimelineOwner('case', loadCase);
    onIncidentClosed(closeLinkedCases);
    addIncidentPart('cases', incidentCasesPart);
    await registerJobs(scope, [caseProvisionJob]);
  },
  { name: 'cases', dependencies: ['firewatch-tenancy', 'firewatch-jobs'], fastify: '5.x' },
);
