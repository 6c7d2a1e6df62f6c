import { is, sql } from 'drizzle-orm';
import { PostgresJsSession, PostgresJsTransaction } from 'drizzle-orm/postgres-js/session';
import type { ReservedSql } from 'postgres';
import type { Db, Tx } from './client.js';

export interface TenantScope {
  orgId: number;
  /** The signed-in user; null for API keys and anonymous sessions. */
  userId: number | null;
}

/** The parts of drizzle's postgres.js session a transaction is built from. */
interface RootSession {
  client: { reserve(): Promise<ReservedSql> };
  dialect: never;
  schema: never;
  options: never;
}

const SCOPE_SQL = `select set_config('role', 'firewatch_app', true), set_config('app.org_id', $1, true), set_config('app.user_id', $2, true)`;

export interface TenantOptions {
  /**
   * `fn` only reads (a list page). On postgres.js its queries then go out in the same write as BEGIN
   * and the scope, and the answer does not wait for COMMIT: one round trip in all. `fn` must not
   * write: the transaction is READ ONLY, and its results are thrown away unless BEGIN and the scope
   * both succeeded.
   */
  readOnly?: boolean;
}

/**
 * Runs `fn` in a transaction as the unprivileged application role with the organization set, so
 * row level security hides every other organization's rows even where a query forgets its condition.
 */
export function withTenant<T>(db: Db, scope: TenantScope, fn: (tx: Tx) => Promise<T>, opts: TenantOptions = {}): Promise<T> {
  const orgId = String(scope.orgId);
  const userId = scope.userId === null ? '' : String(scope.userId);
  if (is(db._.session, PostgresJsSession)) return pipelinedTenant(db._.session as unknown as RootSession, orgId, userId, fn, opts.readOnly === true);
  return db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('role', 'firewatch_app', true), set_config('app.org_id', ${orgId}, true), set_config('app.user_id', ${userId}, true)`);
    return fn(tx);
  });
}

/**
 * The same transaction on postgres.js, without the round trips postgres.js's own begin() costs (it
 * waits for BEGIN before the first query; every round trip costs a request dearly, see
 * bench/README.md). BEGIN and the scope go out in one write. A writer's `fn` starts once both
 * succeeded, so none of its statements can run outside the transaction (as the connecting role,
 * without row level security); a reader's `fn` is pipelined behind them (see TenantOptions).
 */
async function pipelinedTenant<T>(root: RootSession, orgId: string, userId: string, fn: (tx: Tx) => Promise<T>, readOnly: boolean): Promise<T> {
  const { client, dialect, schema, options } = root;
  const reserved = await client.reserve();
  const begin = reserved.unsafe(readOnly ? 'begin read only' : 'begin').execute();
  const scoped = reserved.unsafe(SCOPE_SQL, [orgId, userId], { prepare: true }).execute();
  const ready = Promise.all([begin, scoped]);
  ready.catch(() => {}); // awaited below; this only keeps an early failure from being "unhandled"
  let result: T;
  try {
    if (!readOnly) await ready;
    const session = new PostgresJsSession(preparedClient(reserved) as never, dialect, schema, options);
    result = await fn(new PostgresJsTransaction(dialect, session, schema) as unknown as Tx);
    if (readOnly) await ready;
  } catch (err) {
    await reserved.unsafe('rollback').catch(() => {});
    reserved.release();
    throw err;
  }
  if (readOnly) {
    // Nothing to make durable: answer now, hand the connection back once COMMIT is through.
    reserved.unsafe('commit').then(reserved.release, reserved.release);
    return result;
  }
  try {
    await reserved.unsafe('commit');
  } finally {
    reserved.release();
  }
  return result;
}

/**
 * The reserved connection as drizzle's session sees it. Drizzle sends its queries unnamed, which
 * postgres.js runs as two round trips (parse and describe, then bind and execute) and which PostgreSQL
 * plans afresh each time; named statements (postgres.js's own default) take one round trip once the
 * connection has seen the query, pipeline behind each other, and keep their plan. Nested
 * `tx.transaction()` calls become savepoints, as postgres.js's begin() scope provides.
 */
function preparedClient(reserved: ReservedSql) {
  let n = 0;
  return Object.assign(Object.create(reserved) as ReservedSql, {
    unsafe: (query: string, params?: never[], opts?: object) => reserved.unsafe(query, params, { ...opts, prepare: true }),
    async savepoint<R>(fn: (sql: ReservedSql) => Promise<R>): Promise<R> {
      const name = `s${++n}`;
      await reserved.unsafe(`savepoint ${name}`);
      try {
        const result = await fn(reserved);
        await reserved.unsafe(`release savepoint ${name}`);
        return result;
      } catch (err) {
        await reserved.unsafe(`rollback to savepoint ${name}`);
        throw err;
      }
    },
  });
}

/** Inside a tenant transaction: lift the role for `fn` (row level security off), then drop it again. */
export async function asSystem<T>(tx: Tx, fn: (tx: Tx) => Promise<T>): Promise<T> {
  await tx.execute(sql`select set_config('role', 'none', true)`);
  try {
    return await fn(tx);
  } finally {
    await tx.execute(sql`select set_config('role', 'firewatch_app', true)`);
  }
}
