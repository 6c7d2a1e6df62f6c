import fastifyWebsocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { createQueue } from '../jobs/queue.js';
import { registerAiRoutes } from '../routes/ai.js';
import { registerSocket } from '../ws/socket.js';
import { INDEX_JOB, indexSubmission, type IndexOptions } from './ingest.js';
import { LIKED_JOB, processLikedMessage } from './liked.js';
import { largestFileLimit } from './limits.js';
import { registerRetrievalSource } from './retrieve.js';
import { workspaceSource } from './workspace-source.js';

/**
 * App-level parts of the AI workspace: the job queue (app.queue, shared by every domain), the
 * indexing and liked-answer workers, and the websocket plugin sized for the largest upload any plan allows.
 */
export async function registerAiWorkspace(app: FastifyInstance, database: Database) {
  const queue = createQueue(database, { pollingIntervalSeconds: app.config.JOB_POLL_SECONDS });
  queue.events.on('error', (err) => app.log.error({ err }, 'job queue error'));
  queue.events.on('failed', (name, err) => app.log.warn({ err, job: name }, 'job failed'));
  app.decorate('queue', queue);
  registerRetrievalSource(workspaceSource);
  await queue.work<{ orgId: number; submissionId: number }>(INDEX_JOB, (d) => indexSubmission(database.db, d.orgId, d.submissionId, indexOptions(app.config)), { concurrency: 2 });
  await queue.work<{ orgId: number; feedbackId: number }>(LIKED_JOB, (d) => processLikedMessage(database.db, app.config, d.orgId, d.feedbackId, indexOptions(app.config)));
  // The queue starts once the app is ready (server/jobs/app-jobs.ts) and stops before it closes.
  app.addHook('preClose', async () => {
    await queue.stop().catch((err) => app.log.warn({ err }, 'job queue did not stop cleanly'));
  });
  // base64 grows a file by a third; the JSON frame adds a little more.
  await app.register(fastifyWebsocket, { options: { maxPayload: Math.ceil(largestFileLimit(app.config) * 1.4) + 64 * 1024 } });
}

/** What the indexing job needs from the configuration: where YouTube links are fetched. */
export const indexOptions = (config: Config): IndexOptions => ({ youtube: { baseUrl: config.YOUTUBE_BASE_URL, timeoutMs: Math.min(config.AI_TIMEOUT_MS, 15_000) } });

/** Routes under /api/v1/{organization}: the live socket and the AI REST calls. */
export function registerAiScope(scope: FastifyInstance) {
  registerAiRoutes(scope);
  registerSocket(scope, { queue: scope.queue });
}
