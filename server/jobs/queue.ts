import { EventEmitter } from 'node:events';
import PgBoss from 'pg-boss';
import type { Database } from '../db/client.js';

export interface JobOptions {
  /** Attempts after the first failure (default 2). */
  retryLimit?: number;
  retryDelaySeconds?: number;
  /** A job with the same key that is still queued is not added again. */
  singletonKey?: string;
}

export type JobHandler<T> = (data: T, job: { id: string; name: string }) => Promise<void>;

/** The job queue every domain uses: background work lives in the same database as the data. */
export interface Queue {
  enqueue<T extends object>(name: string, data: T, opts?: JobOptions): Promise<string | null>;
  work<T extends object>(name: string, handler: JobHandler<T>, opts?: { concurrency?: number }): Promise<void>;
  /** Starts pg-boss and the registered workers (idempotent). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Emits 'failed' (name, error) when a handler throws; handlers report their own state too. */
  events: EventEmitter;
}

interface SqlResult {
  rows: unknown[];
}

/**
 * pg-boss talks to the database through this adapter, so it shares the app's pool (postgres.js) or
 * the embedded PGlite instead of opening its own connections. Parameterless text may hold several
 * statements (pg-boss's schema migrations), which need the simple query protocol.
 */
function adapter(database: Database): { executeSql(text: string, values?: unknown[]): Promise<SqlResult> } {
  const client = (database.db as unknown as { $client: unknown }).$client;
  if (database.kind === 'pglite') {
    const pg = client as { query(t: string, v?: unknown[]): Promise<SqlResult>; exec(t: string): Promise<SqlResult[]> };
    return {
      async executeSql(text, values) {
        if (values && values.length) return pg.query(text, values);
        const results = await pg.exec(text);
        return { rows: results.at(-1)?.rows ?? [] };
      },
    };
  }
  type Unsafe = { unsafe(t: string, v?: unknown[]): Promise<unknown[]> & { simple(): Promise<unknown> } };
  const sql = client as Unsafe & { reserve(): Promise<Unsafe & { release(): void }> };
  return {
    async executeSql(text, values) {
      // node-postgres (what pg-boss expects) sends plain objects as JSON text; postgres.js needs it done.
      const params = values?.map((v) => (v === undefined ? null : v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date) && !Buffer.isBuffer(v) ? JSON.stringify(v) : v));
      if (params && params.length) return { rows: [...(await sql.unsafe(text, params))] };
      // postgres.js allows BEGIN/COMMIT text only on a reserved connection.
      const conn = await sql.reserve();
      let result: unknown[] | unknown[][];
      try {
        result = (await conn.unsafe(text).simple()) as unknown[] | unknown[][];
      } finally {
        conn.release();
      }
      // Several statements give one result per statement; pg-boss reads the last.
      const last = Array.isArray(result) && Array.isArray(result.at(-1)) ? (result.at(-1) as unknown[]) : (result as unknown[]);
      return { rows: [...last] };
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's job queue (server/jobs/queue.ts). */
    queue: Queue;
  }
}

export interface QueueOptions {
  /** How often an idle worker looks for jobs (seconds, at least 0.5). */
  pollingIntervalSeconds?: number;
}

export function createQueue(database: Database, opts: QueueOptions = {}): Queue {
  const boss = new PgBoss({ db: adapter(database), schema: 'pgboss', maintenanceIntervalSeconds: 300 } as never);
  const events = new EventEmitter();
  const created = new Set<string>();
  const workers = new Map<string, string[]>();
  let started: Promise<void> | null = null;
  let stopped = false;
  boss.on('error', (err) => {
    if (!stopped && events.listenerCount('error')) events.emit('error', err);
  });

  const ensureQueue = async (name: string) => {
    if (created.has(name)) return;
    await boss.createQueue(name);
    created.add(name);
  };

  // Handlers registered before start() begin polling when the queue starts (at listen, or at the
  // first enqueue), so an app that never queues anything (most tests) never touches pg-boss.
  const pending: (() => Promise<void>)[] = [];
  const queue: Queue = {
    events,
    start() {
      started ??= (async () => {
        await boss.start();
        for (const register of pending.splice(0)) await register();
      })();
      return started;
    },
    async enqueue(name, data, o = {}) {
      await queue.start();
      await ensureQueue(name);
      const id = await boss.send(name, data, { retryLimit: o.retryLimit ?? 2, retryDelay: o.retryDelaySeconds ?? 5, retryBackoff: true, singletonKey: o.singletonKey });
      // Wake this process's workers now instead of at their next poll.
      for (const w of workers.get(name) ?? []) boss.notifyWorker(w);
      return id;
    },
    async work(name, handler, o = {}) {
      const register = async () => {
        await ensureQueue(name);
        for (let i = 0; i < (o.concurrency ?? 1); i++) {
          const id = await boss.work<object>(name, { pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 2, batchSize: 1 }, async (jobs) => {
            for (const job of jobs) {
              try {
                await handler(job.data as never, { id: job.id, name: job.name });
              } catch (err) {
                events.emit('failed', name, err);
                throw err;
              }
            }
          });
          workers.set(name, [...(workers.get(name) ?? []), id]);
        }
      };
      if (started) {
        await started;
        await register();
      } else pending.push(register);
    },
    async stop() {
      if (!started || stopped) return;
      stopped = true;
      await started.catch(() => undefined);
      await boss.stop({ graceful: true, wait: true, timeout: 10_000, close: false } as never);
    },
  };
  return queue;
}
