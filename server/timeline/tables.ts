import { boolean, foreignKey, index, integer, jsonb, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, tenantPolicy, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { caseFk, incidentFk } from '../core/db/keys.js';

/** The timeline of an incident or a case: its entries, comments, and the conversation each gets in the background. */

const ts = () => timestamp({ withTimezone: true });
const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });

/** Timeline entries of an incident or a case. */
export const events = pgTable(
  'events',
  {
    id: id(),
    organization_id: org(),
    incident_id: integer(),
    case_id: integer(),
    started_at: ts().notNull().defaultNow(),
    ended_at: ts(),
    type: text().notNull().default('Other'),
    source: text().notNull(),
    description: text().notNull(),
    details: jsonb().$type<Record<string, unknown>>(),
    owner: text(),
    pinned: boolean().notNull().default(false),
    ...timestamps(),
  },
  (t) => [
    index('events_org_incident_started_idx').on(t.organization_id, t.incident_id, t.started_at),
    index('events_org_case_started_idx').on(t.organization_id, t.case_id, t.started_at),
    incidentFk('events_incident_fk', t as never),
    caseFk('events_case_fk', t as never),
    tenantPolicy('events'),
  ],
);

export const comments = pgTable(
  'comments',
  {
    id: id(),
    organization_id: org(),
    incident_id: integer(),
    case_id: integer(),
    author_email: text(),
    text: text().notNull(),
    created_at: ts().notNull().defaultNow(),
  },
  (t) => [
    index('comments_org_incident_idx').on(t.organization_id, t.incident_id, t.created_at),
    index('comments_org_case_idx').on(t.organization_id, t.case_id, t.created_at),
    incidentFk('comments_incident_fk', t as never),
    caseFk('comments_case_fk', t as never),
    tenantPolicy('comments'),
  ],
);

/** The thread inside Firewatch that each incident and case gets in the background. */
export const conversations = pgTable(
  'conversations',
  {
    id: id(),
    organization_id: org(),
    incident_id: integer(),
    case_id: integer(),
    name: text().notNull(),
    created_at: ts().notNull().defaultNow(),
  },
  (t) => [
    unique('conversations_org_id_unique').on(t.organization_id, t.id),
    index('conversations_org_incident_idx').on(t.organization_id, t.incident_id),
    incidentFk('conversations_incident_fk', t as never),
    caseFk('conversations_case_fk', t as never),
    tenantPolicy('conversations'),
  ],
);

export const conversationMessages = pgTable(
  'conversation_messages',
  {
    id: id(),
    organization_id: org(),
    conversation_id: integer().notNull(),
    author_email: text().notNull(),
    text: text().notNull(),
    created_at: ts().notNull().defaultNow(),
  },
  (t) => [
    index('conversation_messages_org_conversation_idx').on(t.organization_id, t.conversation_id, t.created_at),
    foreignKey({
      name: 'conversation_messages_conversation_fk',
      columns: [t.organization_id, t.conversation_id],
      foreignColumns: [conversations.organization_id, conversations.id],
    }).onDelete('cascade'),
    tenantPolicy('conversation_messages'),
  ],
);
