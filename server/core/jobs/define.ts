import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Config } from '../config.js';
import { systemActor, type RequestContext } from '../context.js';
import type { Db } from '../db/client.js';
import { runInTenant } from '../tenancy.js';
import { inTransaction, type JobOptions, type Queue } from './queue.js';

/**
 * Every background job is declared once with `defineJob` (its name, payload schema and handler) and
 * registered by its domain's plugin with `registerJobs`. A job enqueued from a request (`enqueueJob`)
 * is inserted in the request's own transaction, so it exists exactly when the request's changes
 * committed, survives a restart, and runs once whichever process picks it up.
 */

/** Several small jobs may share one pg-boss queue (one set of workers): the lane names the queue. */
export interface Lane {
  name: string;
  concurrency: number;
}

/** The incident and case work that must not hold up a request (conversation, postmortem, status workflows). */
export const BACKGROUND_LANE: Lane = { name: 'incident-background', concurrency: 2 };

/** What a running job is given besides its payload. */
export interface JobRun {
  app: FastifyInstance;
  id: string;
  /** The organization the job was enqueued for (jobs enqueued with `enqueueJob`). */
  org: { orgId: number; orgSlug: string };
  /** Runs `fn` in its own transaction of the job's organization, as the system actor. */
  tenant<T>(fn: (ctx: RequestContext) => Promise<T>): Promise<T>;
}

export type Payload = z.ZodType<Record<string, unknown>>;

export interface JobDefinition<S extends Payload = Payload> {
  name: string;
  payload: S;
  run(data: z.infer<S>, job: JobRun): Promise<void>;
  /** Shares this lane's queue instead of having its own. */
  lane?: Lane;
  /** Workers of its own queue, each taking up to `batchSize` jobs at a time. */
  concurrency?: number;
  batchSize?: number;
  /** Retries every enqueue of it asks for. */
  retries?(config: Config): Pick<JobOptions, 'retryLimit' | 'retryDelaySeconds'>;
  /** A cron schedule (UTC) read from the configuration; null or 'off' for none. */
  cron?(config: Config): string | null;
}

/**
 * A handler throws this when the record it works on is not there. Jobs commit with their record, so it
 * was deleted since: there is nothing left to do.
 */
export class NotReady extends Error {}

export const defineJob = <S extends Payload>(def: JobDefinition<S>) => def as JobDefinition<S>;

const Org = z.object({ orgId: z.number().int(), orgSlug: z.string() });
/** How a lane's queue holds one of its jobs. */
const LaneEnvelope = Org.extend({ job: z.string(), data: z.record(z.string(), z.unknown()) });

interface Registered {
  queue: Queue;
  jobs: Map<string, JobDefinition>;
  lanes: Set<string>;
}
/** Each app's jobs, by its queue; and the queue a database's requests enqueue on (tests run several apps in one process). */
const registry = new WeakMap<Queue, Registered>();
const queueOfDb = new WeakMap<Db, Queue>();

function registeredOf(db: Db, queue = queueOfDb.get(db)) {
  const found = queue && registry.get(queue);
  if (!found) throw new Error('No job queue is registered for this database (the jobs plugin).');
  return found;
}

/** Called once by the jobs plugin when it creates the app's queue. */
export function registerQueue(db: Db, queue: Queue) {
  registry.set(queue, { queue, jobs: new Map(), lanes: new Set() });
  queueOfDb.set(db, queue);
}

async function runOne(app: FastifyInstance, def: JobDefinition, data: unknown, id: string, org?: z.infer<typeof Org>) {
  const parsed = def.payload.safeParse(data ?? {});
  if (!parsed.success) throw new Error(`Job '${def.name}' has a payload it cannot read: ${parsed.error.message}`);
  const known = org ?? Org.safeParse(data).data;
  const tenant = <T>(fn: (ctx: RequestContext) => Promise<T>) => {
    if (!known) throw new Error(`Job '${def.name}' was not enqueued for an organization.`);
    return runInTenant(app.db, app.config, systemActor(known), fn);
  };
  try {
    await def.run(parsed.data, { app, id, org: known ?? { orgId: 0, orgSlug: '' }, tenant });
  } catch (err) {
    if (!(err instanceof NotReady)) throw err;
  }
}

/** Starts taking these jobs once the app's queue starts, and schedules those with a cron. */
export async function registerJobs(app: FastifyInstance, defs: JobDefinition[]) {
  const { queue, jobs, lanes } = registeredOf(app.db, app.queue);
  for (const def of defs) {
    if (jobs.has(def.name)) throw new Error(`Job '${def.name}' is registered twice.`);
    jobs.set(def.name, def);
    const lane = def.lane;
    if (lane && !lanes.has(lane.name)) {
      lanes.add(lane.name);
      await queue.work(
        lane.name,
        async (envelope, job) => {
          const { job: name, data, orgId, orgSlug } = LaneEnvelope.parse(envelope);
          const inLane = jobs.get(name);
          if (!inLane || inLane.lane?.name !== lane.name) throw new Error(`No handler for job '${name}' in ${lane.name}`);
          await runOne(app, inLane, data, job.id, { orgId, orgSlug });
        },
        { concurrency: lane.concurrency },
      );
    }
    if (!lane) {
      await queue.work(def.name, (data, job) => runOne(app, def, data, job.id), { concurrency: def.concurrency, batchSize: def.batchSize });
      if (def.cron) {
        const cron = def.cron(app.config);
        await queue.schedule(def.name, cron === 'off' ? null : cron);
      }
    }
  }
}

/** Whether `def` is registered with the app of this database (a unit test may run a domain's code without the app). */
export const jobRegistered = (db: Db, def: JobDefinition<Payload>) => {
  const queue = queueOfDb.get(db);
  return !!queue && registry.get(queue)?.jobs.get(def.name) === def;
};

/** The queue a job goes to: its lane's, or its own. */
export const queueOf = (def: JobDefinition) => def.lane?.name ?? def.name;

/**
 * Queues `def` for the caller's organization in the request's transaction: it runs once the request
 * committed, never if it rolled back.
 */
export async function enqueueJob<S extends Payload>(
  ctx: RequestContext,
  def: JobDefinition<S>,
  data: z.input<S>,
  opts: Pick<JobOptions, 'startAfterSeconds' | 'singletonKey'> = {},
) {
  const { queue, jobs } = registeredOf(ctx.system);
  if (jobs.get(def.name) !== (def as unknown as JobDefinition)) throw new Error(`Job '${def.name}' is not registered (its domain's plugin registers it).`);
  const payload = def.payload.parse(data) as Record<string, unknown>;
  const org = { orgId: ctx.orgId, orgSlug: ctx.orgSlug };
  const envelope = def.lane ? { job: def.name, ...org, data: payload } : { ...org, ...payload };
  // The pgboss schema is outside row level security's reach: the connecting role writes it.
  await ctx.asSystem((tx) => queue.enqueue(queueOf(def), envelope, { ...def.retries?.(ctx.config), ...opts, db: inTransaction(tx) }));
  const names = pendingQueues.get(ctx.system) ?? new Set<string>();
  pendingQueues.set(ctx.system, names.add(queueOf(def)));
  // A delayed job (a page's next step) wakes this process's workers when it falls due, not up to a poll later.
  if (opts.startAfterSeconds) setTimeout(() => queue.notify(queueOf(def)), opts.startAfterSeconds * 1000 + 20).unref();
}

const pendingQueues = new WeakMap<Db, Set<string>>();

/**
 * `enqueueJob` for many payloads of one job at once: one insert and one wake-up in the request's
 * transaction, instead of a statement pair per job.
 */
export async function enqueueJobs<S extends Payload>(ctx: RequestContext, def: JobDefinition<S>, data: z.input<S>[]) {
  if (!data.length) return;
  const { queue, jobs } = registeredOf(ctx.system);
  if (jobs.get(def.name) !== (def as unknown as JobDefinition)) throw new Error(`Job '${def.name}' is not registered (its domain's plugin registers it).`);
  const org = { orgId: ctx.orgId, orgSlug: ctx.orgSlug };
  const envelopes = data.map((d) => {
    const payload = def.payload.parse(d) as Record<string, unknown>;
    return def.lane ? { job: def.name, ...org, data: payload } : { ...org, ...payload };
  });
  await ctx.asSystem((tx) => queue.enqueueMany(queueOf(def), envelopes, { ...def.retries?.(ctx.config), db: inTransaction(tx) }));
  const names = pendingQueues.get(ctx.system) ?? new Set<string>();
  pendingQueues.set(ctx.system, names.add(queueOf(def)));
}

/**
 * After a response whose transaction queued jobs: wake this process's workers now rather than at
 * their next poll (a job inserted by a transaction wakes none by itself).
 */
export function wakeQueued(db: Db) {
  const names = pendingQueues.get(db);
  if (!names) return;
  pendingQueues.delete(db);
  const queue = queueOfDb.get(db);
  for (const name of names) queue?.notify(name);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Resolves once the app's queue holds no job of `lane` waiting or running (tests wait on it; a
 * stopped queue returns at once). Throws if a job failed for good.
 */
export async function drainJobs(app: { db: Db }, timeoutMs = 30_000, lane: Lane = BACKGROUND_LANE) {
  const queue = queueOfDb.get(app.db);
  const deadline = Date.now() + timeoutMs;
  while (queue?.running) {
    const counts = await queue.countJobs(lane.name);
    if (counts.failed) throw new Error(`${counts.failed} background job(s) failed`);
    if (!counts.created && !counts.retry && !counts.active) return;
    if (Date.now() > deadline) throw new Error(`background jobs still pending after ${timeoutMs} ms: ${JSON.stringify(counts)}`);
    queue.notify(lane.name);
    await sleep(20);
  }
}
