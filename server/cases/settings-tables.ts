import { boolean, integer, jsonb, pgTable, text, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { incidentTypes, rankColumns, TYPE_VISIBILITIES, visibilityCheck } from '../incidents/settings-tables.js';
import { documents } from '../knowledge/tables.js';
import { tenantExtras, tenantFk } from '../core/db/mixins.js';
import { services } from '../people/tables.js';

const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });

export const casePriorities = pgTable(
  'case_priorities',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    ...rankColumns(),
    page_assignee: boolean().notNull().default(false),
    /** Hours within which a case of this priority should be triaged. */
    sla: integer(),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('case_priorities', t, [t.view_order]),
    unique('case_priorities_org_project_name_unique').on(t.organization_id, t.project_id, t.name).nullsNotDistinct(),
  ],
);

export const caseSeverities = pgTable(
  'case_severities',
  { id: id(), organization_id: org(), project_id: integer(), ...rankColumns(), ...timestamps() },
  (t) => [
    ...tenantExtras('case_severities', t, [t.view_order]),
    unique('case_severities_org_project_name_unique').on(t.organization_id, t.project_id, t.name).nullsNotDistinct(),
  ],
);

export const caseTypes = pgTable(
  'case_types',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    name: text().notNull(),
    slug: text(),
    description: text(),
    visibility: text({ enum: TYPE_VISIBILITIES }).notNull().default('Open'),
    case_template_document_id: integer(),
    incident_type_id: integer(),
    oncall_service_id: integer(),
    conversation_target: text(),
    /** Each case of this type gets a chat channel of its own (Slack), as an incident does. */
    dedicated_channel: boolean().notNull().default(false),
    plugin_metadata: jsonb().$type<unknown[]>().notNull().default([]),
    custom_fields: jsonb().$type<unknown[]>().notNull().default([]),
    storycurve_logging_enabled: boolean().notNull().default(false),
    exclude_from_metrics: boolean().notNull().default(false),
    enabled: boolean().notNull().default(true),
    default: boolean().notNull().default(false),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('case_types', t, [t.name]),
    visibilityCheck('case_types', t.visibility),
    unique('case_types_org_project_name_unique').on(t.organization_id, t.project_id, t.name).nullsNotDistinct(),
    tenantFk('case_types_template_fk', t.organization_id, t.case_template_document_id, documents),
    tenantFk('case_types_incident_type_fk', t.organization_id, t.incident_type_id, incidentTypes),
    tenantFk('case_types_oncall_service_fk', t.organization_id, t.oncall_service_id, services),
  ],
);
