import { z } from 'zod';
import { documents } from '../db/schema/index.js';
import { evergreenFields, fieldsOf, idList, projectField } from './common.js';
import { defineResource } from './define.js';
import { requiredText, text, url } from './fields.js';
import { projectResource } from './projects.js';

const RUNBOOKS = ['incident', 'investigation', 'audit', 'security', 'sales', 'marketing', 'legal', 'it'].map((k) => `dispatch-${k}-runbook`);
const REFERENCES = [
  'dispatch-incident-reference-faq-document',
  'dispatch-conversation-reference-document',
  'dispatch-bao-reference-new-hire-document',
  'dispatch-bao-reference-product-release-document',
  'dispatch-bao-reference-performance-improvement-plan-document',
  'dispatch-bao-reference-internal-audit-document',
];
/** The eight template types: case, incident, executive report, review, tracking, new hire, product release, PIP. */
const TEMPLATES = ['case', 'incident', 'executive-report', 'incident-review', 'incident-tracking', 'new-hire', 'product-release', 'performance-improvement-plan'].map(
  (k) => `dispatch-${k}-document-template`,
);
export const DOCUMENT_TYPES = { runbooks: RUNBOOKS, references: REFERENCES, templates: TEMPLATES } as const;

export const documentResource = defineResource({
  model: 'Document',
  label: 'Document',
  path: '/documents',
  table: documents,
  create: z.strictObject({
    name: requiredText(200),
    resource_type: z.enum([...RUNBOOKS, ...REFERENCES, ...TEMPLATES], { error: 'Unknown document type' }).nullish(),
    resource_id: text(500),
    weblink: url(),
    description: text(5000),
    filters: idList().optional(),
    ...evergreenFields,
    ...projectField,
  }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(documents),
  references: { project_id: () => projectResource },
});
