import { RIGHTS } from '../core/rights.js';
import { z } from 'zod';
import { webhookDeliveries, webhookEndpoints } from './tables.js';
import { invalid } from '../core/errors.js';
import type { RequestContext } from '../core/context.js';
import { outboundUrlProblem } from '../core/http/outbound.js';
import { fieldsOf } from '../engine/definition-kit.js';
import { bodyOf } from '../engine/body.js';
import { defineResource } from '../engine/define.js';
import { flag, text } from '../engine/fields.js';
import { encryptSecret } from '../plugins/secrets.js';
import { newSigningSecret } from '../plugins/signing.js';

export const WEBHOOK_EVENTS = [
  'incident.created',
  'incident.updated',
  'case.created',
  'case.updated',
  'case.escalated',
  'task.created',
  'task.updated',
] as const;

/** An internal address is refused when saved (and again, resolved, when delivered). */
function checkTarget(ctx: RequestContext, url: unknown) {
  const problem = typeof url === 'string' ? outboundUrlProblem(ctx.config, url) : null;
  if (problem) throw invalid(problem, ['body', 'url']);
}

const endpointUrl = z.url('Must be a URL').refine((u) => /^https?:\/\//i.test(u), 'Must be an http or https URL');

/**
 * An organization's outgoing webhook endpoint. Its signing secret (Standard Webhooks, whsec_…) is
 * returned once, in the create answer; it is kept encrypted and never shown again.
 */
export const webhookEndpointResource = defineResource({
  model: 'WebhookEndpoint',
  label: 'Webhook endpoint',
  path: '/webhooks/endpoints',
  table: webhookEndpoints,
  create: bodyOf(
    webhookEndpoints,
    {
      url: endpointUrl,
      description: text(2000),
      events: z
        .array(z.enum(WEBHOOK_EVENTS, { error: `Event must be one of ${WEBHOOK_EVENTS.join(', ')}` }))
        .min(1, 'Subscribe to at least one event')
        .max(WEBHOOK_EVENTS.length),
      enabled: flag().optional(),
    },
    { readOnly: ['secret', 'failing_since', 'disabled_reason'] },
  ),
  pageSize: 25,
  sort: [['url', 'asc']],
  search: ['url', 'description'],
  fields: fieldsOf(webhookEndpoints, ['events', 'secret']),
  hidden: ['secret'],
  writeRole: RIGHTS.webhooks.least,
  hooks: {
    beforeCreate(ctx, data) {
      checkTarget(ctx, data.url);
      const secret = newSigningSecret();
      return { ...data, secret: encryptSecret(ctx.system, secret), __secret: secret };
    },
    async create(ctx, data) {
      const { __secret: _s, ...values } = data;
      const [row] = await ctx.tx
        .insert(webhookEndpoints)
        .values({ ...(values as typeof webhookEndpoints.$inferInsert), organization_id: ctx.orgId })
        .returning({ id: webhookEndpoints.id });
      return row!.id;
    },
    afterCreate(_ctx, record, data) {
      return { ...record, secret: data.__secret };
    },
    // Enabling again starts its failure clock afresh.
    beforeUpdate(ctx, _id, data) {
      if (data.url !== undefined && typeof data.url !== 'string') throw invalid('Must be a URL', ['body', 'url']);
      checkTarget(ctx, data.url);
      return data.enabled === true ? { ...data, failing_since: null, disabled_reason: null } : data;
    },
  },
});

export const webhookDeliveryResource = defineResource({
  model: 'WebhookDelivery',
  label: 'Webhook delivery',
  path: '/webhooks/deliveries',
  table: webhookDeliveries,
  create: z.strictObject({ event_type: text() }),
  pageSize: 25,
  sort: [['created_at', 'desc']],
  search: ['event_type', 'message_id'],
  fields: fieldsOf(webhookDeliveries, ['payload', 'attempts']),
  routes: { create: false, update: false, delete: false },
});
