import fastifyWebsocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../core/config.js';
import type { Database } from '../core/db/client.js';
import { createQueue } from '../core/jobs/queue.js';
import { registerAiRoutes } from './routes.js';
import { registerSocket } from './socket.js';
import { INDEX_JOB, indexSubmission, type IndexOptions } from './ingest.js';
import { LIKED_JOB, processLikedMessage } from './liked.js';
import { UNAUTHENTICATED_FRAME_BYTES } from './limits.js';
import { registerRetrievalSource } from './retrieve.js';
import { workspaceSource } from './workspace-source.js';
import { configureEmbeddings } from './embeddings.js';
import { startLiveFeed } from '../live/changes.js';

/**
 * App-level parts of the AI workspace: the job queue (app.queue, shared by every domain), the
 * indexing and liked-answer workers, and the websocket plugin.
 */
export async function registerAiWorkspace(app: FastifyInstance, database: Database) {
  const queue = createQueue(database, { pollingIntervalSeconds: app.config.JOB_POLL_SECONDS, leaseSeconds: app.config.JOB_LEASE_SECONDS });
  queue.events.on('error', (err) => app.log.error({ err }, 'job queue error'));
  queue.events.on('failed', (name, err) => app.log.warn({ err, job: name }, 'job failed'));
  app.decorate('queue', queue);
  registerRetrievalSource(workspaceSource);
  configureEmbeddings(app.config);
  // One upload at a time per worker: an indexing job is long, so a batch would only hold the next one back.
  await queue.work<{ orgId: number; submissionId: number }>(INDEX_JOB, (d) => indexSubmission(database.db, d.orgId, d.submissionId, indexOptions(app.config)), {
    concurrency: 2,
    batchSize: 1,
  });
  await queue.work<{ orgId: number; feedbackId: number }>(LIKED_JOB, (d) =>
    processLikedMessage(database.db, app.config, d.orgId, d.feedbackId, indexOptions(app.config)),
  );
  // The queue starts once the app is ready (server/app-jobs.ts) and stops before it closes.
  app.addHook('preClose', async () => {
    await queue.stop().catch((err) => app.log.warn({ err }, 'job queue did not stop cleanly'));
  });
  // Incident and case changes committed by any process reach this one's sockets (see live/changes.ts).
  const live = await startLiveFeed(database, (err) => app.log.warn({ err }, 'bad live change notification'));
  app.decorate('live', live);
  app.addHook('preClose', async () => {
    await live.stop().catch((err) => app.log.warn({ err }, 'live feed did not stop cleanly'));
  });
  // Frames are small until the socket knows its caller; it then raises the limit to the caller's plan.
  await app.register(fastifyWebsocket, { options: { maxPayload: UNAUTHENTICATED_FRAME_BYTES } });
}

/** What the indexing job needs from the configuration: where YouTube links are fetched. */
export const indexOptions = (config: Config): IndexOptions => ({
  youtube: { baseUrl: config.YOUTUBE_BASE_URL, timeoutMs: Math.min(config.AI_TIMEOUT_MS, 15_000) },
});

/** Routes under /api/v1/{organization}: the live socket and the AI REST calls. */
export function registerAiScope(scope: FastifyInstance) {
  registerAiRoutes(scope);
  registerSocket(scope, { queue: scope.queue });
}
