import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { bodyOf } from '../engine/body.js';
import { bestPractices, definitions, documents, terms, weblinks } from './tables.js';
import { evergreenFields, evergreenMeta, fieldsOf, idList, linkedFrom } from '../engine/definition-kit.js';
import { invalid } from '../core/errors.js';
import { defineResource, type ResourceDefinition } from '../engine/define.js';
import { type RequestContext } from '../core/context.js';
import { count, requiredText, text, url } from '../engine/fields.js';

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
const TEMPLATES = [
  'case',
  'incident',
  'executive-report',
  'incident-review',
  'incident-tracking',
  'new-hire',
  'product-release',
  'performance-improvement-plan',
].map((k) => `dispatch-${k}-document-template`);
/** What the postmortem job writes: an incident's review, a document of its own. */
const REVIEWS = ['dispatch-incident-review-document'];
export const DOCUMENT_TYPES = { runbooks: RUNBOOKS, references: REFERENCES, templates: TEMPLATES } as const;

/** Each document type in people's words: "Incident runbook", "Incident review template", "New hire reference". */
const TYPE_NAMES: Record<string, string> = Object.fromEntries(
  [...RUNBOOKS, ...REFERENCES, ...TEMPLATES].map((t) => {
    const words = t
      .replace(/^dispatch-/, '')
      .replace(/-document/, '')
      .replace(/^(bao-)?reference-|-reference$/, '')
      .replace(/^it-/, 'IT-')
      .replace(/-reference-faq$/, '-FAQ')
      .split('-');
    const kind = t.endsWith('-runbook') || t.endsWith('-template') ? '' : t.includes('faq') ? '' : ' reference';
    const text = words.join(' ') + kind;
    return [t, text.charAt(0).toUpperCase() + text.slice(1)];
  }),
);
TYPE_NAMES['dispatch-incident-review-document'] = 'Post-incident review';
export const documentTypeName = (type: string) => TYPE_NAMES[type] ?? type;

/** An edited review is the incident's too: its resource keeps the same text (by the link the postmortem job gave it). */
async function syncReview(ctx: RequestContext, id: number, data: Record<string, unknown>) {
  if (typeof data.description !== 'string') return;
  await ctx.tx.execute(
    sql`update incident_resources set content = ${data.description} where organization_id = ${ctx.orgId} and resource_type = ${REVIEWS[0]} and weblink = ${`/documents/${id}`}`,
  );
}

export const documentResource = defineResource({
  model: 'Document',
  label: 'Document',
  path: '/documents',
  table: documents,
  create: bodyOf(documents, {
    name: requiredText(200),
    resource_type: z.enum([...RUNBOOKS, ...REFERENCES, ...TEMPLATES, ...REVIEWS], { error: 'Unknown document type' }).nullish(),
    resource_id: text(500),
    weblink: url(),
    description: text(5000),
    filters: idList().optional(),
    ...evergreenFields,
  }).extend({ description: text(200_000) }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(documents),
  references: { project_id: 'Project', filters: 'SearchFilter' },
  fieldMeta: {
    resource_type: { label: 'Type', choices: TYPE_NAMES },
    resource_id: { label: 'ID in its system', help: "The document's id where it is kept (e.g. a Google Drive file id)." },
    weblink: { label: 'Link' },
    filters: { label: 'Search filters', help: 'Incidents and cases matching these filters get this document.' },
    ...evergreenMeta,
  },
  hooks: {
    beforeUpdate: async (ctx, id, data) => (await syncReview(ctx, id, data), data),
  },
});

export const termResource = defineResource({
  model: 'Term',
  label: 'Term',
  path: '/terms',
  table: terms,
  create: bodyOf(terms, { text: requiredText(500), count: count().optional() }),
  pageSize: 10,
  sort: [['text', 'asc']],
  search: ['text'],
  fields: fieldsOf(terms),
  // The definitions that name this term (they hold the link), as the spec's list of `{id, text}`.
  computed: () => ({
    definitions: linkedFrom(terms, definitions, 'terms', 'text'),
  }),
  answerOnly: ['definitions'],
  references: { project_id: 'Project' },
});

export const definitionResource = defineResource({
  model: 'Definition',
  label: 'Definition',
  path: '/definitions',
  table: definitions,
  create: bodyOf(definitions, { text: requiredText(10_000), terms: idList().optional() }),
  pageSize: 10,
  sort: [['text', 'asc']],
  search: ['text'],
  fields: fieldsOf(definitions),
  references: { project_id: 'Project', terms: 'Term' },
});

export const bestPracticeResource = defineResource({
  model: 'BestPractice',
  label: 'Best Practice',
  path: '/bestpractices',
  table: bestPractices,
  create: bodyOf(bestPractices, { name: requiredText(200), description: text(10_000), url: url(), count: count().optional() }),
  pageSize: 10,
  sort: [['count', 'desc']],
  search: ['name', 'description'],
  fields: fieldsOf(bestPractices),
  references: { project_id: 'Project' },
});

export const weblinkResource = defineResource({
  model: 'Weblink',
  label: 'Link',
  path: '/weblinks',
  table: weblinks,
  create: bodyOf(weblinks, { url: z.url('Must be a URL').max(2000), title: text(500), description: text(5000), count: count().optional() }),
  pageSize: 10,
  sort: [['count', 'desc']],
  search: ['title', 'url', 'description'],
  fields: fieldsOf(weblinks),
  references: { project_id: 'Project' },
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
      const [doc] = await ctx.tx
        .select({ type: documents.resource_type })
        .from(documents)
        .where(and(eq(documents.id, id as number), eq(documents.organization_id, ctx.orgId)));
      if (doc && doc.type !== type)
        throw invalid(`Document '${String(id)}' is not a ${type} but ${doc.type ?? 'an untyped document'}.`, ['body', field], 'template_type');
    }
    return data;
  };
  return { beforeCreate: check, beforeUpdate: (ctx, _id, data) => check(ctx, data) };
}
