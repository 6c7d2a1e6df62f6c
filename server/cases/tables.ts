import { sql } from 'drizzle-orm';
import { foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique, check } from 'drizzle-orm/pg-core';
import { id, organizationId, tenantPolicy, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { inList, tenantFk } from '../core/db/mixins.js';
import { caseFk } from '../core/db/keys.js';
import { projects } from '../core/db/projects.js';
import { tags } from '../tags/tables.js';
import { incidents, VISIBILITIES } from '../incidents/tables.js';
import { casePriorities, caseSeverities, caseTypes } from './settings-tables.js';

/** Cases (OCOs): an alert or a report under triage, escalated to an incident or closed on its own. */

/** A record kept in another system (a case's ticket or storage folder), as Dispatch's resources are. */
export interface ExternalResource {
  resource_type?: string | null;
  resource_id?: string | null;
  weblink?: string | null;
}

const ts = () => timestamp({ withTimezone: true });
const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });

export const CASE_STATUSES = ['New', 'Triage', 'Escalated', 'Stable', 'Closed'] as const;
export const RESOLUTION_REASONS = [
  'Benign',
  'Contained',
  'Escalated',
  'False Positive',
  'Information Gathered',
  'Insufficient Information',
  'Mitigated',
  'Operational Error',
  'Policy Violation',
  'User Acknowledged',
] as const;

export const cases = pgTable(
  'cases',
  {
    id: id(),
    organization_id: org(),
    project_id: integer().notNull(),
    name: text().notNull(),
    title: text().notNull(),
    description: text(),
    resolution: text(),
    resolution_reason: text({ enum: RESOLUTION_REASONS }),
    status: text({ enum: CASE_STATUSES }).notNull().default('New'),
    visibility: text({ enum: VISIBILITIES }).notNull().default('Open'),
    case_type_id: integer(),
    case_priority_id: integer(),
    case_severity_id: integer(),
    assignee_email: text(),
    reporter_email: text(),
    reported_at: ts().notNull().defaultNow(),
    triage_at: ts(),
    escalated_at: ts(),
    stable_at: ts(),
    closed_at: ts(),
    /** The incident this case was escalated to (or linked with). */
    incident_id: integer(),
    conversation_id: integer(),
    custom_fields: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    /** The spec's `documents`: ids of the organization's documents the case works from (answered as {id, name}). */
    documents: jsonb().$type<number[]>().notNull().default([]),
    /** The spec's ticket and storage: where the case lives in a ticketing system and where its evidence is kept. */
    ticket: jsonb().$type<ExternalResource>(),
    storage: jsonb().$type<ExternalResource>(),
    storycurve_sketch_id: integer(),
    storycurve_url: text(),
    ...timestamps(),
  },
  (t) => [
    unique('cases_org_id_unique').on(t.organization_id, t.id),
    unique('cases_org_name_unique').on(t.organization_id, t.name),
    index('cases_org_reported_v2_idx').on(t.organization_id, t.reported_at.desc().nullsFirst(), t.id),
    index('cases_org_status_reported_v2_idx').on(t.organization_id, t.status, t.reported_at.desc().nullsFirst(), t.id),
    index('cases_org_incident_idx').on(t.organization_id, t.incident_id),
    check('cases_status_check', sql`${t.status} in (${inList(CASE_STATUSES)})`),
    check('cases_visibility_check', sql`${t.visibility} in (${inList(VISIBILITIES)})`),
    check('cases_resolution_reason_check', sql`${t.resolution_reason} is null or ${t.resolution_reason} in (${inList(RESOLUTION_REASONS)})`),
    foreignKey({ name: 'cases_project_fk', columns: [t.organization_id, t.project_id], foreignColumns: [projects.organization_id, projects.id] }).onDelete(
      'cascade',
    ),
    foreignKey({ name: 'cases_incident_fk', columns: [t.organization_id, t.incident_id], foreignColumns: [incidents.organization_id, incidents.id] }),
    tenantFk('cases_type_fk', t.organization_id, t.case_type_id, caseTypes),
    tenantFk('cases_priority_fk', t.organization_id, t.case_priority_id, casePriorities),
    tenantFk('cases_severity_fk', t.organization_id, t.case_severity_id, caseSeverities),
    tenantPolicy('cases'),
  ],
);

export const caseTags = pgTable(
  'case_tags',
  {
    organization_id: org(),
    case_id: integer().notNull(),
    tag_id: integer().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organization_id, t.case_id, t.tag_id] }),
    index('case_tags_org_tag_idx').on(t.organization_id, t.tag_id, t.case_id),
    caseFk('case_tags_case_fk', t as never),
    foreignKey({ name: 'case_tags_tag_fk', columns: [t.organization_id, t.tag_id], foreignColumns: [tags.organization_id, tags.id] }).onDelete('cascade'),
    tenantPolicy('case_tags'),
  ],
);

/** Who may see a Restricted case besides admins (assignee and reporter are always included). */
export const caseParticipants = pgTable(
  'case_participants',
  {
    organization_id: org(),
    case_id: integer().notNull(),
    email: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.organization_id, t.case_id, t.email] }), caseFk('case_participants_case_fk', t as never), tenantPolicy('case_participants')],
);
