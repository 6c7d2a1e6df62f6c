import { integer, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { tenantExtras } from '../core/db/mixins.js';

/**
 * The ticket an incident or a case has in a ticketing system (one each): the `ticket` resource
 * {resource_type, resource_id, weblink} plus what syncing needs: the Firewatch status last pushed,
 * the ticket's status category, and the last refusal in words.
 */
export const tickets = pgTable(
  'tickets',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    incident_id: integer(),
    case_id: integer(),
    plugin_instance_id: integer().notNull(),
    resource_type: text().notNull(),
    /** The key (OPS-12); null while none could be created. */
    resource_id: text(),
    weblink: text(),
    synced_status: text(),
    status_category: text(),
    error: text(),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('tickets', t),
    // One ticket per incident and per case: a re-run finds it instead of opening another.
    unique('tickets_org_owner_unique').on(t.organization_id, t.incident_id, t.case_id).nullsNotDistinct(),
    unique('tickets_org_resource_unique').on(t.organization_id, t.resource_type, t.resource_id),
  ],
);

/**
 * Each Jira webhook delivery taken, by Jira's delivery id (X-Atlassian-Webhook-Identifier, the same on
 * its retries): the first to insert it acts on it, so a retried delivery changes nothing. Kept a week.
 */
export const ticketDeliveries = pgTable(
  'ticket_deliveries',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    plugin_instance_id: integer().notNull(),
    key: text().notNull(),
    received_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [...tenantExtras('ticket_deliveries', t), unique('ticket_deliveries_org_key_unique').on(t.organization_id, t.plugin_instance_id, t.key)],
);
