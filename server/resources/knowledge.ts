import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { bestPractices, definitions, documents, terms, weblinks } from '../db/schema/index.js';
import { evergreenFields, fieldsOf, idList, outer, projectField } from './common.js';
import { defineResource } from './define.js';
import { count, flag, requiredText, text, url } from './fields.js';
import { searchFilterResource } from './notifications.js';
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
  references: { project_id: () => projectResource, filters: () => searchFilterResource },
});

export const termResource = defineResource({
  model: 'Term',
  label: 'Term',
  path: '/terms',
  table: terms,
  create: z.strictObject({ text: requiredText(500), discoverable: flag().optional(), count: count().optional(), ...projectField }),
  pageSize: 10,
  sort: [['text', 'asc']],
  search: ['text'],
  fields: fieldsOf(terms),
  // The definitions that name this term (they hold the link).
  computed: () => ({
    definitions: sql`(select coalesce(jsonb_agg(d.id order by d.id), '[]'::jsonb) from ${definitions} d where d.organization_id = ${outer(terms, 'organization_id')} and d.terms @> jsonb_build_array(${outer(terms, 'id')}))`,
  }),
  references: { project_id: () => projectResource },
});

export const definitionResource = defineResource({
  model: 'Definition',
  label: 'Definition',
  path: '/definitions',
  table: definitions,
  create: z.strictObject({ text: requiredText(10_000), terms: idList().optional(), ...projectField }),
  pageSize: 10,
  sort: [['text', 'asc']],
  search: ['text'],
  fields: fieldsOf(definitions),
  references: { project_id: () => projectResource, terms: () => termResource },
});

export const bestPracticeResource = defineResource({
  model: 'BestPractice',
  label: 'Best Practice',
  path: '/bestpractices',
  table: bestPractices,
  create: z.strictObject({ name: requiredText(200), description: text(10_000), url: url(), count: count().optional(), ...projectField }),
  pageSize: 10,
  sort: [['count', 'desc']],
  search: ['name', 'description'],
  fields: fieldsOf(bestPractices),
  references: { project_id: () => projectResource },
});

export const weblinkResource = defineResource({
  model: 'Weblink',
  label: 'Link',
  path: '/weblinks',
  table: weblinks,
  create: z.strictObject({ url: z.url('Must be a URL').max(2000), title: text(500), description: text(5000), count: count().optional(), ...projectField }),
  pageSize: 10,
  sort: [['count', 'desc']],
  search: ['title', 'url', 'description'],
  fields: fieldsOf(weblinks),
  references: { project_id: () => projectResource },
});
