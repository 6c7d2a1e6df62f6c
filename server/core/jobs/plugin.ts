import fp from 'fastify-plugin';
import type { Database } from '../db/client.js';
import { registerQueue, wakeQueued } from './define.js';
import { createQueue } from './queue.js';

/**
 * The app's job queue (app.queue), shared by every domain: each domain's plugin registers its jobs
 * (registerJobs). The queue starts when the app is ready, before any request, because a request
 * inserts its jobs in its own transaction and cannot set the queue up from there; it stops before the
 * app closes.
 */
export const jobsPlugin = fp<{ database: Database }>(
  async (app, { database }) => {
    const queue = createQueue(database, { pollingIntervalSeconds: app.config.JOB_POLL_SECONDS, leaseSeconds: app.config.JOB_LEASE_SECONDS });
    queue.events.on('error', (err) => app.log.error({ err }, 'job queue error'));
    queue.events.on('failed', (name, err) => app.log.warn({ err, job: name }, 'job failed'));
    app.decorate('queue', queue);
    registerQueue(database.db, queue);
    app.addHook('onReady', () => queue.start());
    // A job inserted by a request's transaction wakes no worker by itself: wake them once it answered.
    app.addHook('onResponse', async (req) => {
      if (req.method !== 'GET') wakeQueued(database.db);
    });
    app.addHook('preClose', async () => {
      await queue.stop().catch((err) => app.log.warn({ err }, 'job queue did not stop cleanly'));
    });
  },
  { name: 'firewatch-jobs', fastify: '5.x' },
);
