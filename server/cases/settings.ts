import { bodyOf } from '../engine/body.js';
import { casePriorities, caseSeverities, caseTypes } from './settings-tables.js';
import { chainHooks, fieldsOf, hours, oneDefault, rankFields } from '../engine/definition-kit.js';
import { defineResource } from '../engine/define.js';
import { conversationTarget } from '../engine/fields.js';
import { typeCommon, typeMeta } from '../incidents/settings.js';
import { templateChecks } from '../knowledge/resources.js';

export const casePriorityResource = defineResource({
  model: 'CasePriority',
  label: 'Case priority',
  path: '/case_priorities',
  table: casePriorities,
  create: bodyOf(casePriorities, { ...rankFields, sla: hours().nullish() }),
  pageSize: 10,
  sort: [['view_order', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(casePriorities),
  references: { project_id: 'Project' },
  fieldMeta: { sla: { label: 'SLA (hours)' } },
  hooks: oneDefault(casePriorities),
});

export const caseSeverityResource = defineResource({
  model: 'CaseSeverity',
  label: 'Case severity',
  path: '/case_severities',
  table: caseSeverities,
  create: bodyOf(caseSeverities, rankFields),
  pageSize: 10,
  sort: [['view_order', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(caseSeverities),
  references: { project_id: 'Project' },
  hooks: oneDefault(caseSeverities),
});

export const caseTypeResource = defineResource({
  model: 'CaseType',
  label: 'Case type',
  path: '/case_types',
  table: caseTypes,
  create: bodyOf(caseTypes, { ...typeCommon, conversation_target: conversationTarget() }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description', 'slug'],
  fields: fieldsOf(caseTypes),
  fieldMeta: {
    ...typeMeta,
    case_template_document_id: { label: 'Case document template' },
    oncall_service_id: { label: 'On-call service' },
    dedicated_channel: {
      label: 'A chat channel for each case',
      help: 'The Slack app opens a channel per case of this type, as it does per incident.',
      list: false,
    },
  },
  references: {
    project_id: 'Project',
    case_template_document_id: 'Document',
    incident_type_id: 'IncidentType',
    oncall_service_id: 'Service',
  },
  hooks: chainHooks(oneDefault(caseTypes), templateChecks({ case_template_document_id: 'dispatch-case-document-template' })),
});
