/**
 * A server process whose worker takes one job of 'test-hang' and never finishes it (for the test that
 * kills it): prints `started <job id>` once the job runs. Configured through the environment.
 */
import { buildApp } from '../../../server/app.js';
import { loadConfig } from '../../../server/core/config.js';

const app = await buildApp({ config: loadConfig(), logger: false, mailer: async () => {} });
await app.queue.work('test-hang', async (_data, job) => {
  console.log(`started ${job.id}`);
  await new Promise(() => {});
});
await app.ready();
await app.queue.enqueue('test-hang', { n: 1 }, { retryDelaySeconds: 1 });
