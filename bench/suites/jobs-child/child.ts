/**
 * A Firewatch process (bench/suites/jobs.ts kills it with SIGKILL): its worker takes the one 'bench-hang'
 * job it queues and never finishes it, printing `started <job id>`. The job queue's settings are
 * production's defaults (JOB_LEASE_SECONDS, JOB_POLL_SECONDS), so the pick-up time measured is a user's.
 */
import { buildApp } from '../../../server/app.js';
import { loadConfig } from '../../../server/core/config.js';

const app = await buildApp({
  config: loadConfig({ ...process.env, LOG_LEVEL: 'silent', ADMIN_DIST: 'dist/no-admin-in-bench' }),
  logger: false,
  mailer: async () => {},
});
await app.queue.work('bench-hang', async (_data, job) => {
  console.log(`started ${job.id}`);
  await new Promise(() => {});
});
await app.ready();
await app.queue.enqueue('bench-hang', { at: Date.now() });
