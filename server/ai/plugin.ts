import fp from 'fastify-plugin';
import { registerJobs } from '../core/jobs/define.js';
import { configureEmbeddings } from './embeddings.js';
import { aiJobs } from './jobs.js';
import { registerRetrievalSource } from './retrieve.js';
import { registerAiRoutes } from './routes.js';
import { registerSocket } from './socket.js';
import { workspaceSource } from './workspace-source.js';
import { aiLayerSummarizer } from './summarizer.js';
import { setSummarizer } from '../incidents/ai.js';

/** The AI workspace under /api/v1/{organization}: the REST calls, the live socket, indexing and liked-answer jobs. */
export default fp(
  async (scope) => {
    registerRetrievalSource(workspaceSource);
    configureEmbeddings(scope.config);
    setSummarizer(aiLayerSummarizer);
    registerAiRoutes(scope);
    registerSocket(scope, { queue: scope.queue });
    await registerJobs(scope, aiJobs);
  },
  { name: 'ai', dependencies: ['firewatch-tenancy', 'firewatch-jobs', 'firewatch-live', 'firewatch-secrets'], fastify: '5.x' },
);
