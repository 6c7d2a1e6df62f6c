import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { bestPractices, definitions, documents, terms, weblinks } from '../db/schema/index.js';
import { evergreenFields, fieldsOf, idList, outer, projectField } from './common.js';
import { invalid } from '../errors.js';
import { defineResource, type RequestContext, type ResourceDefinition } from './define.js';
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

/**
 * Hooks that check template fields name documents of the right template type, e.g. an incident
 * type's review template must be an incident review template. (Existence is the reference check's.)
 */
export function templateChecks(fields: Record<string, string>): NonNullable<ResourceDefinition['hooks']> {
  const check = async (ctx: RequestContext, data: Record<string, unknown>) => {
    for (const [field, type] of Object.entries(fields)) {
      const id = data[field];
      if (id === undefined || id === null) continue;
      const [doc] = await ctx.tx.select({ type: documents.resource_type }).from(documents).where(and(eq(documents.id, id as number), eq(documents.organization_id, ctx.orgId)));
      if (doc && doc.type !== type) throw invalid(`Document '${String(id)}' is not a ${type} but ${doc.type ?? 'an untyped document'}.`, ['body', field], 'template_type');
    }
    return data;
  };
  return { beforeCreate: check, beforeUpdate: (ctx, _id, data) => check(ctx, data) };
}
