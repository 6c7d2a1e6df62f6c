import { bigint, boolean, integer, jsonb, numeric, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { tenantExtras, tenantFk, trigram } from '../core/db/mixins.js';

const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });

/** Source attributes (environment, status, transport, type, data format): a name and a description each. */
const attribute = (table: string) =>
  pgTable(table, { id: id(), organization_id: org(), project_id: integer(), name: text().notNull(), description: text(), ...timestamps() }, (t) => [
    ...tenantExtras(table, t, [t.name]),
    unique(`${table}_org_project_name_unique`).on(t.organization_id, t.project_id, t.name).nullsNotDistinct(),
  ]);

export const sourceEnvironments = attribute('source_environments');
export const sourceStatuses = attribute('source_statuses');
export const sourceTransports = attribute('source_transports');
export const sourceTypes = attribute('source_types');
export const sourceDataFormats = attribute('source_data_formats');

export interface SourceAlert {
  name: string;
  description?: string | null;
  originator?: string | null;
  external_link?: string | null;
}

export const sources = pgTable(
  'sources',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    name: text().notNull(),
    description: text(),
    owner: text(),
    /** Days the data is kept. */
    retention: integer(),
    source_environment_id: integer(),
    source_status_id: integer(),
    source_type_id: integer(),
    source_transport_id: integer(),
    source_data_format_id: integer(),
    /** Bytes a day. */
    size: bigint({ mode: 'number' }),
    aggregated: boolean().notNull().default(false),
    /** Minutes between an event and its arrival. */
    delay: integer(),
    external_id: text(),
    documentation: text(),
    data_last_loaded_at: timestamp({ withTimezone: true }),
    sampling_rate: integer(),
    schema: text(),
    sample_log: text(),
    cost: numeric({ precision: 14, scale: 2, mode: 'number' }),
    links: jsonb().$type<{ name?: string; url: string }[]>().notNull().default([]),
    /** The spec's `incidents`: ids of incidents the source was involved in (answered as {id, name}). */
    incidents: jsonb().$type<number[]>().notNull().default([]),
    /** The spec's `alerts`: the alerts defined on the source's data, as Dispatch's Alert (name, description, originator, external_link). */
    alerts: jsonb().$type<SourceAlert[]>().notNull().default([]),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('sources', t, [t.name]),
    unique('sources_org_project_name_unique').on(t.organization_id, t.project_id, t.name).nullsNotDistinct(),
    trigram('sources', t.organization_id, t.name),
    tenantFk('sources_environment_fk', t.organization_id, t.source_environment_id, sourceEnvironments),
    tenantFk('sources_status_fk', t.organization_id, t.source_status_id, sourceStatuses),
    tenantFk('sources_type_fk', t.organization_id, t.source_type_id, sourceTypes),
    tenantFk('sources_transport_fk', t.organization_id, t.source_transport_id, sourceTransports),
    tenantFk('sources_data_format_fk', t.organization_id, t.source_data_format_id, sourceDataFormats),
  ],
);

export const queries = pgTable(
  'queries',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    source_id: integer(),
    name: text().notNull(),
    description: text(),
    text: text().notNull(),
    language: text(),
    count: integer().notNull().default(0),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('queries', t, [t.name]),
    trigram('queries', t.organization_id, t.name),
    tenantFk('queries_source_fk', t.organization_id, t.source_id, sources).onDelete('cascade'),
  ],
);

export const commands = pgTable(
  'commands',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    name: text().notNull(),
    description: text(),
    command_text: text().notNull(),
    count: integer().notNull().default(0),
    ...timestamps(),
  },
  (t) => [...tenantExtras('commands', t, [t.count.desc().nullsFirst()]), trigram('commands', t.organization_id, t.name)],
);
