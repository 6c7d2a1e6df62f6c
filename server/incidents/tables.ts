import { sql } from 'drizzle-orm';
import { check, customType, foreignKey, index, integer, jsonb, numeric, pgTable, primaryKey, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, tenantPolicy, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { incidentCostTypes, incidentPriorities, incidentSeverities, incidentTypes } from './settings-tables.js';
import { inList, tenantFk } from '../core/db/mixins.js';
import { entityKeys, incidentFk } from '../core/db/keys.js';
import { projects } from '../core/db/projects.js';
import { tags } from '../tags/tables.js';

/**
 * Incidents (IAOs) and what hangs off them alone: participants and roles, tags, entities,
 * subscriptions, reports, resources, steps and costs. Cases, tasks and the timeline are domains of
 * their own (cases/, tasks/, timeline/) that point here. People are named by e-mail (as Dispatch's
 * individual contacts are), so a row never points at a user of another organization.
 */

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
const ts = () => timestamp({ withTimezone: true });
const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });

export const INCIDENT_STATUSES = ['Active', 'Stable', 'Closed'] as const;
export const VISIBILITIES = ['Open', 'Restricted'] as const;
export const INCIDENT_ROLES = ['reporter', 'commander', 'liaison', 'scribe', 'participant', 'observer'] as const;
export const REPORT_TYPES = ['tactical', 'executive'] as const;

/** Per-organization sequences for human names (IAO-1, OCO-1). */
export const nameCounters = pgTable(
  'name_counters',
  {
    organization_id: org(),
    kind: text().notNull(),
    value: integer().notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.organization_id, t.kind] }), tenantPolicy('name_counters')],
);

export const incidents = pgTable(
  'incidents',
  {
    id: id(),
    organization_id: org(),
    project_id: integer().notNull(),
    name: text().notNull(),
    title: text().notNull(),
    description: text(),
    resolution: text(),
    status: text({ enum: INCIDENT_STATUSES }).notNull().default('Active'),
    visibility: text({ enum: VISIBILITIES }).notNull().default('Open'),
    incident_type_id: integer(),
    incident_priority_id: integer(),
    incident_severity_id: integer(),
    // Kept in step with the active reporter and commander roles, so the slim list needs no join.
    reporter_email: text(),
    commander_email: text(),
    reported_at: ts().notNull().defaultNow(),
    stable_at: ts(),
    closed_at: ts(),
    conversation_id: integer(),
    conference_url: text(),
    custom_fields: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    /** The spec's `services` and `queries`: ids of the services it touches and the data catalog's queries used (answered as {id, name}). */
    services: jsonb().$type<number[]>().notNull().default([]),
    queries: jsonb().$type<number[]>().notNull().default([]),
    search: tsvector().generatedAlwaysAs(sql`to_tsvector('english', coalesce(title, '') || ' ' || coalesce(description, ''))`),
    ...timestamps(),
  },
  (t) => [
    unique('incidents_org_id_unique').on(t.organization_id, t.id),
    unique('incidents_org_name_unique').on(t.organization_id, t.name),
    // NULLS FIRST is what `order by reported_at desc` means; an index ordered otherwise cannot serve
    // the list's sort. Status and visibility ride along after id (drizzle has no INCLUDE), so the
    // default list's page window and count are index-only scans (see the list route in crud.ts).
    index('incidents_org_reported_v3_idx').on(t.organization_id, t.reported_at.desc().nullsFirst(), t.id, t.status, t.visibility),
    index('incidents_org_status_reported_v3_idx').on(t.organization_id, t.status, t.reported_at.desc().nullsFirst(), t.id, t.visibility),
    index('incidents_org_project_reported_v2_idx').on(t.organization_id, t.project_id, t.reported_at.desc().nullsFirst()),
    index('incidents_org_commander_idx').on(t.organization_id, t.commander_email),
    index('incidents_org_search_idx').using('gin', t.organization_id, t.search),
    check('incidents_status_check', sql`${t.status} in (${inList(INCIDENT_STATUSES)})`),
    check('incidents_visibility_check', sql`${t.visibility} in (${inList(VISIBILITIES)})`),
    foreignKey({ name: 'incidents_project_fk', columns: [t.organization_id, t.project_id], foreignColumns: [projects.organization_id, projects.id] }).onDelete(
      'cascade',
    ),
    // Settings in use cannot be deleted (409) rather than silently emptying incidents' fields.
    tenantFk('incidents_type_fk', t.organization_id, t.incident_type_id, incidentTypes),
    tenantFk('incidents_priority_fk', t.organization_id, t.incident_priority_id, incidentPriorities),
    tenantFk('incidents_severity_fk', t.organization_id, t.incident_severity_id, incidentSeverities),
    tenantPolicy('incidents'),
  ],
);

export const incidentParticipants = pgTable(
  'incident_participants',
  {
    id: id(),
    organization_id: org(),
    incident_id: integer().notNull(),
    email: text().notNull(),
    name: text(),
    added_reason: text(),
    added_at: ts().notNull().defaultNow(),
  },
  (t) => [
    unique('incident_participants_org_id_unique').on(t.organization_id, t.id),
    unique('incident_participants_org_incident_email_unique').on(t.organization_id, t.incident_id, t.email),
    index('incident_participants_org_email_idx').on(t.organization_id, t.email, t.incident_id),
    incidentFk('incident_participants_incident_fk', t as never),
    tenantPolicy('incident_participants'),
  ],
);

/** A participant's role; renouncing sets renounced_at (the entry stays, shown as Inactive). */
export const incidentRoles = pgTable(
  'incident_roles',
  {
    id: id(),
    organization_id: org(),
    incident_id: integer().notNull(),
    participant_id: integer().notNull(),
    role: text({ enum: INCIDENT_ROLES }).notNull(),
    assumed_at: ts().notNull().defaultNow(),
    renounced_at: ts(),
  },
  (t) => [
    index('incident_roles_org_incident_idx').on(t.organization_id, t.incident_id),
    check('incident_roles_role_check', sql`${t.role} in (${inList(INCIDENT_ROLES)})`),
    incidentFk('incident_roles_incident_fk', t as never),
    foreignKey({
      name: 'incident_roles_participant_fk',
      columns: [t.organization_id, t.participant_id],
      foreignColumns: [incidentParticipants.organization_id, incidentParticipants.id],
    }).onDelete('cascade'),
    tenantPolicy('incident_roles'),
  ],
);

export const incidentTags = pgTable(
  'incident_tags',
  {
    organization_id: org(),
    incident_id: integer().notNull(),
    tag_id: integer().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organization_id, t.incident_id, t.tag_id] }),
    index('incident_tags_org_tag_idx').on(t.organization_id, t.tag_id, t.incident_id),
    incidentFk('incident_tags_incident_fk', t as never),
    foreignKey({ name: 'incident_tags_tag_fk', columns: [t.organization_id, t.tag_id], foreignColumns: [tags.organization_id, tags.id] }).onDelete('cascade'),
    tenantPolicy('incident_tags'),
  ],
);

/** The spec's entities of an incident that people name themselves (those its cases' signals carried are read through them). */
export const incidentEntities = pgTable(
  'incident_entities',
  {
    organization_id: org(),
    incident_id: integer().notNull(),
    entity_id: integer().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organization_id, t.incident_id, t.entity_id] }),
    index('incident_entities_org_entity_idx').on(t.organization_id, t.entity_id, t.incident_id),
    incidentFk('incident_entities_incident_fk', t as never),
    tenantFk('incident_entities_entity_fk', t.organization_id, t.entity_id, entityKeys).onDelete('cascade'),
    tenantPolicy('incident_entities'),
  ],
);

export const incidentSubscriptions = pgTable(
  'incident_subscriptions',
  {
    organization_id: org(),
    incident_id: integer().notNull(),
    email: text().notNull(),
    created_at: ts().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organization_id, t.incident_id, t.email] }),
    incidentFk('incident_subscriptions_incident_fk', t as never),
    tenantPolicy('incident_subscriptions'),
  ],
);

export const reports = pgTable(
  'reports',
  {
    id: id(),
    organization_id: org(),
    incident_id: integer().notNull(),
    type: text({ enum: REPORT_TYPES }).notNull(),
    details: jsonb().$type<Record<string, unknown>>().notNull(),
    author_email: text(),
    created_at: ts().notNull().defaultNow(),
  },
  (t) => [
    index('reports_org_incident_idx').on(t.organization_id, t.incident_id, t.created_at),
    incidentFk('reports_incident_fk', t as never),
    tenantPolicy('reports'),
  ],
);

/** Documents, links, tickets and the postmortem attached to an incident. */
export const incidentResources = pgTable(
  'incident_resources',
  {
    id: id(),
    organization_id: org(),
    incident_id: integer().notNull(),
    resource_type: text().notNull(),
    name: text().notNull(),
    weblink: text(),
    description: text(),
    content: text(),
    created_at: ts().notNull().defaultNow(),
  },
  (t) => [
    index('incident_resources_org_incident_idx').on(t.organization_id, t.incident_id),
    incidentFk('incident_resources_incident_fk', t as never),
    tenantPolicy('incident_resources'),
  ],
);

export const STEP_STATUSES = ['Pending', 'In progress', 'Done', 'Skipped'] as const;

export const incidentSteps = pgTable(
  'incident_steps',
  {
    id: id(),
    organization_id: org(),
    incident_id: integer().notNull(),
    position: integer().notNull(),
    name: text().notNull(),
    description: text(),
    status: text({ enum: STEP_STATUSES }).notNull().default('Pending'),
    notes: text(),
    updated_by: text(),
    ...timestamps(),
  },
  (t) => [
    index('incident_steps_org_incident_idx').on(t.organization_id, t.incident_id, t.position),
    incidentFk('incident_steps_incident_fk', t as never),
    tenantPolicy('incident_steps'),
  ],
);

/** Computed costs per incident and cost type (the response cost is recomputed from activity). */
export const incidentCosts = pgTable(
  'incident_costs',
  {
    id: id(),
    organization_id: org(),
    incident_id: integer().notNull(),
    incident_cost_type_id: integer(),
    kind: text().notNull().default('response'),
    amount: numeric({ precision: 14, scale: 2, mode: 'number' }).notNull().default(0),
    details: jsonb().$type<Record<string, unknown>>(),
    updated_at: ts().notNull().defaultNow(),
  },
  (t) => [
    unique('incident_costs_org_incident_kind_unique').on(t.organization_id, t.incident_id, t.kind),
    incidentFk('incident_costs_incident_fk', t as never),
    tenantFk('incident_costs_cost_type_fk', t.organization_id, t.incident_cost_type_id, incidentCostTypes),
    tenantPolicy('incident_costs'),
  ],
);
