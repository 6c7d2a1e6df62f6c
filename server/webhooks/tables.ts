import { boolean, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { tenantExtras } from '../core/db/mixins.js';

const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });

/** An organization's subscription of a URL to events; the signing secret is kept encrypted. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: id(),
    organization_id: org(),
    url: text().notNull(),
    description: text(),
    events: jsonb().$type<string[]>().notNull().default([]),
    enabled: boolean().notNull().default(true),
    secret: text().notNull(),
    /** First failed delivery since the last success; 5 days of that disables the endpoint. */
    failing_since: timestamp({ withTimezone: true }),
    disabled_reason: text(),
    ...timestamps(),
  },
  (t) => [...tenantExtras('webhook_endpoints', t, [t.url])],
);

/** One message to one endpoint, with its attempts (the delivery log). */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: id(),
    organization_id: org(),
    endpoint_id: integer().notNull(),
    /** The Standard Webhooks webhook-id: the same on every attempt and replay. */
    message_id: text().notNull(),
    event_type: text().notNull(),
    payload: jsonb().$type<Record<string, unknown>>().notNull(),
    status: text({ enum: ['Pending', 'Delivered', 'Failed'] })
      .notNull()
      .default('Pending'),
    attempts: jsonb().$type<{ at: string; status: number | null; error?: string; ms: number }[]>().notNull().default([]),
    delivered_at: timestamp({ withTimezone: true }),
    /** When the current series of attempts began (creation, or the last replay): retries last 24 hours from it. */
    round_started_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    ...timestamps(),
  },
  (t) => [...tenantExtras('webhook_deliveries', t), index('webhook_deliveries_endpoint_idx').on(t.organization_id, t.endpoint_id, t.id)],
);
