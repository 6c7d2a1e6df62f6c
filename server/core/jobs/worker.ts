import type PgBoss from 'pg-boss';

export interface SqlResult {
  rows: unknown[];
}

/** What pg-boss runs its SQL on: the app's database, or one open transaction. */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<SqlResult>;
}

/**
 * One worker of a queue, in place of pg-boss's own (whose handler is cut off at the job's expiry and
 * which fails a whole batch when one job throws): it takes up to `batchSize` jobs, runs them
 * `parallel` at a time, fails the ones that throw and completes the rest in one statement. While the batch runs, a
 * heartbeat keeps its jobs' expiry `leaseSeconds` ahead, so a long job (indexing a big upload) is never
 * expired while its process lives, and a job whose process died is expired within `leaseSeconds`.
 * It fetches again at once after a full batch or a wake-up (`wake`), else after `pollMs`.
 */
export interface WorkerOptions {
  boss: PgBoss;
  db: SqlExecutor;
  name: string;
  batchSize: number;
  /** Jobs of a batch running at once (each in its own transaction, on its own connection). */
  parallel: number;
  pollMs: number;
  leaseSeconds: number;
  handler(data: object, job: { id: string; name: string }): Promise<void>;
  onError(err: unknown): void;
  onFailed(err: unknown): void;
}

export interface Worker {
  wake(): void;
  /** Takes no further jobs and resolves once the batch in hand is done, or after `timeoutMs`. */
  stop(timeoutMs: number): Promise<void>;
}

/** Moves the expiry of the batch's jobs still active to `leaseSeconds` from now. */
const HEARTBEAT_SQL = `update pgboss.job set expire_in = now() - started_on + $3::int * interval '1 second'
  where name = $1 and id = any($2::uuid[]) and state = 'active'`;

export function startWorker(o: WorkerOptions): Worker {
  let stopping = false;
  let woken = false;
  let nap: { timer: NodeJS.Timeout; resolve(): void } | null = null;
  const heartbeats = new Set<NodeJS.Timeout>();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      nap = { timer: setTimeout(resolve, ms), resolve };
    }).finally(() => (nap = null));
  const wake = () => {
    woken = true;
    if (nap) {
      clearTimeout(nap.timer);
      nap.resolve();
    }
  };

  const runBatch = async (jobs: { id: string; name: string; data: object }[]) => {
    const ids = jobs.map((j) => j.id);
    const beat = setInterval(() => void o.db.executeSql(HEARTBEAT_SQL, [o.name, ids, o.leaseSeconds]).catch(o.onError), (o.leaseSeconds * 1000) / 3);
    heartbeats.add(beat);
    const done: string[] = [];
    let next = 0;
    const lane = async () => {
      while (next < jobs.length) {
        const job = jobs[next++]!;
        try {
          await o.handler(job.data, { id: job.id, name: job.name });
          done.push(job.id);
        } catch (err) {
          o.onFailed(err);
          await o.boss.fail(o.name, job.id, err as object).catch(o.onError);
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(o.parallel, jobs.length) }, lane));
      if (done.length) await o.boss.complete(o.name, done).catch(o.onError);
    } finally {
      clearInterval(beat);
      heartbeats.delete(beat);
    }
  };

  const loop = (async () => {
    while (!stopping) {
      woken = false;
      let jobs: { id: string; name: string; data: object }[] = [];
      try {
        jobs = ((await o.boss.fetch(o.name, { batchSize: o.batchSize } as never)) ?? []) as never;
      } catch (err) {
        o.onError(err);
      }
      if (jobs.length) await runBatch(jobs);
      if (stopping || jobs.length === o.batchSize || woken) continue;
      await sleep(o.pollMs);
    }
  })();

  return {
    wake,
    async stop(timeoutMs) {
      stopping = true;
      wake();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([loop, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
      // A batch still running past the timeout keeps no heartbeat: its jobs expire and run again elsewhere.
      for (const beat of heartbeats) clearInterval(beat);
    },
  };
}
