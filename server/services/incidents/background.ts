import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { runInTenant } from '../../plugins/tenancy.js';
import type { RequestContext } from '../../resources/define.js';

/**
 * Work that must not hold up the request (an incident's conversation and conference, the postmortem
 * document, status workflows). Jobs run after the request's transaction, each in its own tenant
 * transaction. This in-process runner sits behind `enqueue` so the shared job queue can replace it
 * without touching callers; a job whose row is not committed yet is retried shortly after.
 */
export type JobContext = RequestContext;
export type JobHandler = (ctx: JobContext, data: Record<string, unknown>) => Promise<void>;

export class NotReady extends Error {}

const handlers = new Map<string, JobHandler>();
const pending = new Set<Promise<void>>();

export function registerJob(name: string, handler: JobHandler) {
  handlers.set(name, handler);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function run(db: Db, config: Config, orgId: number, orgSlug: string, name: string, data: Record<string, unknown>) {
  const handler = handlers.get(name);
  if (!handler) throw new Error(`No handler for job '${name}'`);
  for (let attempt = 0; ; attempt++) {
    try {
      await runInTenant(db, config, { orgId, orgSlug, userId: null, role: 'Owner' }, (ctx) => handler(ctx, data));
      return;
    } catch (err) {
      // The enqueuing transaction may not have committed yet: wait a little and look again.
      if (err instanceof NotReady && attempt < 60) await sleep(Math.min(20 * (attempt + 1), 250));
      else throw err;
    }
  }
}

/** Schedules a job for after the current request. */
export function enqueue(ctx: RequestContext, name: string, data: Record<string, unknown>) {
  const job = new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => run(ctx.system, ctx.config, ctx.orgId, ctx.orgSlug, name, data))
    .catch((err) => console.error(`incident job '${name}' failed:`, err))
    .finally(() => pending.delete(job));
  pending.add(job);
}

/** Resolves once every scheduled job has finished (tests, graceful shutdown). */
export async function drainJobs() {
  while (pending.size) await Promise.all([...pending]);
}
