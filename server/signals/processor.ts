import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { rowsOf, type Db } from '../core/db/client.js';
import { signalInstances } from './tables.js';
import { PARTITIONS, PROCESS_BATCH, processPending } from './process.js';

/** How often each process looks for instances nobody is processing (after a crash, or sent to another process). */
const SWEEP_MS = 2_000;
/**
 * How long a woken processor waits for more signals before it starts a batch, and between batches
 * that were not full: each processing transaction costs a dozen statements whatever its size, and two
 * loops running back to back on a few signals each used both cores at a few hundred signals a second.
 */
const GATHER_MS = 100;

interface Processor {
  wake(org: { orgId: number; orgSlug: string }): void;
}
const processors = new WeakMap<Db, Processor>();

export function wakeProcessor(db: Db, org: { orgId: number; orgSlug: string }) {
  processors.get(db)?.wake(org);
}

/**
 * The processor: extraction, filters, dedup and cases run in batches (process.ts), woken when this
 * process commits new instances and every SWEEP_MS for any left unprocessed. An accepted instance is
 * its own durable record (processed_at null, indexed): no job row per request, and after a kill -9
 * the next sweep of any process takes up whatever was not finished.
 */
export function registerSignalProcessor(app: FastifyInstance) {
  // One loop per partition of an organization's instances (PARTITIONS, split by alert series): each
  // holds its partition's advisory lock per batch, so no two loops, in this process or another, wait
  // on each other's groups; while one inserts its batch the other extracts the next.
  const running = new Map<string, Promise<void>>();
  const again = new Set<string>();
  let closed = false;
  const runPartition = (org: { orgId: number; orgSlug: string }, partition: number) => {
    const key = `${org.orgId}:${partition}`;
    if (closed) return;
    if (running.has(key)) {
      again.add(key);
      return;
    }
    // A short wait first, so that under load a batch takes what several commits brought (fewer, larger
    // processing transactions) instead of one request's signals each.
    const done: Promise<void> = new Promise((r) => setTimeout(r, GATHER_MS))
      .then(() => processPending(app.db, app.config, org, PROCESS_BATCH, { partition, partitions: PARTITIONS }, () => closed, GATHER_MS))
      .then(() => undefined)
      .catch((err: unknown) => app.log.error({ err, orgId: org.orgId }, 'signal processing failed; the next sweep retries'))
      .finally(() => {
        running.delete(key);
        if (again.delete(key)) runPartition(org, partition);
      });
    running.set(key, done);
  };
  const run = (org: { orgId: number; orgSlug: string }) => {
    for (let p = 0; p < PARTITIONS; p++) runPartition(org, p);
  };
  const sweep = async () => {
    const pending = rowsOf<{ id: number; slug: string }>(
      await app.db.execute(
        sql`select o.id, o.slug from organizations o where exists (select 1 from signal_instances i where i.organization_id = o.id and i.processed_at is null)`,
      ),
    );
    for (const o of pending) run({ orgId: o.id, orgSlug: o.slug });
  };
  let timer: NodeJS.Timeout | null = null;
  const tick = () => {
    timer = setTimeout(
      () =>
        sweep()
          .catch((err: unknown) => app.log.warn({ err }, 'signal sweep failed'))
          .finally(() => !closed && tick()),
      SWEEP_MS,
    );
    timer.unref();
  };
  processors.set(app.db, { wake: run });
  app.addHook('onReady', async () => {
    await sweep();
    tick();
  });
  app.addHook('onClose', async () => {
    closed = true;
    if (timer) clearTimeout(timer);
    await Promise.allSettled([...running.values()]);
  });
}

/** Tests and the bench: resolves once no instance of the organization waits for processing. */
export async function drainSignals(app: FastifyInstance, orgId: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await app.db
      .select({ n: sql<number>`count(*)::int` })
      .from(signalInstances)
      .where(sql`${signalInstances.organization_id} = ${orgId} and ${signalInstances.processed_at} is null`);
    if (!row!.n) return;
    if (Date.now() > deadline) throw new Error(`${row!.n} signal instance(s) still unprocessed after ${timeoutMs} ms`);
    const [org] = rowsOf<{ slug: string }>(await app.db.execute(sql`select slug from organizations where id = ${orgId}`));
    wakeProcessor(app.db, { orgId, orgSlug: org!.slug });
    await new Promise((r) => setTimeout(r, 50));
  }
}
