import type { FastifyInstance } from 'fastify';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import { inTransaction, type Queue } from '../core/jobs/queue.js';
import { runInTenant } from '../core/tenancy.js';
import type { RequestContext } from '../core/context.js';
import type { Mailer } from '../core/mail.js';

/**
 * Workflow runs are jobs on the app's queue, in a queue of their own: a run waits (wait steps,
 * polling, its deadline) with jobs that start later, which must not hold up the incident jobs. A
 * handler opens short tenant transactions itself (`tenant`) so that no transaction stays open while
 * it talks to an engine, a chat webhook or an SMTP server.
 */
export const WORKFLOW_QUEUE = 'workflow-runs';

export interface WorkflowDeps {
  mailer: Mailer;
  config: Config;
  /** Runs `fn` in its own transaction of the job's organization. */
  tenant<T>(fn: (ctx: RequestContext) => Promise<T>): Promise<T>;
}
type Handler = (deps: WorkflowDeps, data: Record<string, unknown>) => Promise<void>;
interface Job {
  job: string;
  orgId: number;
  orgSlug: string;
  data: Record<string, unknown>;
}

const handlers = new Map<string, Handler>();
const queues = new WeakMap<Db, Queue>();

export function registerWorkflowJob(name: string, handler: Handler) {
  handlers.set(name, handler);
}

export async function registerWorkflowJobs(app: FastifyInstance, opts: { mailer: Mailer }) {
  queues.set(app.db, app.queue);
  await app.queue.work<Job>(
    WORKFLOW_QUEUE,
    async ({ job, orgId, orgSlug, data }) => {
      const handler = handlers.get(job);
      if (!handler) throw new Error(`No handler for workflow job '${job}'`);
      const tenant = <T>(fn: (ctx: RequestContext) => Promise<T>) => runInTenant(app.db, app.config, { orgId, orgSlug, userId: null, role: 'Owner' }, fn);
      await handler({ mailer: opts.mailer, config: app.config, tenant }, data);
    },
    { concurrency: 2 },
  );
}

/** Queues a job in `ctx`'s transaction, to start after `startAfterSeconds` if given. */
export async function enqueueWorkflowJob(ctx: RequestContext, name: string, data: Record<string, unknown>, startAfterSeconds?: number) {
  const queue = queues.get(ctx.system);
  if (!queue) throw new Error('Workflow jobs are not registered for this database (registerWorkflowJobs).');
  const job: Job = { job: name, orgId: ctx.orgId, orgSlug: ctx.orgSlug, data };
  await ctx.asSystem((tx) => queue.enqueue(WORKFLOW_QUEUE, job, { db: inTransaction(tx), startAfterSeconds }));
}

/** Wakes the workers (a job inserted by a transaction wakes none until their next poll). */
export function nudgeWorkflows(db: Db) {
  queues.get(db)?.notify(WORKFLOW_QUEUE);
}
