import { systemActor } from '../../../server/core/context.js';
import { and, eq } from 'drizzle-orm';
import postgres from 'postgres';
import t from 'tap';
import { buildApp } from '../../../server/app.js';
import { organizations, tagTypes } from '../../../server/schema.js';
import { runInTenant } from '../../../server/core/tenancy.js';
import { z } from 'zod';
import { BACKGROUND_LANE, defineJob, drainJobs, enqueueJob, registerJobs } from '../../../server/core/jobs/define.js';
import { testApp, type TestApp } from '../../helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Jobs these tests queue: each records its `n` (and which test it belongs to). */
const ran: { test: string; n: number }[] = [];
const recordJob = defineJob({
  name: 'test.record',
  lane: BACKGROUND_LANE,
  payload: z.object({ test: z.string(), n: z.number() }),
  run: async (data) => {
    await sleep(5);
    ran.push(data);
  },
});
let slowStarted: () => void = () => {};
const slowJob = defineJob({
  name: 'test.slow',
  lane: BACKGROUND_LANE,
  payload: z.object({}),
  run: (_data, job) =>
    job.tenant(async (ctx) => {
      slowStarted();
      await sleep(1000);
      await ctx.tx.insert(tagTypes).values({ organization_id: ctx.orgId, name: 'Written by a slow job' });
    }),
});
const BACKGROUND_QUEUE = BACKGROUND_LANE.name;

/** Runs `fn` in the default organization's tenant transaction, as a job-queuing request would. */
async function inDefaultOrg<T>(base: TestApp, fn: Parameters<typeof runInTenant<T>>[3]) {
  const [org] = await base.database.db.select().from(organizations).where(eq(organizations.slug, 'default'));
  return runInTenant(base.database.db, base.config, systemActor({ orgId: org!.id, orgSlug: org!.slug }), fn);
}

t.test("a job exists only if the request's transaction committed", async (t) => {
  const base = await testApp(t, { JOB_POLL_SECONDS: '0.5' });
  await registerJobs(base.app, [recordJob, slowJob]);
  await base.app.ready();
  await t.rejects(
    inDefaultOrg(base, async (ctx) => {
      await enqueueJob(ctx, recordJob, { test: 'rollback', n: 1 });
      throw new Error('the request failed after queuing');
    }),
    /the request failed/,
  );
  t.same(Object.values(await base.app.queue.countJobs(BACKGROUND_QUEUE)), [0, 0, 0, 0, 0, 0], 'a rolled back request leaves no job');
  await inDefaultOrg(base, (ctx) => enqueueJob(ctx, recordJob, { test: 'commit', n: 2 }));
  await drainJobs(base.app);
  t.same(
    ran.filter((r) => ['rollback', 'commit'].includes(r.test)),
    [{ test: 'commit', n: 2 }],
    'the committed job ran once, the rolled back one never',
  );
  t.equal((await base.app.queue.countJobs(BACKGROUND_QUEUE)).completed, 1);
});

t.test("an incident's conversation job survives a restart", async (t) => {
  const base = await testApp(t, { JOB_POLL_SECONDS: '60' });
  // The first app's workers stop before the incident is created, as if the process ended first.
  await base.app.ready();
  await base.app.queue.stop();
  const token = await base.login('commander@example.com');
  const project = await base.request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } });
  const created = await base.request({ method: 'POST', url: '/api/v1/default/iaos', token, payload: { title: 'Disk full', project_id: project.body.id } });
  t.equal(created.status, 201);
  t.equal((await base.app.queue.countJobs(BACKGROUND_QUEUE)).created, 1, 'the job waits in the database');
  await base.app.close();

  const second = await buildApp({ config: { ...base.config, JOB_POLL_SECONDS: 0.5 }, database: base.database, logger: false, mailer: async () => {} });
  t.teardown(() => second.close());
  await second.ready();
  await drainJobs(second);
  const res = await second.inject({ method: 'GET', url: `/api/v1/default/iaos/${created.body.id}`, headers: { authorization: `Bearer ${token}` } });
  t.ok(res.json().conversation_id, 'the restarted app ran it');
  t.equal(res.json().conference_url, 'https://meet.jit.si/firewatch-default-IAO-1');
  t.equal((await second.queue.countJobs(BACKGROUND_QUEUE)).completed, 1);
});

t.test('two apps on one database run each job once', async (t) => {
  const base = await testApp(t, { JOB_POLL_SECONDS: '0.5' });
  const other = await buildApp({ config: base.config, database: base.database, logger: false, mailer: async () => {} });
  t.teardown(() => other.close());
  await registerJobs(base.app, [recordJob, slowJob]);
  await registerJobs(other, [recordJob, slowJob]);
  await Promise.all([base.app.ready(), other.ready()]);
  await inDefaultOrg(base, async (ctx) => {
    for (let n = 1; n <= 20; n++) await enqueueJob(ctx, recordJob, { test: 'two apps', n });
  });
  other.queue.notify(BACKGROUND_QUEUE);
  await drainJobs(base.app);
  t.same(
    ran
      .filter((r) => r.test === 'two apps')
      .map((r) => r.n)
      .sort((a, b) => a - b),
    Array.from({ length: 20 }, (_, i) => i + 1),
  );
});

t.test('closing the app lets a running job finish', async (t) => {
  const base = await testApp(t, { JOB_POLL_SECONDS: '0.5' });
  await registerJobs(base.app, [recordJob, slowJob]);
  await base.app.ready();
  const started = new Promise<void>((resolve) => (slowStarted = resolve));
  const org = await inDefaultOrg(base, async (ctx) => {
    await enqueueJob(ctx, slowJob, {});
    return ctx.orgId;
  });
  base.app.queue.notify(BACKGROUND_QUEUE);
  await started;
  await base.app.close();
  const rows = await base.database.db
    .select()
    .from(tagTypes)
    .where(and(eq(tagTypes.organization_id, org), eq(tagTypes.name, 'Written by a slow job')));
  t.equal(rows.length, 1, 'the job finished its work before the app closed');
  t.equal((await base.app.queue.countJobs(BACKGROUND_QUEUE)).completed, 1);
});

t.test(
  "closing the app waits for the queue's statements in flight, so the pool closes at once",
  { skip: !process.env.DATABASE_URL && 'PGlite has one connection: nothing can hold a lock while the queue polls' },
  async (t) => {
    const base = await testApp(t, { JOB_POLL_SECONDS: '0.5' });
    await base.app.ready();
    // A connection of its own holds the job table, so the workers' next poll (every 0.5 s) waits on it.
    const other = postgres(base.url!, { max: 2, onnotice: () => {} });
    t.teardown(() => other.end());
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const holding = other.begin(async (tx) => {
      await tx`lock table pgboss.job in access exclusive mode`;
      await released;
    });
    const count = async (where: string) =>
      (await other.unsafe(`select count(*)::int as n from pg_stat_activity where datname = current_database() and ${where}`))[0]!.n as number;
    for (let i = 0; i < 100 && !(await count(`wait_event_type = 'Lock'`)); i++) await sleep(100);
    t.ok(await count(`wait_event_type = 'Lock'`), 'a poll is waiting on the lock');

    let closed = false;
    const closing = base.app.close().then(() => void (closed = true));
    await sleep(500);
    t.notOk(closed, 'the app is still closing while its poll waits');
    release();
    await holding;
    await closing;
    t.equal(await count(`state = 'active' and pid <> pg_backend_pid()`), 0, 'no statement of the queue is left running once the app has closed');
  },
);

t.test('a job is enqueued only with the payload it declares, and only once its domain registered it', async (t) => {
  const base = await testApp(t, { JOB_POLL_SECONDS: '0.5' });
  await registerJobs(base.app, [recordJob]);
  await base.app.ready();
  await t.rejects(
    inDefaultOrg(base, (ctx) => enqueueJob(ctx, recordJob, { test: 'bad', n: 'one' as never })),
    /expected number/,
    'a payload of the wrong shape is refused before anything is queued',
  );
  await t.rejects(
    inDefaultOrg(base, (ctx) => enqueueJob(ctx, slowJob, {})),
    /Job 'test.slow' is not registered/,
  );
  await t.rejects(registerJobs(base.app, [recordJob]), /registered twice/);
  t.same(Object.values(await base.app.queue.countJobs(BACKGROUND_QUEUE)), [0, 0, 0, 0, 0, 0], 'nothing was queued');
});

t.test('a feature plugin names what it needs loaded first', async (t) => {
  const { default: Fastify } = await import('fastify');
  const { default: cases } = await import('../../../server/cases/plugin.js');
  const app = Fastify();
  t.teardown(() => app.close());
  app.register(cases);
  await t.rejects(async () => void (await app.ready()), /dependency 'firewatch-tenancy' of plugin 'cases' is not registered/);
});
