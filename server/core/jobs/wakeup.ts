import type { Database } from '../db/client.js';

/**
 * The channel a transaction that queued a job notifies (`pg_notify(JOBS_CHANNEL, queue name)`):
 * PostgreSQL delivers it when the transaction commits, to every process listening on the database.
 */
export const JOBS_CHANNEL = 'firewatch_jobs';

/** Calls `fn` with the payload of each notification on `channel`; resolves to a function that stops listening. */
export async function listen(database: Database, channel: string, fn: (payload: string) => void): Promise<() => Promise<void>> {
  const client = (database.db as unknown as { $client: unknown }).$client;
  if (database.kind === 'pglite') {
    const pg = client as { listen(channel: string, cb: (payload: string) => void): Promise<() => Promise<void>> };
    return pg.listen(channel, fn);
  }
  // postgres.js listens on a connection of its own (outside the pool) and listens again after a reconnect.
  const sql = client as { listen(channel: string, cb: (payload: string) => void): Promise<{ unlisten(): Promise<void> }> };
  const { unlisten } = await sql.listen(channel, fn);
  return unlisten;
}
