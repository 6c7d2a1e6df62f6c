import { z } from 'zod';
import { casePriorities, caseSeverities, caseTypes } from '../db/schema/index.js';
import { chainHooks, fieldsOf, hours, oneDefault, rankFields } from './common.js';
import { defineResource } from './define.js';
import { flag, ref, text } from './fields.js';
import { incidentTypeResource, typeCommon } from './incident-settings.js';
import { documentResource, templateChecks } from './knowledge.js';
import { serviceResource } from './people.js';
import { projectResource } from './projects.js';

export const casePriorityResource = defineResource({
  model: 'CasePriority',
  label: 'Case priority',
  path: '/case_priorities',
  table: casePriorities,
  create: z.strictObject({ ...rankFields, page_assignee: flag().optional(), sla: hours().nullish() }),
  pageSize: 10,
  sort: [['view_order', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(casePriorities),
  references: { project_id: () => projectResource },
  hooks: oneDefault(casePriorities),
});

export const caseSeverityResource = defineResource({
  model: 'CaseSeverity',
  label: 'Case severity',
  path: '/case_severities',
  table: caseSeverities,
  create: z.strictObject(rankFields),
  pageSize: 10,
  sort: [['view_order', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(caseSeverities),
  references: { project_id: () => projectResource },
  hooks: oneDefault(caseSeverities),
});

export const caseTypeResource = defineResource({
  model: 'CaseType',
  label: 'Case type',
  path: '/case_types',
  table: caseTypes,
  create: z.strictObject({
    ...typeCommon,
    case_template_document_id: ref().nullish(),
    incident_type_id: ref().nullish(),
    oncall_service_id: ref().nullish(),
    conversation_target: text(200),
  }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description', 'slug'],
  fields: fieldsOf(caseTypes),
  references: {
    project_id: () => projectResource,
    case_template_document_id: () => documentResource,
    incident_type_id: () => incidentTypeResource,
    oncall_service_id: () => serviceResource,
  },
  hooks: chainHooks(oneDefault(caseTypes), templateChecks({ case_template_document_id: 'dispatch-case-document-template' })),
});
