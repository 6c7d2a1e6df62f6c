import { boolean, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { tenantExtras } from '../core/db/mixins.js';

const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });
const ts = () => timestamp({ withTimezone: true });

export const oncallHandoffs = pgTable(
  'oncall_handoffs',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    handover_from: text().notNull(),
    handover_to: text().notNull(),
    start_time: ts(),
    end_time: ts(),
    shift_type: text(),
    location_type: text(),
    location_details: text(),
    critical_ongoing_issues: text(),
    tasks_completed: text(),
    pending_tasks: text(),
    mentions: text(),
    tools_and_access: text(),
    feedback: text(),
    handoff_completed: boolean().notNull().default(false),
    handoff_completed_at: ts(),
    ...timestamps(),
  },
  (t) => [...tenantExtras('oncall_handoffs', t, [t.end_time.desc().nullsFirst()])],
);

export const oncallPreshiftPreps = pgTable(
  'oncall_preshift_preps',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    handover_to: text().notNull(),
    shift_type: text(),
    location_type: text(),
    sent: boolean().notNull().default(false),
    sent_at: ts(),
    accepted: boolean().notNull().default(false),
    accepted_at: ts(),
    handshake_completed: boolean().notNull().default(false),
    handshake_completed_at: ts(),
    ...timestamps(),
  },
  (t) => [...tenantExtras('oncall_preshift_preps', t, [t.sent_at.desc().nullsFirst()])],
);
