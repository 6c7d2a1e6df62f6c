import fp from 'fastify-plugin';
import { registerJobs } from '../core/jobs/define.js';
import { reextractJob } from './entity-routes.js';
import { signalMailJob } from './follow-up.js';
import { registerSignalProcessor } from './ingest.js';
import { registerSignalRoutes } from './routes.js';

/** Signals and entities: ingestion, the background processor, engagement and subscriber mail, re-extraction runs. */
export default fp(
  async (scope) => {
    registerSignalRoutes(scope);
    registerSignalProcessor(scope);
    await registerJobs(scope, [signalMailJob, reextractJob]);
  },
  { name: 'signals', dependencies: ['firewatch-tenancy', 'firewatch-jobs', 'workflows'], fastify: '5.x' },
);
