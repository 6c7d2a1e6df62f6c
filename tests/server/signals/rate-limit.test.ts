import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { buildApp } from '../../../server/app.js';
import { loadConfig } from '../../../server/core/config.js';
import { fixture, signalApp } from './helpers.js';

/**
 * Two app processes on one database (design.md §1, behind a load balancer) share a source's rate:
 * with the buckets per process a source got twice its limit. On PostgreSQL the second app has its own
 * connection pool, as a second process would; PGlite is one process, so there they share the database.
 */
t.test('the per-source rate limit holds across two app processes on one database', async (t) => {
  const s = await signalApp(t);
  const perMinute = 30;
  await s.database.db.execute(sql`update signals set rate_limit_per_minute = ${perMinute} where id = ${s.signal.id}`);
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    JWT_SECRET: s.config.JWT_SECRET,
    ADMIN_DIST: 'dist/no-admin-in-tests',
    ...(s.url ? { DATABASE_URL: s.url } : {}),
  });
  const other: FastifyInstance = await buildApp({ config, logger: false, ...(s.url ? {} : { database: s.database }) });
  t.teardown(() => other.close());
  const send = async (app: FastifyInstance, i: number) =>
    (
      await app.inject({
        method: 'POST',
        url: '/api/v1/default/signals/pagerduty/v2/enqueue',
        payload: { ...fixture('pagerduty-trigger.json', s.key), dedup_key: `rate-${i}` },
      })
    ).statusCode;

  const started = Date.now();
  const statuses: Record<string, number[]> = { first: [], second: [] };
  // 30 events through each process, alternating: a per-process bucket would accept all 60.
  // In three rounds of ten at once per process (requests of one process share its reservations).
  for (let round = 0; round < 3; round++) {
    const ids = Array.from({ length: 10 }, (_, i) => round * 10 + i);
    const [a, b] = await Promise.all([Promise.all(ids.map((i) => send(s.app, 2 * i))), Promise.all(ids.map((i) => send(other, 2 * i + 1)))]);
    statuses.first!.push(...a);
    statuses.second!.push(...b);
  }
  const elapsed = (Date.now() - started) / 1000;
  const accepted = (xs: number[]) => xs.filter((x) => x === 202).length;
  const total = accepted(statuses.first!) + accepted(statuses.second!);
  t.same([...new Set([...statuses.first!, ...statuses.second!])].sort(), [202, 429], 'only accepted or throttled');
  t.ok(accepted(statuses.first!) > 0 && accepted(statuses.second!) > 0, 'both processes accept while the bucket has tokens');
  t.ok(statuses.first!.includes(429) && statuses.second!.includes(429), 'and both refuse once it is empty');
  // The bucket starts full (30) and refills at 0.5 a second while the test runs; each process may hold one chunk (1 here).
  const allowed = perMinute + Math.ceil(elapsed * (perMinute / 60)) + 2;
  t.ok(total >= perMinute && total <= allowed, `${total} accepted in ${elapsed.toFixed(1)} s: the limit once, not twice (at most ${allowed})`);
  t.ok(allowed < 60, 'the run was quick enough for the difference to show');
  t.equal((await s.counts()).instances, total, 'exactly the accepted events are stored');
});
