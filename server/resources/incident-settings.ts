import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { incidentCostTypes, incidentPriorities, incidentRolePolicies, incidentSeverities, incidentTypes, POLICY_ROLES, TYPE_VISIBILITIES } from '../db/schema/index.js';
import { chainHooks, datetime, fieldsOf, hours, json, oneDefault, order, outer, projectField, rankFields } from './common.js';
import { defineResource } from './define.js';
import { flag, ref, requiredText, text } from './fields.js';
import { documentResource, templateChecks } from './knowledge.js';
import { individualResource, serviceResource } from './people.js';
import { projectResource } from './projects.js';

export const incidentSeverityResource = defineResource({
  model: 'IncidentSeverity',
  label: 'Incident severity',
  path: '/incident_severities',
  table: incidentSeverities,
  create: z.strictObject(rankFields),
  pageSize: 10,
  sort: [['view_order', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(incidentSeverities),
  references: { project_id: () => projectResource },
  hooks: oneDefault(incidentSeverities),
});

const priorityFlags = [
  'page_commander',
  'page_liaison',
  'page_scribe',
  'create_incident_postmortem',
  'create_ai_summaries_in_background',
  'require_manual_confirmation_for_incident_actions',
  'enable_opsgpt_incident_copilot',
  'enable_opsgpt_task_copilot',
  'auto_add_participants_based_on_ai_generated_tags',
  'auto_add_follow_ups_from_recording_transcript',
  'auto_add_tasks_from_recording_transcript',
  'auto_post_to_status_page',
  'auto_schedule_postmortem_meeting',
] as const;

export const incidentPriorityResource = defineResource({
  model: 'IncidentPriority',
  label: 'Incident priority',
  path: '/incident_priorities',
  table: incidentPriorities,
  create: z.strictObject({
    ...rankFields,
    tactical_report_reminder: hours().optional(),
    executive_report_reminder: hours().optional(),
    ...Object.fromEntries(priorityFlags.map((f) => [f, flag().optional()])),
  }),
  pageSize: 10,
  sort: [['view_order', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(incidentPriorities),
  references: { project_id: () => projectResource },
  hooks: oneDefault(incidentPriorities),
});

const slug = () => z.string().trim().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Use lower-case letters, digits and dashes').max(100).nullish();
/** A custom field an incident or case of this type carries: shown as an extra input on its form. */
const customField = z.strictObject({
  name: requiredText(100),
  type: z.enum(['text', 'number', 'boolean', 'date', 'select']).default('text'),
  required: z.boolean().default(false),
  options: z.array(z.string().max(200)).max(100).optional(),
  default: z.unknown().optional(),
});
const checklistItem = z.strictObject({ text: requiredText(500), required: z.boolean().default(false) });

export const typeCommon = {
  name: requiredText(100),
  slug: slug(),
  description: text(5000),
  visibility: z.enum(TYPE_VISIBILITIES, { error: 'Visibility must be Open or Restricted' }).optional(),
  plugin_metadata: json().optional(),
  custom_fields: z.array(customField).max(100).optional(),
  storycurve_logging_enabled: flag().optional(),
  exclude_from_metrics: flag().optional(),
  enabled: flag().optional(),
  default: flag().optional(),
  ...projectField,
};

export const incidentTypeResource = defineResource({
  model: 'IncidentType',
  label: 'Incident type',
  path: '/incident_types',
  table: incidentTypes,
  create: z.strictObject({
    ...typeCommon,
    incident_template_document_id: ref().nullish(),
    tracking_template_document_id: ref().nullish(),
    review_template_document_id: ref().nullish(),
    executive_template_document_id: ref().nullish(),
    custom_checklist: z.array(checklistItem).max(200).optional(),
    postmortem_custom_fields: z.array(customField).max(100).optional(),
    repo_urls: z.array(z.url('Must be a URL').max(2000)).max(100).optional(),
  }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description', 'slug'],
  fields: fieldsOf(incidentTypes),
  references: {
    project_id: () => projectResource,
    incident_template_document_id: () => documentResource,
    tracking_template_document_id: () => documentResource,
    review_template_document_id: () => documentResource,
    executive_template_document_id: () => documentResource,
  },
  hooks: chainHooks(
    oneDefault(incidentTypes),
    templateChecks({
      incident_template_document_id: 'dispatch-incident-document-template',
      tracking_template_document_id: 'dispatch-incident-tracking-document-template',
      review_template_document_id: 'dispatch-incident-review-document-template',
      executive_template_document_id: 'dispatch-executive-report-document-template',
    }),
  ),
});

export const incidentCostTypeResource = defineResource({
  model: 'IncidentCostType',
  label: 'Incident cost type',
  path: '/incident_cost_types',
  table: incidentCostTypes,
  create: z.strictObject({
    name: requiredText(100),
    description: text(2000),
    category: text(100),
    details: z.record(z.string(), z.unknown()).optional(),
    default: flag().optional(),
    editable: flag().optional(),
    ...projectField,
  }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description', 'category'],
  fields: fieldsOf(incidentCostTypes),
  references: { project_id: () => projectResource },
  hooks: oneDefault(incidentCostTypes),
});

export const incidentRoleResource = defineResource({
  model: 'IncidentRole',
  label: 'Incident role',
  path: '/incident_roles',
  table: incidentRolePolicies,
  create: z.strictObject({
    role: z.enum(POLICY_ROLES, { error: `Role must be one of ${POLICY_ROLES.join(', ')}` }),
    enabled: flag().optional(),
    order: order().optional(),
    incident_type_id: ref().nullish(),
    incident_priority_id: ref().nullish(),
    service_id: ref().nullish(),
    individual_id: ref().nullish(),
    engage_next_oncall: flag().optional(),
    /** Set when the role is given up: the entry stays, as Inactive. */
    renounced_at: datetime(),
    ...projectField,
  }),
  pageSize: 10,
  sort: [
    ['role', 'asc'],
    ['order', 'asc'],
  ],
  search: ['role'],
  fields: [...fieldsOf(incidentRolePolicies), 'status'],
  // Spec §6: an entry without renounced_at is active, otherwise 'Inactive'.
  computed: () => ({ status: sql<string>`case when ${outer(incidentRolePolicies, 'renounced_at')} is null then 'Active' else 'Inactive' end` }),
  references: {
    project_id: () => projectResource,
    incident_type_id: () => incidentTypeResource,
    incident_priority_id: () => incidentPriorityResource,
    service_id: () => serviceResource,
    individual_id: () => individualResource,
  },
});
