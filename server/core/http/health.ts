import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { type Database, rowsOf } from '../db/client.js';
import { httpError } from '../errors.js';

/** How long readiness waits on the database: a load balancer's probe must get an answer, not a hang. */
export const READY_TIMEOUT_MS = 1000;

/**
 * `/readyz`: can this process serve requests now (its database answers `select 1` within a second)?
 * `/api/v1/healthcheck` stays the liveness check: it says the process runs, and never touches the database.
 */
export function registerHealth(app: FastifyInstance, database: Database) {
  app.addHook('onReady', () => warnWithoutAutovacuum(app, database));
  app.get('/readyz', { schema: { hide: true } }, async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), READY_TIMEOUT_MS)));
    const probe = database.db.execute(sql`select 1`).then(
      () => 'ok' as const,
      (err: unknown) => err,
    );
    const outcome = await Promise.race([probe, timeout]).finally(() => clearTimeout(timer));
    if (outcome === 'ok') return { status: 'ready', database: database.kind };
    if (outcome === 'timeout') throw httpError(503, `The database did not answer within ${READY_TIMEOUT_MS} ms.`, 'not_ready');
    app.log.warn({ err: outcome }, 'readiness: database unavailable');
    throw httpError(503, 'The database is unavailable.', 'not_ready');
  });
}

/**
 * Signal processing updates every instance it takes, and without autovacuum nothing cleans those rows
 * nor refreshes the planner's statistics, so signals slow down run after run. PGlite has no
 * autovacuum to ask about.
 */
async function warnWithoutAutovacuum(app: FastifyInstance, database: Database) {
  if (database.kind !== 'postgres') return;
  // Advice, not a condition of starting: a database that cannot answer this fails the start elsewhere.
  const rows = await database.db.execute(sql`select current_setting('autovacuum') as on`).catch(() => []);
  if (rowsOf<{ on: string }>(rows)[0]?.on === 'off')
    app.log.warn(
      "PostgreSQL's autovacuum is off: tables that are updated often (signal instances, jobs) will slow down until it is on or they are vacuumed and analyzed by hand.",
    );
}
