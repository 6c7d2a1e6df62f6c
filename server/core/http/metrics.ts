import { timingSafeEqual } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { rowsOf, type Database } from '../db/client.js';
import { httpError, unauthorized } from '../errors.js';

/** Label of requests that matched no route: their URLs would make a series each. */
export const UNMATCHED_ROUTE = '(unmatched)';

const sameSecret = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * `GET /metrics` in the Prometheus text format, for a scraper holding METRICS_TOKEN (without the
 * variable the route answers 404). Queue and database figures are read from the database at scrape time.
 */
export function registerMetrics(app: FastifyInstance, database: Database) {
  const token = app.config.METRICS_TOKEN;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'firewatch_' });

  const latency = new Histogram({
    name: 'firewatch_http_request_duration_seconds',
    help: 'Time from request to answer, by route pattern',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  app.addHook('onResponse', async (req: FastifyRequest, reply) => {
    latency.observe({ method: req.method, route: req.routeOptions.url ?? UNMATCHED_ROUTE, status_code: reply.statusCode }, reply.elapsedTime / 1000);
  });

  new Gauge({
    name: 'firewatch_open_sockets',
    help: 'TCP connections open on the HTTP server, live sockets included',
    registers: [registry],
    async collect() {
      if (!app.server.listening) return this.set(0);
      this.set(await new Promise<number>((resolve) => app.server.getConnections((err, n) => resolve(err ? 0 : n))));
    },
  });

  // One query feeds both queue gauges; each scrape runs it once.
  let queueRows: Promise<{ name: string; depth: number; oldest: number }[]> | null = null;
  const readQueues = () =>
    (queueRows ??= database.db
      .execute(
        sql`select name, count(*)::int as depth,
              coalesce(extract(epoch from now() - min(start_after) filter (where start_after <= now())), 0)::float8 as oldest
            from pgboss.job where state in ('created', 'retry') group by name`,
      )
      .then((r) => rowsOf<{ name: string; depth: number; oldest: number }>(r))
      // Before the queue's first start there is no pgboss schema: nothing is queued.
      .catch(() => [])
      .finally(() => setTimeout(() => (queueRows = null), 0)));
  new Gauge({
    name: 'firewatch_job_queue_depth',
    help: 'Jobs waiting to run (created or due for retry), by queue',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await readQueues()) this.set({ queue: row.name }, Number(row.depth));
    },
  });
  new Gauge({
    name: 'firewatch_job_oldest_waiting_seconds',
    help: 'How long the oldest job that could run has waited for a worker, by queue',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await readQueues()) this.set({ queue: row.name }, Number(row.oldest));
    },
  });

  if (database.kind === 'postgres') {
    // postgres.js does not expose its pool's busy and idle counts; its size, and the server's own view
    // of the sessions on this database, are what there is.
    const client = (database.db as unknown as { $client: { options: { max: number } } }).$client;
    new Gauge({ name: 'firewatch_db_pool_max', help: 'Largest number of connections this process opens to PostgreSQL', registers: [registry] }).set(
      client.options.max,
    );
    new Gauge({
      name: 'firewatch_db_sessions',
      help: 'Sessions on this PostgreSQL database (all processes), by state',
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        this.reset();
        const rows = await database.db
          .execute(
            sql`select coalesce(state, 'unknown') as state, count(*)::int as n from pg_stat_activity where datname = current_database() and backend_type = 'client backend' group by 1`,
          )
          .then((r) => rowsOf<{ state: string; n: number }>(r))
          .catch(() => []);
        for (const row of rows) this.set({ state: row.state }, Number(row.n));
      },
    });
  }

  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    if (!token) throw httpError(404, `Nothing at ${req.method} /metrics.`, 'not_found');
    const [scheme, given] = (req.headers.authorization ?? '').split(' ');
    if (scheme !== 'Bearer' || !given || !sameSecret(given, token)) throw unauthorized('The metrics token is missing or wrong.');
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
