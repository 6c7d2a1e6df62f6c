import { integer, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { tenantExtras } from '../core/db/mixins.js';

/** A meeting scheduled for an incident in a calendar or meeting service (its postmortem review): one per purpose. */
export const meetings = pgTable(
  'meetings',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    incident_id: integer().notNull(),
    purpose: text().notNull(),
    plugin_instance_id: integer().notNull(),
    meeting_id: text(),
    weblink: text(),
    starts_at: timestamp({ withTimezone: true }),
    error: text(),
    ...timestamps(),
  },
  (t) => [...tenantExtras('meetings', t), unique('meetings_org_incident_purpose_unique').on(t.organization_id, t.incident_id, t.purpose)],
);
