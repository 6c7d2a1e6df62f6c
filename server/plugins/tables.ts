import { boolean, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { tenantExtras } from '../core/db/mixins.js';

const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });

/**
 * A configured plugin of a project (several per plugin, enabled or not). `configuration` holds the
 * plain values with each secret masked; `secrets` the secrets, each AES-256-GCM encrypted.
 */
export const pluginInstances = pgTable(
  'plugin_instances',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    plugin_slug: text().notNull(),
    title: text().notNull(),
    enabled: boolean().notNull().default(true),
    configuration: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    secrets: jsonb().$type<Record<string, string>>().notNull().default({}),
    ...timestamps(),
  },
  (t) => [...tenantExtras('plugin_instances', t, [t.title])],
);

/** What a plugin reported doing (a message posted, a run started, a callback received). */
export const pluginEvents = pgTable(
  'plugin_events',
  {
    id: id(),
    organization_id: org(),
    plugin_instance_id: integer(),
    plugin_slug: text().notNull(),
    name: text().notNull(),
    description: text(),
    incident_id: integer(),
    case_id: integer(),
    workflow_instance_id: integer(),
    details: jsonb().$type<Record<string, unknown>>(),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [...tenantExtras('plugin_events', t)],
);
