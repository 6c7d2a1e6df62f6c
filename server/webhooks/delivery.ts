import { z } from 'zod';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { webhookDeliveries, webhookEndpoints } from './tables.js';
import { defineJob, enqueueJob, enqueueJobs, type JobRun } from '../core/jobs/define.js';
import type { RequestContext } from '../core/context.js';
import { subscribe, type DomainEvents } from '../core/events.js';
import { cases } from '../cases/tables.js';
import { incidents } from '../incidents/tables.js';
import { tasks } from '../tasks/tables.js';
import { decryptSecret } from '../plugins/secrets.js';
import { signedHeaders } from '../plugins/signing.js';
import { outboundFailure, outboundFetch } from '../core/http/outbound.js';

export const WEBHOOK_QUEUE = 'webhook-delivery';
/** Retries double from WEBHOOK_RETRY_SECONDS; the 24-hour window ends them before this many run out. */
export const MAX_ATTEMPTS = 16;
const RETRY_WINDOW_MS = 24 * 3600 * 1000;
const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;
const TIMEOUT_MS = 15_000;

const tableOf = { incident: incidents, case: cases, task: tasks } as const;

/**
 * Outgoing webhooks subscribed to the event get a delivery each, queued in the same transaction: for a
 * batch of records, the endpoints and the records are read once, every delivery inserted and queued in
 * one statement each.
 */
subscribe(async (ctx: RequestContext, events: DomainEvents) => {
  const endpoints = await ctx.tx
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.organization_id, ctx.orgId),
        eq(webhookEndpoints.enabled, true),
        sql`${webhookEndpoints.events} @> ${JSON.stringify([events.type])}::jsonb`,
      ),
    );
  if (!endpoints.length) return;
  const table = tableOf[events.type.split('.')[0] as keyof typeof tableOf];
  const found = await ctx.tx
    .select()
    .from(table)
    .where(and(eq(table.organization_id, ctx.orgId), inArray(table.id, events.ids)));
  const rowOf = new Map<number, Record<string, unknown>>(found.map((r) => [r.id, r]));
  const timestamp = new Date().toISOString();
  const values = events.ids.flatMap((id) => {
    const payload = {
      type: events.type,
      timestamp,
      data: { ...(rowOf.get(id) ?? { id }), ...(events.incident_id ? { escalated_to_incident_id: events.incident_id } : {}) },
    };
    return endpoints.map((e) => ({ organization_id: ctx.orgId, endpoint_id: e.id, message_id: `msg_${randomUUID()}`, event_type: events.type, payload }));
  });
  const rows = await ctx.tx.insert(webhookDeliveries).values(values).returning({ id: webhookDeliveries.id });
  await enqueueJobs(
    ctx,
    deliveryJob,
    rows.map((r) => ({ deliveryId: r.id })),
  );
});

export const enqueueDelivery = (ctx: RequestContext, deliveryId: number) => enqueueJob(ctx, deliveryJob, { deliveryId });

/** One attempt. A failure throws, so the queue retries it with backoff, until the 24-hour window closes. */
export const deliveryJob = defineJob({
  name: WEBHOOK_QUEUE,
  payload: z.object({ deliveryId: z.number().int() }),
  concurrency: 4,
  retries: (config) => ({ retryLimit: MAX_ATTEMPTS - 1, retryDelaySeconds: config.WEBHOOK_RETRY_SECONDS }),
  run: ({ deliveryId }, { app, org, tenant }) => deliver(app, org.orgId, deliveryId, tenant),
});

async function deliver(app: FastifyInstance, orgId: number, deliveryId: number, tenant: JobRun['tenant']) {
  const target = await tenant(async (ctx) => {
    const [delivery] = await ctx.tx
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.organization_id, orgId), eq(webhookDeliveries.id, deliveryId)));
    if (!delivery || delivery.status !== 'Pending') return null;
    const [endpoint] = await ctx.tx
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.organization_id, orgId), eq(webhookEndpoints.id, delivery.endpoint_id)));
    if (!endpoint || !endpoint.enabled) {
      await ctx.tx
        .update(webhookDeliveries)
        .set({ status: 'Failed', updated_at: sql`now()` })
        .where(eq(webhookDeliveries.id, deliveryId));
      return null;
    }
    return { delivery, url: endpoint.url, secret: decryptSecret(ctx.system, endpoint.secret) };
  });
  if (!target) return;
  const body = JSON.stringify(target.delivery.payload);
  const started = Date.now();
  let status: number | null = null;
  let error: string | undefined;
  try {
    const res = await outboundFetch(app.config, target.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Firewatch-Webhooks/1', ...signedHeaders(target.secret, body, target.delivery.message_id) },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    status = res.status;
    await res.arrayBuffer().catch(() => undefined);
    if (!res.ok) error = `answered ${res.status}`;
  } catch (err) {
    error = outboundFailure(err);
  }
  const attempt = { at: new Date(started).toISOString(), status, ...(error ? { error } : {}), ms: Date.now() - started };
  const retry = await tenant(async (ctx) => {
    const attempts = [...target.delivery.attempts, attempt];
    if (!error) {
      await ctx.tx
        .update(webhookDeliveries)
        .set({ status: 'Delivered', attempts, delivered_at: sql`now()`, updated_at: sql`now()` })
        .where(eq(webhookDeliveries.id, deliveryId));
      await ctx.tx.update(webhookEndpoints).set({ failing_since: null }).where(eq(webhookEndpoints.id, target.delivery.endpoint_id));
      return false;
    }
    const [endpoint] = await ctx.tx
      .update(webhookEndpoints)
      .set({ failing_since: sql`coalesce(${webhookEndpoints.failing_since}, now())` })
      .where(eq(webhookEndpoints.id, target.delivery.endpoint_id))
      .returning({ failing_since: webhookEndpoints.failing_since });
    const failingFor = endpoint?.failing_since ? Date.now() - endpoint.failing_since.getTime() : 0;
    if (failingFor >= DISABLE_AFTER_MS) {
      await ctx.tx
        .update(webhookEndpoints)
        .set({ enabled: false, disabled_reason: `Disabled after failing for ${Math.floor(failingFor / 86_400_000)} days; the last attempt ${error}.` })
        .where(eq(webhookEndpoints.id, target.delivery.endpoint_id));
    }
    const round = target.delivery.round_started_at;
    const thisRound = attempts.filter((a) => new Date(a.at) >= round).length;
    const givingUp = failingFor >= DISABLE_AFTER_MS || Date.now() - round.getTime() >= RETRY_WINDOW_MS || thisRound >= MAX_ATTEMPTS;
    await ctx.tx
      .update(webhookDeliveries)
      .set({ attempts, ...(givingUp ? { status: 'Failed' } : {}), updated_at: sql`now()` })
      .where(eq(webhookDeliveries.id, deliveryId));
    return !givingUp;
  });
  if (retry) throw new Error(`Webhook delivery ${deliveryId} ${error}; retried with backoff`);
}
