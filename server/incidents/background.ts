import type { FastifyInstance } from 'fastify';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import { inTransaction, type Queue } from '../core/jobs/queue.js';
import { runInTenant } from '../core/tenancy.js';
import type { RequestContext } from '../core/context.js';

/**
 * Work that must not hold up the request (an incident's conversation and conference, the postmortem
 * document, status workflows), on the app's job queue (pg-boss): a job is inserted in the request's
 * own transaction, so it exists exactly when the request's changes committed, survives a restart,
 * and runs once whichever process picks it up. Each job runs in its own tenant transaction.
 */
export type JobContext = RequestContext;
export type JobHandler = (ctx: JobContext, data: Record<string, unknown>) => Promise<void>;

/** Every incident and case job shares one pg-boss queue; `job` names the handler. */
export const BACKGROUND_QUEUE = 'incident-background';
interface BackgroundJob {
  job: string;
  orgId: number;
  orgSlug: string;
  data: Record<string, unknown>;
}

/**
 * A handler throws this when the record it works on is not there. Jobs commit with their record, so
 * it was deleted since: there is nothing left to do.
 */
export class NotReady extends Error {}

const handlers = new Map<string, JobHandler>();
/** The queue of each app's database (tests run several apps in one process). */
const queues = new WeakMap<Db, Queue>();

export function registerJob(name: string, handler: JobHandler) {
  handlers.set(name, handler);
}

async function run(db: Db, config: Config, { job, orgId, orgSlug, data }: BackgroundJob) {
  const handler = handlers.get(job);
  if (!handler) throw new Error(`No handler for job '${job}'`);
  try {
    await runInTenant(db, config, { orgId, orgSlug, userId: null, role: 'Owner' }, (ctx) => handler(ctx, data));
  } catch (err) {
    if (!(err instanceof NotReady)) throw err;
  }
}

/** Starts taking this app's incident and case jobs once its queue starts. */
export async function registerBackgroundJobs(app: FastifyInstance) {
  queues.set(app.db, app.queue);
  await app.queue.work<BackgroundJob>(BACKGROUND_QUEUE, (job) => run(app.db, app.config, job), { concurrency: 2 });
}

/** Queues a job in the request's transaction: it runs once the request committed, never if it rolled back. */
export async function enqueue(ctx: RequestContext, name: string, data: Record<string, unknown>) {
  if (!handlers.has(name)) throw new Error(`No handler for job '${name}'`);
  const queue = queues.get(ctx.system);
  if (!queue) throw new Error('Background jobs are not registered for this database (registerBackgroundJobs).');
  const job: BackgroundJob = { job: name, orgId: ctx.orgId, orgSlug: ctx.orgSlug, data };
  // The pgboss schema is outside row level security's reach: the connecting role writes it.
  await ctx.asSystem((tx) => queue.enqueue(BACKGROUND_QUEUE, job, { db: inTransaction(tx) }));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Resolves once the app's queue holds no incident or case job waiting or running (tests wait on it;
 * a stopped queue returns at once). Throws if a job failed for good.
 */
export async function drainJobs(app: { db: Db }, timeoutMs = 30_000) {
  const queue = queues.get(app.db);
  const deadline = Date.now() + timeoutMs;
  while (queue?.running) {
    const counts = await queue.countJobs(BACKGROUND_QUEUE);
    if (counts.failed) throw new Error(`${counts.failed} background job(s) failed`);
    if (!counts.created && !counts.retry && !counts.active) return;
    if (Date.now() > deadline) throw new Error(`background jobs still pending after ${timeoutMs} ms: ${JSON.stringify(counts)}`);
    // Jobs inserted by a request's transaction wake no worker: look now, not at the next poll.
    queue.notify(BACKGROUND_QUEUE);
    await sleep(20);
  }
}
