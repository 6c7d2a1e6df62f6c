import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { buildApp } from '../../../server/app.js';
import { loadConfig } from '../../../server/core/config.js';
import { spawnedServerDatabase, testApp } from '../../helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for `check` to hold; the bound only stops a hung test, it is not a speed target. */
async function eventually<T>(check: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined || Date.now() > deadline) return value;
    await sleep(100);
  }
}

t.test("a job queued in a request's transaction wakes the workers of another app on the database at commit", async (t) => {
  // Workers look for jobs every 30 s: only the notification can start the job within 5 s.
  const base = await testApp(t, { JOB_POLL_SECONDS: '30' });
  const other = await buildApp({ config: base.config, database: base.database, logger: false, mailer: async () => {} });
  t.teardown(() => other.close());
  await Promise.all([base.app.ready(), other.ready()]);
  // The request's own app takes no jobs, so the other app's workers must run it; their first look for
  // jobs (at start) is over before the request.
  await base.app.queue.stop();
  await sleep(500);
  const token = await base.login('commander@example.com');
  const project = await base.request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } });
  const created = await base.request({ method: 'POST', url: '/api/v1/default/iaos', token, payload: { title: 'Disk full', project_id: project.body.id } });
  t.equal(created.status, 201);
  const conversation = await eventually(async () => {
    const res = await base.request({ method: 'GET', url: `/api/v1/default/iaos/${created.body.id}`, token });
    return (res.body.conversation_id as number | null) ?? undefined;
  }, 5000);
  t.ok(conversation, 'the incident has its conversation within 5 s, the next poll being 30 s away');
});

t.test('a job whose worker process was killed runs again after its lease expires', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-lease-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = await spawnedServerDatabase(t, dir);
  const env = {
    ...db,
    JOB_LEASE_SECONDS: '2',
    JOB_POLL_SECONDS: '0.5',
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'test-secret-test-secret-test-secret-42',
    ADMIN_DIST: 'dist/no-admin-in-tests',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'tests/server/core/jobs-child.ts'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => void child.kill('SIGKILL'));
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const started = await eventually(async () => /started (\S+)/.exec(out)?.[1] ?? (child.exitCode !== null ? `exited: ${err}` : undefined), 300_000);
  t.match(started, /^[0-9a-f-]{36}$/, 'the child process started the job');
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));

  // Another process on the same data, whose worker finishes the job.
  const app = await buildApp({ config: loadConfig({ ...process.env, ...env }), logger: false, mailer: async () => {} });
  t.teardown(() => app.close());
  const ran: string[] = [];
  await app.queue.work('test-hang', async (_data, job) => void ran.push(job.id));
  await app.ready();
  const again = await eventually(async () => ran[0], 60_000);
  t.equal(again, started, 'the same job ran again in the other process');
  // Its completion is recorded once the handler has returned, in its own transaction.
  const completed = await eventually(async () => ((await app.queue.countJobs('test-hang')).completed === 1 ? 1 : undefined), 60_000);
  t.equal(completed, 1, 'and it is recorded as completed');
});
