import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import t, { type Test } from 'tap';
import { buildApp } from '../../../server/app.js';
import { loadConfig } from '../../../server/core/config.js';
import { rowsOf } from '../../../server/core/db/client.js';
import { freshDatabase, testApp } from '../../helpers.js';

const METRICS_TOKEN = 'metrics-token-0123456789';

/** A stand-in for the built admin app, so `/` and admin routes are served as in production. */
function adminDist(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'fw-admin-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Firewatch</title><div id="root"></div>');
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('browser security headers on the admin app, its routes and the API', async (t) => {
  const { request, login } = await testApp(t, { ADMIN_DIST: adminDist(t) });
  const token = await login('sec@example.com');
  const answers = {
    '/': await request({ method: 'GET', url: '/' }),
    '/incidents/12/show': await request({ method: 'GET', url: '/incidents/12/show' }),
    '/api/v1/default/tags': await request({ method: 'GET', url: '/api/v1/default/tags', token }),
    'a 404 of the API': await request({ method: 'GET', url: '/api/v1/nothing-here' }),
  };
  for (const [what, res] of Object.entries(answers)) {
    const csp = String(res.headers['content-security-policy'] ?? '');
    t.match(csp, /default-src 'self'/, `${what}: a content security policy`);
    t.match(csp, /script-src 'self'(;|$)/, `${what}: scripts only from the app's own files`);
    t.notMatch(csp, /script-src[^;]*unsafe/, `${what}: no inline script`);
    t.match(csp, /frame-ancestors 'none'/, `${what}: no framing`);
    t.notMatch(csp, /upgrade-insecure-requests/, `${what}: plain http (localhost) keeps working`);
    t.equal(res.headers['x-frame-options'], 'DENY', what);
    t.equal(res.headers['x-content-type-options'], 'nosniff', what);
    t.equal(res.headers['referrer-policy'], 'no-referrer', what);
    t.equal(res.headers['strict-transport-security'], undefined, `${what}: no HSTS over plain http`);
  }
  t.equal(answers['/'].status, 200);
  t.match(answers['/'].body, /<div id="root">/);
  t.equal(answers['/incidents/12/show'].status, 200);
  t.equal(answers['/api/v1/default/tags'].status, 200);
});

t.test('HSTS only on answers that came over TLS (a trusted proxy saying https)', async (t) => {
  // Requests injected in tests come from 127.0.0.1, named here as the proxy.
  const { request } = await testApp(t, { TRUST_PROXY: '127.0.0.1' });
  const tls = await request({ method: 'GET', url: '/api/v1/healthcheck', headers: { 'x-forwarded-proto': 'https' } });
  t.match(tls.headers['strict-transport-security'], /^max-age=31536000; includeSubDomains$/);
  const plain = await request({ method: 'GET', url: '/api/v1/healthcheck' });
  t.equal(plain.headers['strict-transport-security'], undefined);
});

t.test('X-Request-Id: kept when sane, generated otherwise, on every answer and every log line', async (t) => {
  const { database } = await freshDatabase(t);
  const lines: Record<string, unknown>[] = [];
  const config = loadConfig({ LOG_LEVEL: 'info', JWT_SECRET: 'test-secret-test-secret-test-secret-42', ADMIN_DIST: 'dist/no-admin-in-tests' });
  const app = await buildApp({ config, database, mailer: async () => undefined, logStream: { write: (line) => void lines.push(JSON.parse(line)) } });
  t.teardown(() => app.close());

  const given = await app.inject({ method: 'GET', url: '/api/v1/default/tags', headers: { 'x-request-id': 'lb-7f3a.9_Z-1' } });
  t.equal(given.statusCode, 401);
  t.equal(given.headers['x-request-id'], 'lb-7f3a.9_Z-1', "the caller's id comes back, on an error too");
  const logged = lines.filter((l) => l.reqId === 'lb-7f3a.9_Z-1');
  t.ok(logged.length >= 2, 'its request and answer are logged under it');
  t.ok(
    lines.filter((l) => 'req' in l || 'res' in l).every((l) => typeof l.reqId === 'string'),
    'every request log line has a reqId',
  );

  for (const bad of ['has space', 'x'.repeat(129), 'a"}{"level":60', '']) {
    const res = await app.inject({ method: 'GET', url: '/api/v1/healthcheck', headers: { 'x-request-id': bad } });
    const id = String(res.headers['x-request-id']);
    t.not(id, bad, `${JSON.stringify(bad.slice(0, 20))} is replaced`);
    t.match(id, /^[0-9a-f-]{36}$/, 'by a generated one');
    t.ok(
      lines.some((l) => l.reqId === id),
      'which the log uses',
    );
  }
  const a = await app.inject({ method: 'GET', url: '/api/v1/healthcheck' });
  const b = await app.inject({ method: 'GET', url: '/api/v1/healthcheck' });
  t.not(a.headers['x-request-id'], b.headers['x-request-id'], 'each request gets its own');
});

t.test('/metrics: 404 without METRICS_TOKEN', async (t) => {
  const { request } = await testApp(t);
  const res = await request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  t.equal(res.status, 404);
  t.equal(res.body.detail[0].type, 'not_found');
});

t.test('/metrics: Prometheus text for the bearer of METRICS_TOKEN', async (t) => {
  const { request, login, app } = await testApp(t, { METRICS_TOKEN });
  for (const auth of [undefined, 'Bearer wrong-token-wrong-token', `Basic ${METRICS_TOKEN}`]) {
    const res = await request({ method: 'GET', url: '/metrics', headers: auth ? { authorization: auth } : {} });
    t.equal(res.status, 401, `${auth ?? 'no header'} is refused`);
    t.equal(res.body.detail[0].type, 'unauthorized');
  }
  const token = await login('metrics@example.com');
  for (const id of [101, 102, 103]) await request({ method: 'GET', url: `/api/v1/default/tags/${id}`, token });
  await request({ method: 'GET', url: '/api/v1/default/no/such/thing/here' });
  // A job waiting for a worker that is never registered: the queue depth shows it.
  await app.queue.enqueue('ops-test-waiting', { n: 1 });

  const res = await request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  t.equal(res.status, 200);
  t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/);
  const text = res.body as string;
  t.match(
    text,
    /firewatch_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/:organization\/tags\/:id",status_code="404"\} 3/,
    'latency by route pattern, not by URL',
  );
  t.notMatch(text, /tags\/101/, 'no URL becomes a label');
  t.match(text, /route="\(unmatched\)"/, 'unmatched requests share one label');
  t.match(text, /firewatch_job_queue_depth\{queue="ops-test-waiting"\} 1/);
  t.match(text, /firewatch_job_oldest_waiting_seconds\{queue="ops-test-waiting"\} \d/);
  t.match(text, /firewatch_open_sockets 0/, 'no socket open: inject does not listen');
  t.match(text, /firewatch_process_resident_memory_bytes \d/);
  if (process.env.DATABASE_URL) {
    t.match(text, /firewatch_db_pool_max 4/);
    t.match(text, /firewatch_db_sessions\{state="(idle|active)"\} \d/);
  }
});

t.test('/metrics counts open sockets on a listening server', async (t) => {
  const { app } = await testApp(t, { METRICS_TOKEN });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  t.match(await res.text(), /firewatch_open_sockets [1-9]/, 'the scrape itself is one');
});

t.test('/readyz: 200 while the database answers, 503 in the error shape once it is gone', async (t) => {
  const { request, database, app, url } = await testApp(t);
  await app.ready();
  const ok = await request({ method: 'GET', url: '/readyz' });
  t.equal(ok.status, 200);
  t.equal(ok.body.status, 'ready');

  if (url) {
    // PostgreSQL goes away: the app's connections are cut and new ones refused.
    const admin = postgres(url.replace(/\/[^/]+$/, '/postgres'), { max: 1, onnotice: () => {} });
    const name = new URL(url).pathname.slice(1);
    await admin.unsafe(`alter database ${name} allow_connections false`);
    await admin.unsafe(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}'`);
    t.teardown(async () => {
      await admin.unsafe(`alter database ${name} allow_connections true`);
      await admin.end();
    });
  } else {
    // The embedded database is closed under the app; the app's own teardown then has nothing to close.
    await database.close();
    database.close = async () => undefined;
    await app.queue.stop().catch(() => undefined);
  }
  const down = await request({ method: 'GET', url: '/readyz' });
  t.equal(down.status, 503);
  t.same(down.body, { detail: [{ msg: 'The database is unavailable.', loc: [], type: 'not_ready' }] });
  const live = await request({ method: 'GET', url: '/api/v1/healthcheck' });
  t.equal(live.status, 200, 'liveness does not depend on the database');
});

t.test('/readyz: 503 when the database does not answer, instead of waiting on it', async (t) => {
  const { request, database, app } = await testApp(t);
  // Ready first: starting the job queue needs the database too.
  await app.ready();
  // Every connection of the pool (PGlite has one) held by a transaction that waits on the test.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let begun = 0;
  const holders = Array.from({ length: 4 }, () =>
    database.db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      begun++;
      await held;
    }),
  );
  while (begun === 0) await new Promise((r) => setTimeout(r, 10));
  const started = Date.now();
  const res = await request({ method: 'GET', url: '/readyz' });
  t.comment(`answered in ${Date.now() - started} ms`);
  release();
  await Promise.all(holders);
  t.equal(res.status, 503);
  t.same(res.body.detail, [{ msg: 'The database did not answer within 1000 ms.', loc: [], type: 'not_ready' }]);
  t.equal((await request({ method: 'GET', url: '/readyz' })).status, 200, 'ready again once it answers');
});

const pgliteRun = process.env.DATABASE_URL ? false : 'PGlite has no autovacuum to ask about';
t.test('at start, a warning when PostgreSQL runs without autovacuum, and none when it runs with it', { skip: pgliteRun }, async (t) => {
  const { database } = await freshDatabase(t);
  const lines: { level: number; msg: string }[] = [];
  const config = loadConfig({ LOG_LEVEL: 'info', JWT_SECRET: 'test-secret-test-secret-test-secret-42', ADMIN_DIST: 'dist/no-admin-in-tests' });
  const app = await buildApp({ config, database, mailer: async () => undefined, logStream: { write: (line) => void lines.push(JSON.parse(line)) } });
  t.teardown(() => app.close());
  await app.ready();
  // The setting is the server's (postgresql.conf), not one a test can change: the warning must follow it either way.
  const [row] = rowsOf<{ on: string }>(await database.db.execute(sql`select current_setting('autovacuum') as on`));
  const warnings = lines.filter((l) => l.level === 40 && /autovacuum is off/.test(l.msg));
  t.equal(warnings.length, row!.on === 'off' ? 1 : 0, `autovacuum is ${row!.on} on this server`);
});
