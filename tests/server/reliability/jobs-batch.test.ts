import { sql } from 'drizzle-orm';
import t from 'tap';
import { buildApp } from '../../../server/app.js';
import { BACKGROUND_LANE, drainJobs } from '../../../server/core/jobs/define.js';

const BACKGROUND_QUEUE = BACKGROUND_LANE.name;
import { rowsOf, testApp } from '../../helpers.js';
import { created } from '../factories.js';

// Review F12, "workers take batches": a worker claims up to 10 jobs with one statement, not one job per
// round trip. pg-boss's claim is one UPDATE that sets `started_on = now()`, and now() is the statement's
// transaction time: the jobs one claim took share their `started_on`, jobs of different claims do not. So
// the distinct `started_on` values of a queue's jobs are the claim statements that took them.

const INCIDENTS = 30;
const BATCH = 10;

t.test("a backlog of incidents' jobs is claimed in batches of up to ten, several jobs per round trip", async (t) => {
  // The first app's workers stop before the incidents are created, so their jobs wait as one backlog.
  const base = await testApp(t, { JOB_POLL_SECONDS: '60' });
  await base.app.ready();
  await base.app.queue.stop();
  const token = await base.login('commander@example.com');
  const project = await base.request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } });
  for (let i = 0; i < INCIDENTS; i++) {
    created(
      'incident',
      await base.request({ method: 'POST', url: '/api/v1/default/iaos', token, payload: { title: `Burst ${i}`, project_id: project.body.id } }),
    );
  }
  const queued = (await base.app.queue.countJobs(BACKGROUND_QUEUE)).created;
  t.ok(queued >= INCIDENTS, `${queued} jobs wait for a worker`);
  await base.app.close();

  // A second app on the same database works the backlog with the app's own worker settings.
  const second = await buildApp({ config: { ...base.config, JOB_POLL_SECONDS: 0.5 }, database: base.database, logger: false, mailer: async () => {} });
  t.teardown(() => second.close());
  await second.ready();
  await drainJobs(second, 120_000);
  t.equal((await second.queue.countJobs(BACKGROUND_QUEUE)).completed, queued, 'every job ran');
  const unprovisioned = rowsOf<{ n: number }>(await base.database.db.execute(sql`select count(*)::int as n from incidents where conversation_id is null`));
  t.equal(Number(unprovisioned[0]!.n), 0, 'every incident has its conversation');

  const claims = rowsOf<{ jobs: number }>(
    await base.database.db.execute(
      sql`select count(*)::int as jobs from pgboss.job where name = ${BACKGROUND_QUEUE} and started_on is not null group by started_on order by 1 desc`,
    ),
  ).map((r) => Number(r.jobs));
  const claimed = claims.reduce((a, b) => a + b, 0);
  t.comment(`${claimed} jobs claimed by ${claims.length} claim statements: ${claims.join(', ')} jobs each`);
  t.equal(claimed, queued, 'each job was claimed once');
  t.equal(claims[0], BATCH, `a claim takes a full batch (${BATCH}) when that many wait`);
  t.ok(claims.length <= Math.ceil(queued / BATCH) + 2, `${claims.length} claims for ${queued} jobs: several jobs per round trip, not one each`);
});
