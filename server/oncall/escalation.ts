import { and, eq, inArray, lte, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { RequestContext } from '../core/context.js';
import { defineJob, enqueueJob, enqueueJobs } from '../core/jobs/define.js';
import { addEvent } from '../timeline/events.js';
import type { Tenant } from './capabilities.js';
import { DELIVERY_BATCH, deliverJob } from './delivery.js';
import { oncallChannels, oncallNotifications, oncallPages, type PolicyStep } from './tables.js';
import { resolveTargets } from './whos-on.js';

/** Pages escalated per transaction. */
const BATCH = 200;

/**
 * Escalation is kept in the pages' rows, not in the queue: a page due for a step has `next_at` in
 * the past. A wake-up job runs the organization's due pages, each locked (SKIP LOCKED) and moved on in
 * the same transaction that records its notifications (unique per page, step, round, person and
 * channel). A process killed mid-step rolls the whole step back, and the job runs again elsewhere;
 * a step that committed is never taken again, because its page no longer is due for it.
 */
export const escalateJob = defineJob({
  name: 'oncall-escalate',
  payload: z.object({ page_id: z.number().int().optional() }),
  concurrency: 2,
  batchSize: 20,
  retries: () => ({ retryLimit: 10, retryDelaySeconds: 2 }),
  run: async (_data, job) => void (await escalateDue(job.tenant)),
});

/** Runs every due step of the organization; answers how many pages moved. */
export async function escalateDue(tenant: Tenant, hooks: { afterNotify?: () => Promise<void> } = {}): Promise<number> {
  let total = 0;
  for (;;) {
    const moved = await tenant((ctx) => escalateBatch(ctx, hooks));
    total += moved;
    if (moved < BATCH) return total;
  }
}

type Page = typeof oncallPages.$inferSelect;
/** The step after (step, round): the next step, else the first of the next round, else none. */
function nextOf(page: Page, step: number, round: number) {
  if (step + 1 < page.steps.length) return { step: step + 1, round };
  if (round < page.repeat) return { step: 0, round: round + 1 };
  return null;
}

async function escalateBatch(ctx: RequestContext, hooks: { afterNotify?: () => Promise<void> }): Promise<number> {
  const due = await ctx.tx
    .select()
    .from(oncallPages)
    .where(and(eq(oncallPages.organization_id, ctx.orgId), eq(oncallPages.state, 'triggered'), lte(oncallPages.next_at, sql`now()`)))
    .orderBy(oncallPages.next_at)
    .limit(BATCH)
    .for('update', { skipLocked: true });
  if (!due.length) return 0;
  const now = new Date();
  const notified: { page: Page; step: number; round: number; email: string }[] = [];
  const moves: { id: number; step: number; round: number; next_step: number | null; next_round: number | null; minutes: number | null }[] = [];
  const targetsCache = new Map<string, string[]>();
  for (const page of due) {
    const [step, round] = [page.next_step!, page.next_round!];
    const spec: PolicyStep | undefined = page.steps[step];
    const key = JSON.stringify(spec?.targets ?? []);
    if (!targetsCache.has(key)) targetsCache.set(key, spec ? await resolveTargets(ctx, spec.targets, now) : []);
    const emails = targetsCache.get(key)!;
    notified.push(...emails.map((email) => ({ page, step, round, email })));
    const next = nextOf(page, step, round);
    moves.push({
      id: page.id,
      step,
      round,
      next_step: next?.step ?? null,
      next_round: next?.round ?? null,
      minutes: next ? (spec?.timeout_minutes ?? 0) : null,
    });
    if (page.incident_id || page.case_id)
      await addEvent(ctx, {
        incident_id: page.incident_id,
        case_id: page.case_id,
        type: 'Notification',
        description: emails.length
          ? `Page "${page.title}" step ${step + 1}${round ? ` (round ${round + 1})` : ''}: notified ${emails.join(', ')}`
          : `Page "${page.title}" step ${step + 1}: nobody is on call`,
        details: { page_id: page.id, step, round },
      });
  }
  await ctx.tx.execute(sql`update oncall_pages p set step = m.step, round = m.round, next_step = m.next_step, next_round = m.next_round,
      next_at = case when m.next_step is null then null else now() + make_interval(mins => m.minutes) end, updated_at = now()
    from jsonb_to_recordset(${JSON.stringify(moves)}::jsonb) as m(id int, step int, round int, next_step int, next_round int, minutes int)
    where p.organization_id = ${ctx.orgId} and p.id = m.id`);
  await queueNotifications(ctx, notified, now);
  await hooks.afterNotify?.();
  // One wake-up per moment something falls due (pages sharing a timeout share it).
  const waits = new Set(moves.filter((m) => m.next_step !== null).map((m) => m.minutes! * 60));
  for (const seconds of waits)
    await enqueueJob(ctx, escalateJob, {}, { startAfterSeconds: seconds, singletonKey: `oncall-${ctx.orgId}-${Math.ceil(now.getTime() / 1000) + seconds}` });
  return due.length;
}

/** Each notified person's enabled channels (their e-mail address when they have none), as rows and delivery jobs. */
async function queueNotifications(ctx: RequestContext, notified: { page: Page; step: number; round: number; email: string }[], now: Date) {
  if (!notified.length) return;
  const emails = [...new Set(notified.map((n) => n.email))];
  const channels = await ctx.tx
    .select()
    .from(oncallChannels)
    .where(and(eq(oncallChannels.organization_id, ctx.orgId), eq(oncallChannels.enabled, true), inArray(oncallChannels.email, emails)));
  const byPerson = new Map<string, (typeof channels)[number][]>();
  for (const c of channels) byPerson.set(c.email, [...(byPerson.get(c.email) ?? []), c]);
  const rows = notified.flatMap((n) => {
    const own = byPerson.get(n.email) ?? [{ id: 0, kind: 'email' as const, delay_minutes: 0 }];
    return own.map((c) => ({
      organization_id: ctx.orgId,
      page_id: n.page.id,
      step: n.step,
      round: n.round,
      email: n.email,
      channel_id: c.id,
      kind: c.kind,
      due_at: new Date(now.getTime() + c.delay_minutes * 60_000),
    }));
  });
  const inserted = await ctx.tx
    .insert(oncallNotifications)
    .values(rows)
    .onConflictDoNothing()
    .returning({ id: oncallNotifications.id, due_at: oncallNotifications.due_at });
  // One delivery job per DELIVERY_BATCH notifications due at the same moment (a channel's delay).
  const byDelay = new Map<number, number[]>();
  for (const r of inserted) {
    const seconds = Math.max(0, Math.ceil((r.due_at.getTime() - now.getTime()) / 1000));
    byDelay.set(seconds, [...(byDelay.get(seconds) ?? []), r.id]);
  }
  for (const [seconds, ids] of byDelay) {
    const chunks = Array.from({ length: Math.ceil(ids.length / DELIVERY_BATCH) }, (_, i) => ({
      notification_ids: ids.slice(i * DELIVERY_BATCH, (i + 1) * DELIVERY_BATCH),
    }));
    if (!seconds) await enqueueJobs(ctx, deliverJob, chunks);
    else for (const chunk of chunks) await enqueueJob(ctx, deliverJob, chunk, { startAfterSeconds: seconds });
  }
}
