import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { bodyOf } from '../engine/body.js';
import {
  incidentCostTypes,
  incidentPriorities,
  incidentRolePolicies,
  incidentSeverities,
  incidentTypes,
  POLICY_ROLES,
  TYPE_VISIBILITIES,
} from './settings-tables.js';
import { chainHooks, datetime, fieldsOf, hours, json, oneDefault, order, outer, rankFields } from '../engine/definition-kit.js';
import { defineResource, type FieldMeta } from '../engine/define.js';
import { requiredText, text } from '../engine/fields.js';
import { templateChecks } from '../knowledge/resources.js';

export const incidentSeverityResource = defineResource({
  model: 'IncidentSeverity',
  label: 'Incident severity',
  path: '/incident_severities',
  table: incidentSeverities,
  create: bodyOf(incidentSeverities, rankFields),
  pageSize: 10,
  sort: [['view_order', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(incidentSeverities),
  references: { project_id: 'Project' },
  hooks: oneDefault(incidentSeverities),
});

export const incidentPriorityResource = defineResource({
  model: 'IncidentPriority',
  label: 'Incident priority',
  path: '/incident_priorities',
  table: incidentPriorities,
  create: bodyOf(incidentPriorities, { ...rankFields, tactical_report_reminder: hours().optional(), executive_report_reminder: hours().optional() }),
  pageSize: 10,
  sort: [['view_order', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(incidentPriorities),
  references: { project_id: 'Project' },
  fieldMeta: {
    tactical_report_reminder: { label: 'Tactical report reminder (hours)' },
    executive_report_reminder: { label: 'Executive report reminder (hours)' },
    enable_opsgpt_incident_copilot: { label: 'Enable the AI incident copilot' },
    enable_opsgpt_task_copilot: { label: 'Enable the AI task copilot' },
  },
  hooks: oneDefault(incidentPriorities),
});

const slug = () =>
  z
    .string()
    .trim()
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Use lower-case letters, digits and dashes')
    .max(100)
    .nullish();
/** A custom field an incident or case of this type carries: shown as an extra input on its form. */
const customField = z.strictObject({
  name: requiredText(100),
  type: z.enum(['text', 'number', 'boolean', 'date', 'select']).default('text'),
  required: z.boolean().default(false),
  options: z.array(z.string().max(200)).max(100).optional(),
  default: z.unknown().optional(),
});
const checklistItem = z.strictObject({ text: requiredText(500), required: z.boolean().default(false) });

/** How the fields incident and case types share read in the admin app. */
export const typeMeta = {
  slug: { help: 'A short name for links and scripts: lower-case letters, digits and dashes.' },
  plugin_metadata: { form: false },
  custom_fields: {
    help: 'Extra fields each record of this type asks for.',
    items: { type: { label: 'Kind' }, options: { label: 'Choices (for a select)' }, default: { label: 'Default value' } },
  },
  storycurve_logging_enabled: { label: 'Record a story curve of the timeline', list: false },
  exclude_from_metrics: { label: 'Leave out of dashboards', list: false },
} satisfies Record<string, FieldMeta>;

export const typeCommon = {
  name: requiredText(100),
  slug: slug(),
  description: text(5000),
  visibility: z.enum(TYPE_VISIBILITIES, { error: 'Visibility must be Open or Restricted' }).optional(),
  plugin_metadata: json().optional(),
  custom_fields: z.array(customField).max(100).optional(),
};

export const incidentTypeResource = defineResource({
  model: 'IncidentType',
  label: 'Incident type',
  path: '/incident_types',
  table: incidentTypes,
  create: bodyOf(incidentTypes, {
    ...typeCommon,
    custom_checklist: z.array(checklistItem).max(200).optional(),
    postmortem_custom_fields: z.array(customField).max(100).optional(),
    repo_urls: z.array(z.url('Must be a URL').max(2000)).max(100).optional(),
  }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description', 'slug'],
  fields: fieldsOf(incidentTypes),
  fieldMeta: {
    ...typeMeta,
    custom_checklist: { label: 'Checklist', help: 'Steps every incident of this type starts with.', items: { text: { kind: 'text' } } },
    postmortem_custom_fields: { label: 'Postmortem fields', help: 'Extra fields its postmortem asks for.', items: typeMeta.custom_fields.items },
    repo_urls: { label: 'Repository links', help: 'Press Enter after each link.' },
    incident_template_document_id: { label: 'Incident document template' },
    tracking_template_document_id: { label: 'Tracking document template' },
    review_template_document_id: { label: 'Postmortem document template' },
    executive_template_document_id: { label: 'Executive report template' },
  },
  references: {
    project_id: 'Project',
    incident_template_document_id: 'Document',
    tracking_template_document_id: 'Document',
    review_template_document_id: 'Document',
    executive_template_document_id: 'Document',
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
  create: bodyOf(incidentCostTypes, {
    name: requiredText(100),
    description: text(2000),
    category: text(100),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
  fieldMeta: { details: { help: 'Free-form details as a JSON object, e.g. {"hourly_rate": 120}.' } },
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description', 'category'],
  fields: fieldsOf(incidentCostTypes),
  references: { project_id: 'Project' },
  hooks: oneDefault(incidentCostTypes),
});

export const incidentRoleResource = defineResource({
  model: 'IncidentRole',
  label: 'Incident role',
  path: '/incident_roles',
  table: incidentRolePolicies,
  create: bodyOf(incidentRolePolicies, {
    role: z.enum(POLICY_ROLES, { error: `Role must be one of ${POLICY_ROLES.join(', ')}` }),
    order: order().optional(),
    /** Set when the role is given up: the entry stays, as Inactive. */
    renounced_at: datetime(),
  }),
  pageSize: 10,
  sort: [
    ['role', 'asc'],
    ['order', 'asc'],
  ],
  search: ['role'],
  fields: [...fieldsOf(incidentRolePolicies), 'status'],
  recordRepresentation: 'role',
  fieldMeta: { individual_id: { label: 'Person' }, engage_next_oncall: { label: 'Page the next on-call' }, renounced_at: { label: 'Given up at' } },
  // Spec §6: an entry without renounced_at is active, otherwise 'Inactive'.
  computed: () => ({ status: sql<string>`case when ${outer(incidentRolePolicies, 'renounced_at')} is null then 'Active' else 'Inactive' end` }),
  references: {
    project_id: 'Project',
    incident_type_id: 'IncidentType',
    incident_priority_id: 'IncidentPriority',
    service_id: 'Service',
    individual_id: 'IndividualContact',
  },
});
