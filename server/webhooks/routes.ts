import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { webhookDeliveries, webhookEndpoints } from './tables.js';
import { enqueueDelivery } from './delivery.js';
import { webhookDeliveryResource } from './resources.js';
import { forbidden, httpError, notFound } from '../core/errors.js';
import { may } from '../core/context.js';
import { inTenant } from '../core/tenancy.js';
import { getRecord, idParam } from '../engine/crud.js';
import { recordAnswer } from '../engine/answers.js';

/** Replay of a delivery (same webhook-id, a new series of attempts). */
export function registerWebhookRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/webhooks/deliveries/:id/replay',
    { schema: { tags: ['Webhook delivery'], summary: 'Send a delivery again (same webhook-id)', params: idParam, ...recordAnswer(webhookDeliveryResource) } },
    async (req) =>
      inTenant(req, async (ctx) => {
        if (!may(ctx.role, 'webhooks')) throw forbidden();
        const [delivery] = await ctx.tx
          .select()
          .from(webhookDeliveries)
          .where(and(eq(webhookDeliveries.organization_id, ctx.orgId), eq(webhookDeliveries.id, req.params.id)))
          .for('update');
        if (!delivery) throw notFound('Webhook delivery', req.params.id);
        if (delivery.status === 'Pending') throw httpError(409, 'This delivery is still being attempted.', 'conflict');
        const [endpoint] = await ctx.tx
          .select({ enabled: webhookEndpoints.enabled })
          .from(webhookEndpoints)
          .where(and(eq(webhookEndpoints.organization_id, ctx.orgId), eq(webhookEndpoints.id, delivery.endpoint_id)));
        if (!endpoint?.enabled) throw httpError(409, 'Its endpoint is disabled; enable it first.', 'conflict');
        await ctx.tx
          .update(webhookDeliveries)
          .set({ status: 'Pending', round_started_at: sql`now()`, updated_at: sql`now()` })
          .where(eq(webhookDeliveries.id, delivery.id));
        await enqueueDelivery(ctx, delivery.id);
        return getRecord(webhookDeliveryResource, ctx, delivery.id);
      }),
  );
}
