import { is, sql } from 'drizzle-orm';
import { PostgresJsSession, PostgresJsTransaction } from 'drizzle-orm/postgres-js/session';
import type { ReservedSql } from 'postgres';
import { trackCommit, type Db, type Tx } from './client.js';

export interface TenantScope {
  orgId: number;
  /** The signed-in user; null for API keys and anonymous sessions. */
  userId: number | null;
  /**
   * The user's role as the caller was resolved with (possibly from a short-lived cache). When given,
   * the scope statement checks that the membership still holds with exactly this role; if not, the
   * transaction sees no organization and withTenant throws MembershipChanged before `fn`'s results
   * are used.
   */
  role?: string;
}

/** The caller's membership changed since it was resolved (removed, or another role). */
export class MembershipChanged extends Error {
  constructor() {
    super('The membership changed since this request was authorized.');
  }
}

/** The parts of drizzle's postgres.js session a transaction is built from. */
interface RootSession {
  client: { reserve(): Promise<ReservedSql> };
  dialect: never;
  options: never;
}

/**
 * Sets the tenant scope; `verified` is false when a role to verify ($3, '' for none) no longer matches
 * the membership, and the organization is then left unset (row level security shows nothing). The
 * membership lookup runs as the connecting role: the role change applies from the next statement.
 * $4 is a plan_cache_mode for the transaction ('' keeps the session's; see TenantOptions.genericPlans).
 * A transaction with generic plans also runs without JIT compilation: a list's generic plan takes its
 * LIMIT and OFFSET parameters for a tenth of the rows, and at 100,000 incidents an organization that
 * estimate passed jit_above_cost, so a page that takes 1 ms spent 100 ms compiling (bench/README.md).
 */
export const SCOPE_SQL = `select m.verified, set_config('role', 'firewatch_app', true), set_config('app.org_id', case when m.verified then $1::text else '' end, true), set_config('app.user_id', $2::text, true),
    set_config('plan_cache_mode', coalesce(nullif($4::text, ''), current_setting('plan_cache_mode')), true),
    set_config('jit', case when $4::text = '' then current_setting('jit') else 'off' end, true)
  from (select $3::text = '' or exists (select 1 from memberships where organization_id = ($1::text)::int and user_id = nullif($2::text, '')::int and role = $3::text) as verified) m`;

export interface TenantOptions {
  /**
   * `fn` sends all its queries at once and awaits nothing before (a list page: rows and count). On
   * postgres.js COMMIT then goes out in the same write as BEGIN, the scope and those queries; a query
   * `fn` sends later fails instead of running outside the transaction. Implies `readOnly`.
   */
  oneRound?: boolean;
  /**
   * `fn` only reads. On postgres.js its queries then go out in the same write as BEGIN
   * and the scope, and the answer does not wait for COMMIT: one round trip in all. `fn` must not
   * write: the transaction is READ ONLY, and its results are thrown away unless BEGIN and the scope
   * both succeeded.
   */
  readOnly?: boolean;
  /**
   * Prepared statements run on their generic plan from the first execution (plan_cache_mode
   * force_generic_plan for this transaction). For queries whose best plan does not depend on their
   * values: PostgreSQL otherwise re-plans a statement with an OFFSET parameter on every run (about
   * 0.3 ms for a list page), because its generic estimate takes the offset for a tenth of the table.
   * Not for queries whose best plan depends on a value (a search pattern, a filter on an indexed
   * column): see oneListPlan in server/engine/list-query.ts.
   */
  genericPlans?: boolean;
}

/**
 * Runs `fn` in a transaction as the unprivileged application role with the organization set, so
 * row level security hides every other organization's rows even where a query forgets its condition.
 */
export function withTenant<T>(db: Db, scope: TenantScope, fn: (tx: Tx) => Promise<T>, opts: TenantOptions = {}): Promise<T> {
  const params = [String(scope.orgId), scope.userId === null ? '' : String(scope.userId), scope.role ?? '', opts.genericPlans ? 'force_generic_plan' : ''];
  if (is(db._.session, PostgresJsSession)) return pipelinedTenant(db._.session as unknown as RootSession, params, fn, opts);
  return db.transaction(async (tx) => {
    // The same statement, its $n placeholders bound as drizzle parameters.
    const statement = sql.join(SCOPE_SQL.split(/\$(\d)/).map((part, i) => (i % 2 ? sql`${params[Number(part) - 1]}` : sql.raw(part))));
    const { rows } = (await tx.execute(statement)) as unknown as { rows: { verified: boolean }[] };
    const row = rows[0];
    if (!row!.verified) throw new MembershipChanged();
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
async function pipelinedTenant<T>(root: RootSession, params: string[], fn: (tx: Tx) => Promise<T>, opts: TenantOptions): Promise<T> {
  const { client, dialect, options } = root;
  const oneRound = opts.oneRound === true;
  const readOnly = oneRound || opts.readOnly === true;
  const reserved = await client.reserve();
  // Settles once COMMIT went out early (oneRound) and came back; after that no query may use `reserved`.
  let committed: Promise<unknown> | null = null;
  let finished = false;
  if (oneRound) {
    // Queued before BEGIN is written, so it runs just before postgres.js flushes its write buffer (also
    // from a setImmediate): COMMIT joins BEGIN, the scope and `fn`'s queries in one write.
    setImmediate(() => {
      if (finished) return;
      committed = reserved
        .unsafe('commit')
        .execute()
        .catch(() => {});
    });
  }
  const begin = reserved.unsafe(readOnly ? 'begin read only' : 'begin').execute();
  const scoped = reserved.unsafe(SCOPE_SQL, params, { prepare: true }).execute();
  const ready = Promise.all([begin, scoped]).then(([, rows]) => {
    if (!(rows[0] as unknown as { verified: boolean }).verified) throw new MembershipChanged();
  });
  ready.catch(() => {}); // awaited below; this only keeps an early failure from being "unhandled"
  const release = () => {
    finished = true;
    if (!committed) return reserved.release();
    trackCommit(
      client,
      committed.then(() => reserved.release()),
    );
  };
  let result: T;
  try {
    if (!readOnly) await ready;
    // No relational schema: drizzle would build a query helper per table for every transaction, and
    // Firewatch uses only the SQL-like builders.
    const session = new PostgresJsSession(preparedClient(reserved, () => committed !== null) as never, dialect, undefined, options);
    result = await fn(new PostgresJsTransaction(dialect, session, undefined) as unknown as Tx);
    if (readOnly) await ready;
  } catch (err) {
    if (!committed) await reserved.unsafe('rollback').catch(() => {});
    release();
    throw err;
  }
  if (readOnly) {
    // Nothing to make durable: answer now, hand the connection back once COMMIT is through.
    if (!committed)
      committed = reserved
        .unsafe('commit')
        .execute()
        .catch(() => {});
    release();
    return result;
  }
  try {
    await reserved.unsafe('commit');
  } finally {
    release();
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
function preparedClient(reserved: ReservedSql, ended: () => boolean) {
  let n = 0;
  return Object.assign(Object.create(reserved) as ReservedSql, {
    unsafe: (query: string, params?: never[], opts?: object) => {
      // After an early COMMIT the statement would run outside the transaction, as the connecting role.
      if (ended()) throw new Error('A one-round tenant transaction sent a query after its COMMIT.');
      return reserved.unsafe(query, params, { ...opts, prepare: true });
    },
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

/** Awaits every query (none may outlive the transaction), then throws the first failure if any. */
export async function settle<T extends readonly unknown[]>(queries: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const results = await Promise.allSettled(queries as readonly unknown[]);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as never;
}
