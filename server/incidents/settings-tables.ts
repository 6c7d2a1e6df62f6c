import { sql } from 'drizzle-orm';
import { boolean, check, integer, jsonb, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { documents } from '../knowledge/tables.js';
import { tenantExtras, tenantFk } from '../core/db/mixins.js';
import { individuals, services } from '../people/tables.js';

const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });
/** Same values as incidents.ts (not imported from there: it imports this file). */
export const TYPE_VISIBILITIES = ['Open', 'Restricted'] as const;
export const visibilityCheck = (table: string, column: unknown) => check(`${table}_visibility_check`, sql`${column} in ('Open', 'Restricted')`);

/** name, description, color, enabled, default, view_order: what every priority and severity shares. */
export const rankColumns = () => ({
  name: text().notNull(),
  description: text(),
  color: text(),
  enabled: boolean().notNull().default(true),
  default: boolean().notNull().default(false),
  view_order: integer().notNull().default(1),
});

export const incidentSeverities = pgTable(
  'incident_severities',
  { id: id(), organization_id: org(), project_id: integer(), ...rankColumns(), ...timestamps() },
  (t) => [
    ...tenantExtras('incident_severities', t, [t.view_order]),
    unique('incident_severities_org_project_name_unique').on(t.organization_id, t.project_id, t.name).nullsNotDistinct(),
  ],
);

export const incidentPriorities = pgTable(
  'incident_priorities',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    ...rankColumns(),
    page_commander: boolean().notNull().default(false),
    page_liaison: boolean().notNull().default(false),
    page_scribe: boolean().notNull().default(false),
    /** Hours between report reminders. */
    tactical_report_reminder: integer().notNull().default(24),
    executive_report_reminder: integer().notNull().default(24),
    create_incident_postmortem: boolean().notNull().default(false),
    create_ai_summaries_in_background: boolean().notNull().default(false),
    require_manual_confirmation_for_incident_actions: boolean().notNull().default(false),
    enable_opsgpt_incident_copilot: boolean().notNull().default(false),
    enable_opsgpt_task_copilot: boolean().notNull().default(false),
    auto_add_participants_based_on_ai_generated_tags: boolean().notNull().default(false),
    auto_add_follow_ups_from_recording_transcript: boolean().notNull().default(false),
    auto_add_tasks_from_recording_transcript: boolean().notNull().default(false),
    auto_post_to_status_page: boolean().notNull().default(false),
    auto_schedule_postmortem_meeting: boolean().notNull().default(false),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('incident_priorities', t, [t.view_order]),
    unique('incident_priorities_org_project_name_unique').on(t.organization_id, t.project_id, t.name).nullsNotDistinct(),
  ],
);

export const incidentTypes = pgTable(
  'incident_types',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    name: text().notNull(),
    slug: text(),
    description: text(),
    visibility: text({ enum: TYPE_VISIBILITIES }).notNull().default('Open'),
    incident_template_document_id: integer(),
    tracking_template_document_id: integer(),
    review_template_document_id: integer(),
    executive_template_document_id: integer(),
    plugin_metadata: jsonb().$type<unknown[]>().notNull().default([]),
    custom_fields: jsonb().$type<unknown[]>().notNull().default([]),
    custom_checklist: jsonb().$type<unknown[]>().notNull().default([]),
    postmortem_custom_fields: jsonb().$type<unknown[]>().notNull().default([]),
    repo_urls: jsonb().$type<string[]>().notNull().default([]),
    storycurve_logging_enabled: boolean().notNull().default(false),
    exclude_from_metrics: boolean().notNull().default(false),
    enabled: boolean().notNull().default(true),
    default: boolean().notNull().default(false),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('incident_types', t, [t.name]),
    visibilityCheck('incident_types', t.visibility),
    unique('incident_types_org_project_name_unique').on(t.organization_id, t.project_id, t.name).nullsNotDistinct(),
    tenantFk('incident_types_incident_template_fk', t.organization_id, t.incident_template_document_id, documents),
    tenantFk('incident_types_tracking_template_fk', t.organization_id, t.tracking_template_document_id, documents),
    tenantFk('incident_types_review_template_fk', t.organization_id, t.review_template_document_id, documents),
    tenantFk('incident_types_executive_template_fk', t.organization_id, t.executive_template_document_id, documents),
  ],
);

export const incidentCostTypes = pgTable(
  'incident_cost_types',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    name: text().notNull(),
    description: text(),
    category: text(),
    details: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    default: boolean().notNull().default(false),
    editable: boolean().notNull().default(true),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('incident_cost_types', t, [t.name]),
    unique('incident_cost_types_org_project_name_unique').on(t.organization_id, t.project_id, t.name).nullsNotDistinct(),
  ],
);

/** The roles of incidents.ts's incident_roles entries. */
export const POLICY_ROLES = ['reporter', 'commander', 'liaison', 'scribe', 'participant', 'observer'] as const;

/**
 * Who fills an incident role: a policy names the role, the incident type and priority it applies to,
 * and the service (on-call) or individual to engage. Per-incident role entries live with incidents.
 */
export const incidentRolePolicies = pgTable(
  'incident_role_policies',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    role: text({ enum: POLICY_ROLES }).notNull(),
    enabled: boolean().notNull().default(true),
    order: integer().notNull().default(1),
    incident_type_id: integer(),
    incident_priority_id: integer(),
    service_id: integer(),
    individual_id: integer(),
    engage_next_oncall: boolean().notNull().default(false),
    /** When whoever held this standing role gave it up: the entry stays, shown as Inactive (spec §6). */
    renounced_at: timestamp({ withTimezone: true }),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('incident_role_policies', t, [t.role, t.order]),
    check('incident_role_policies_role_check', sql`${t.role} in ('reporter', 'commander', 'liaison', 'scribe', 'participant', 'observer')`),
    tenantFk('incident_role_policies_incident_type_fk', t.organization_id, t.incident_type_id, incidentTypes).onDelete('cascade'),
    tenantFk('incident_role_policies_incident_priority_fk', t.organization_id, t.incident_priority_id, incidentPriorities).onDelete('cascade'),
    tenantFk('incident_role_policies_service_fk', t.organization_id, t.service_id, services).onDelete('cascade'),
    tenantFk('incident_role_policies_individual_fk', t.organization_id, t.individual_id, individuals).onDelete('cascade'),
  ],
);
