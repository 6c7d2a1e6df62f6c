import { EventEmitter } from 'node:events';
import { sql, type SQL } from 'drizzle-orm';
import PgBoss from 'pg-boss';
import { rowsOf, type Database, type Tx } from '../db/client.js';
import { settle } from '../db/tenant.js';
import { startWorker, type SqlExecutor, type SqlResult, type Worker } from './worker.js';
import { JOBS_CHANNEL, listen } from './wakeup.js';

export interface JobOptions {
  /** Attempts after the first failure (default 2). */
  retryLimit?: number;
  retryDelaySeconds?: number;
  /** A job with the same key that is still queued is not added again. */
  singletonKey?: string;
  /** Not before this many seconds from now (a wait, a poll, a deadline). */
  startAfterSeconds?: number;
  /**
   * Insert the job in this transaction (see `inTransaction`): it exists once the transaction commits
   * and never if it rolls back. The queue must have started with a worker for `name` registered.
   */
  db?: SqlExecutor;
}

export type JobCounts = Record<'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed', number>;

export type JobHandler<T> = (data: T, job: { id: string; name: string }) => Promise<void>;

/** The job queue every domain uses: background work lives in the same database as the data. */
export interface Queue {
  enqueue<T extends object>(name: string, data: T, opts?: JobOptions): Promise<string | null>;
  /** Many jobs of `name` in one insert, in the transaction `opts.db` (a batch's work); no start delay or singleton key. */
  enqueueMany<T extends object>(name: string, data: T[], opts: Pick<JobOptions, 'retryLimit' | 'retryDelaySeconds'> & { db: SqlExecutor }): Promise<void>;
  /** `concurrency` workers, each taking up to `batchSize` jobs at a time (default 10) and running up to 3 of them at once. */
  work<T extends object>(name: string, handler: JobHandler<T>, opts?: { concurrency?: number; batchSize?: number }): Promise<void>;
  /** Sends a `name` job with `data` on the cron schedule (UTC), once across all processes; null removes it. */
  schedule(name: string, cron: string | null, data?: object): Promise<void>;
  /** Jobs of `name` (whose data contains `match`, if given) per state: created, retry, active, completed, cancelled, failed. */
  countJobs(name: string, match?: object): Promise<JobCounts>;
  /** Wakes this process's `name` workers now instead of at their next poll. */
  notify(name: string): void;
  /** Started and not stopped. */
  readonly running: boolean;
  /** Starts pg-boss and the registered workers and schedules (idempotent). */
  start(): Promise<void>;
  /** Stops taking jobs, waits (up to 10 s) for the running ones to finish, then for its statements in flight. */
  stop(): Promise<void>;
  /** Emits 'failed' (name, error) when a handler throws; handlers report their own state too. */
  events: EventEmitter;
}

/**
 * pg-boss talks to the database through this adapter, so it shares the app's pool (postgres.js) or
 * the embedded PGlite instead of opening its own connections. Parameterless text may hold several
 * statements (pg-boss's schema migrations, BEGIN ... COMMIT), which need the simple query protocol;
 * when one fails (two processes installing the schema at once) its transaction is rolled back, so the
 * shared connection is not left in an aborted transaction.
 */
/** Objects as JSON text, as node-postgres (what pg-boss expects) sends them. */
const jsonParams = (values: unknown[]) =>
  values.map((v) =>
    v === undefined ? null : v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date) && !Buffer.isBuffer(v) ? JSON.stringify(v) : v,
  );

function adapter(database: Database): SqlExecutor {
  const client = (database.db as unknown as { $client: unknown }).$client;
  if (database.kind === 'pglite') {
    const pg = client as { query(t: string, v?: unknown[]): Promise<SqlResult>; exec(t: string): Promise<SqlResult[]> };
    return {
      async executeSql(text, values) {
        if (values && values.length) return pg.query(text, values);
        try {
          const results = await pg.exec(text);
          return { rows: results.at(-1)?.rows ?? [] };
        } catch (err) {
          await pg.exec('rollback').catch(() => undefined);
          throw err;
        }
      },
    };
  }
  type Unsafe = { unsafe(t: string, v?: unknown[]): Promise<unknown[]> & { simple(): Promise<unknown> } };
  const sql = client as Unsafe & { reserve(): Promise<Unsafe & { release(): void }> };
  return {
    async executeSql(text, values) {
      const params = values && jsonParams(values);
      if (params && params.length) return { rows: [...(await sql.unsafe(text, params))] };
      // postgres.js allows BEGIN/COMMIT text only on a reserved connection.
      const conn = await sql.reserve();
      let result: unknown[] | unknown[][];
      try {
        result = (await conn.unsafe(text).simple()) as unknown[] | unknown[][];
      } catch (err) {
        await conn.unsafe('rollback').catch(() => undefined);
        throw err;
      } finally {
        conn.release();
      }
      // Several statements give one result per statement; pg-boss reads the last.
      const last = Array.isArray(result) && Array.isArray(result.at(-1)) ? (result.at(-1) as unknown[]) : (result as unknown[]);
      return { rows: [...last] };
    },
  };
}

/**
 * pg-boss's statements inside a Drizzle transaction (PGlite or postgres.js): `$n` placeholders become
 * bound parameters. The transaction's role must be allowed to write the pgboss schema (`ctx.asSystem`).
 */
export function inTransaction(tx: Tx): SqlExecutor {
  return {
    async executeSql(text, values = []) {
      const params = jsonParams(values);
      const chunks: SQL[] = text.split(/\$(\d+)/).map((part, i) => (i % 2 ? sql`${params[Number(part) - 1] ?? null}` : sql.raw(part)));
      return { rows: [...rowsOf(await tx.execute(sql.join(chunks)))] };
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's job queue (server/core/jobs/queue.ts). */
    queue: Queue;
  }
}

export interface QueueOptions {
  /**
   * How often an idle worker looks for jobs (seconds, at least 0.5). Schedules are checked 15 times
   * as rarely, between every 1 and every 30 s, so a short interval (tests) makes the clock quick too.
   */
  pollingIntervalSeconds?: number;
  /**
   * A running job's expiry, kept this far ahead by its worker's heartbeat (a third of it apart); a
   * job whose process died is expired this long after its last heartbeat and retried (default 10).
   */
  leaseSeconds?: number;
}

/**
 * The executor with the statements it is running: pg-boss's stop() clears its timers but does not wait
 * for the statements they started (a schedule check, a poll). Closing the pool under one made it wait
 * out its 5-second timeout and then cut the connection.
 */
function tracked(executor: SqlExecutor): SqlExecutor & { settled(): Promise<void> } {
  const running = new Set<Promise<SqlResult>>();
  return {
    executeSql(text, values) {
      const statement = executor.executeSql(text, values);
      running.add(statement);
      const done = () => void running.delete(statement);
      statement.then(done, done);
      return statement;
    },
    async settled() {
      while (running.size) await Promise.allSettled([...running]);
    },
  };
}

/** pg-boss on the app's executor, its clocks set from the workers' polling interval (see QueueOptions). */
function createBoss(db: SqlExecutor, poll: number) {
  return new PgBoss({
    db,
    schema: 'pgboss',
    maintenanceIntervalSeconds: 300,
    cronMonitorIntervalSeconds: Math.min(30, Math.max(1, Math.round(poll * 15))),
    cronWorkerIntervalSeconds: Math.min(30, Math.max(1, Math.ceil(poll))),
  } as never);
}

/** The queues this process has created in pg-boss, each once. */
function queueCreator(boss: PgBoss) {
  const created = new Set<string>();
  return {
    has: (name: string) => created.has(name),
    async ensure(name: string) {
      if (created.has(name)) return;
      for (let attempt = 1; ; attempt++) {
        try {
          await boss.createQueue(name);
          break;
        } catch (err) {
          // Processes creating queues at once on a new database can deadlock in pg-boss's create_queue
          // (each adds its queue's partition); PostgreSQL aborts one, which tries again.
          if ((err as { code?: string }).code !== '40P01' || attempt === 5) throw err;
        }
      }
      created.add(name);
    },
  };
}

const notReady = (name: string) => new Error(`The job queue '${name}' is not ready: start the queue with a worker for it first.`);

/** pg-boss's retry and expiry options for a job. */
const retryOptions = (o: Pick<JobOptions, 'retryLimit' | 'retryDelaySeconds'>, lease: number) => ({
  retryLimit: o.retryLimit ?? 2,
  retryDelay: o.retryDelaySeconds ?? 5,
  retryBackoff: true,
  expireInSeconds: lease,
});

/** Sends a job inside the caller's transaction `tx`, and wakes the workers when it commits. */
async function sendInTransaction(boss: PgBoss, tx: SqlExecutor, name: string, data: object, options: object, startAfterSeconds?: number) {
  // Delivered at commit to every process's listener (nothing if the transaction rolls back).
  // Sent behind the insert without waiting for it: no extra round trip.
  const sent = boss.send(name, data, { ...options, db: tx } as never);
  const notified = tx.executeSql('select pg_notify($1, $2)', [JOBS_CHANNEL, name]);
  const [id] = await settle([sent, notified] as const);
  // pg-boss binds startAfter as both a timestamp and an interval, which one statement inside a
  // transaction cannot take (each placeholder is bound separately): a delayed job is moved on instead.
  if (id && startAfterSeconds)
    await tx.executeSql(`update pgboss.job set start_after = now() + make_interval(secs => $1) where name = $2 and id = $3`, [startAfterSeconds, name, id]);
  return id;
}

/** Jobs of `name` (whose data contains `match`, if given) per state. */
async function countJobStates(db: SqlExecutor, name: string, match?: object): Promise<JobCounts> {
  const { rows } = await db.executeSql(
    `select state, count(*)::int as n from pgboss.job where name = $1 and ($2::jsonb is null or data @> $2::jsonb) group by state`,
    [name, match ? JSON.stringify(match) : null],
  );
  const counts: JobCounts = { created: 0, retry: 0, active: 0, completed: 0, cancelled: 0, failed: 0 };
  for (const row of rows as { state: keyof JobCounts; n: number }[]) counts[row.state] = Number(row.n);
  return counts;
}

/** One worker of `name`: its errors go to pg-boss's error event, its jobs' failures to `events`. */
function startJobWorker(
  on: { boss: PgBoss; db: SqlExecutor; events: EventEmitter; poll: number; lease: number },
  name: string,
  handler: JobHandler<object>,
  batchSize: number,
) {
  return startWorker({
    boss: on.boss,
    db: on.db,
    name,
    batchSize,
    // Short jobs (an incident's provisioning) are mostly round trips: a few at once keep up
    // with a burst of requests without taking most of the pool (10 connections) from them.
    parallel: Math.min(batchSize, 3),
    pollMs: on.poll * 1000,
    leaseSeconds: on.lease,
    handler,
    onError: (err) => on.boss.emit('error', err),
    onFailed: (err) => on.events.emit('failed', name, err),
  });
}

/** Expires the running jobs whose lease ran out (their process died), until `stopped()`. */
function expireEvery(boss: PgBoss, lease: number, stopped: () => boolean) {
  // How often expired jobs are looked for. pg-boss's own maintenance (which also expires) stays at 5 min:
  // it archives too.
  const sweepSeconds = Math.max(1, Math.min(5, lease / 2));
  return setInterval(() => {
    if (!stopped()) (boss as unknown as { expire(): Promise<void> }).expire().catch((err: unknown) => boss.emit('error', err));
  }, sweepSeconds * 1000);
}

export function createQueue(database: Database, opts: QueueOptions = {}): Queue {
  const poll = opts.pollingIntervalSeconds ?? 2;
  const lease = opts.leaseSeconds ?? 10;
  const db = tracked(adapter(database));
  const boss = createBoss(db, poll);
  const events = new EventEmitter();
  const queues = queueCreator(boss);
  const workers = new Map<string, Worker[]>();
  let unlisten: (() => Promise<void>) | null = null;
  let sweep: NodeJS.Timeout | null = null;
  let started: Promise<void> | null = null;
  let ready = false;
  let stopped = false;
  boss.on('error', (err) => {
    if (!stopped && events.listenerCount('error')) events.emit('error', err);
  });

  // Workers and schedules registered before start() begin when the queue starts (when the app is
  // ready, see server/app-jobs.ts).
  const pending: (() => Promise<void>)[] = [];
  const whenStarted = async (register: () => Promise<void>) => {
    if (started) {
      await started;
      await register();
    } else pending.push(register);
  };
  const notify = (name: string) => {
    for (const w of workers.get(name) ?? []) w.wake();
  };
  const queue: Queue = {
    events,
    get running() {
      return ready && !stopped;
    },
    start() {
      started ??= (async () => {
        await boss.start();
        // Jobs queued in a transaction, by this process or another, wake the workers once it commits.
        unlisten = await listen(database, JOBS_CHANNEL, (name) => notify(name));
        for (const register of pending.splice(0)) await register();
        sweep = expireEvery(boss, lease, () => stopped);
        ready = true;
      })();
      return started;
    },
    async enqueueMany(name, data, o) {
      if (!data.length) return;
      if (!ready || !queues.has(name)) throw notReady(name);
      const options = retryOptions(o, lease);
      await settle([
        boss.insert(
          data.map((d) => ({ name, data: d, ...options })),
          { db: o.db } as never,
        ),
        o.db.executeSql('select pg_notify($1, $2)', [JOBS_CHANNEL, name]),
      ] as const);
    },
    async enqueue(name, data, o = {}) {
      const options = { ...retryOptions(o, lease), singletonKey: o.singletonKey };
      if (o.db) {
        // Inside the caller's transaction nothing else may touch the database (PGlite would wait
        // for that transaction forever), so the queue must exist already.
        if (!ready || !queues.has(name)) throw notReady(name);
        return sendInTransaction(boss, o.db, name, data, options, o.startAfterSeconds);
      }
      await queue.start();
      await queues.ensure(name);
      const id = await boss.send(name, data, options);
      notify(name);
      return id;
    },
    notify,
    async schedule(name, cron, data = {}) {
      await whenStarted(async () => {
        await queues.ensure(name);
        if (cron) await boss.schedule(name, cron, data, { tz: 'UTC', expireInSeconds: lease });
        else await boss.unschedule(name);
      });
    },
    async countJobs(name, match) {
      await queue.start();
      return countJobStates(db, name, match);
    },
    async work(name, handler, o = {}) {
      await whenStarted(async () => {
        await queues.ensure(name);
        for (let i = 0; i < (o.concurrency ?? 1); i++) {
          const worker = startJobWorker({ boss, db, events, poll, lease }, name, handler as JobHandler<object>, o.batchSize ?? 10);
          workers.set(name, [...(workers.get(name) ?? []), worker]);
        }
      });
    },
    async stop() {
      if (!started || stopped) return;
      stopped = true;
      await started.catch(() => undefined);
      if (sweep) clearInterval(sweep);
      await Promise.all([...workers.values()].flat().map((w) => w.stop(10_000)));
      await unlisten?.().catch(() => undefined);
      await boss.stop({ graceful: true, wait: true, timeout: 10_000, close: false } as never);
      await db.settled();
    },
  };
  return queue;
}
