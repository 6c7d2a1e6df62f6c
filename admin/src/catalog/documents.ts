import type { JsonSchema, ResourceMeta } from '../core/meta-types.js';

/**
 * Documents are one server resource whose resource_type says what each is. The settings pane shows
 * runbooks, templates and references as entries of their own (spec §2 Settings): each is the
 * documents metadata under another name, its list pre-filtered and its type choices limited.
 */
const KINDS = [
  { name: 'runbooks', label: 'Runbook', menuLabel: 'Runbooks', match: (t: string) => t.endsWith('-runbook'), filter: { resource_type_ilike: '-runbook' } },
  {
    name: 'templates',
    label: 'Template',
    menuLabel: 'Templates',
    match: (t: string) => t.endsWith('-document-template'),
    filter: { resource_type_ilike: '-document-template' },
  },
  {
    name: 'references',
    label: 'Reference',
    menuLabel: 'References',
    match: (t: string) => t.includes('reference'),
    filter: { resource_type_ilike: 'reference' },
  },
] as const;

export const documentKinds: Record<string, string> = Object.fromEntries(KINDS.map((k) => [k.name, k.menuLabel]));

/** The same body schema with the resource_type enum cut down to one kind's types. */
function narrowed(body: JsonSchema, match: (t: string) => boolean): JsonSchema {
  const original = body.properties?.resource_type;
  if (!original) return body;
  const narrow = (s: JsonSchema): JsonSchema => (s.enum ? { ...s, enum: s.enum.filter((v) => match(String(v))) } : s);
  const resourceType = original.anyOf ? { ...original, anyOf: original.anyOf.map(narrow) } : narrow(original);
  // A runbook without a type would fall out of its own list: the type is required here.
  const required = [...new Set([...(body.required ?? []), 'resource_type'])];
  return { ...body, required, properties: { ...body.properties, resource_type: resourceType } };
}

export function documentAliases(metas: ResourceMeta[]): ResourceMeta[] {
  const documents = metas.find((m) => m.name === 'documents');
  if (!documents) return [];
  return KINDS.map((k) => ({
    ...documents,
    name: k.name,
    label: k.label,
    labelPlural: k.menuLabel,
    create: narrowed(documents.create, k.match),
    update: narrowed(documents.update, k.match),
    permanentFilter: k.filter,
  }));
}
