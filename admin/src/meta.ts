import { api } from './providers/http.js';
import { documentAliases } from './resources/catalog/documents.js';

/** One entry of GET /meta/resources: everything a generic screen needs (see server/routes/meta.ts). */
export interface JsonSchema {
  type?: string | string[];
  anyOf?: JsonSchema[];
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
}

export interface ResourceMeta {
  name: string;
  path: string;
  model: string;
  label: string;
  pageSize: number;
  sort: [string, 'asc' | 'desc'][];
  search: string[];
  filterFields: string[];
  columns: { name: string; type: string; nullable: boolean }[];
  references: Record<string, string>;
  immutable: string[];
  writeRole: 'Owner' | 'Manager' | 'Admin' | 'Member';
  routes: Record<'list' | 'get' | 'create' | 'update' | 'delete', boolean>;
  create: JsonSchema;
  update: JsonSchema;
  /** A filter every list request carries (client-side aliases such as runbooks, see catalog/documents.ts). */
  permanentFilter?: Record<string, unknown>;
}

let cache: Promise<ResourceMeta[]> | null = null;
const byName = new Map<string, ResourceMeta>();

export function loadMeta(): Promise<ResourceMeta[]> {
  if (cache) return cache;
  const loading = api<{ resources: ResourceMeta[] }>('/meta/resources').then(({ resources: served }) => {
    const resources = [...served, ...documentAliases(served)];
    for (const r of resources) byName.set(r.name, r);
    return resources;
  });
  loading.catch(() => (cache = null));
  cache = loading;
  return loading;
}

export const metaOf = (resource: string) => byName.get(resource);

/** Field kinds the generic screens draw. */
export type FieldKind = 'text' | 'longtext' | 'email' | 'url' | 'color' | 'number' | 'boolean' | 'date' | 'enum' | 'reference' | 'strings' | 'json';

export interface FieldSpec {
  name: string;
  kind: FieldKind;
  required: boolean;
  nullable: boolean;
  choices?: string[];
  reference?: string;
  /** A list of ids (e.g. a definition's terms), not one. */
  many?: boolean;
  min?: number;
  max?: number;
  maxLength?: number;
}

/** `{anyOf: [X, {type: null}]}` and `{type: [X, 'null']}` → X plus nullable. */
function unwrap(schema: JsonSchema): { schema: JsonSchema; nullable: boolean } {
  if (schema.anyOf) {
    const rest = schema.anyOf.filter((s) => s.type !== 'null');
    return { schema: rest[0] ?? {}, nullable: rest.length < schema.anyOf.length };
  }
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== 'null');
    return { schema: { ...schema, type: types[0] }, nullable: types.length < schema.type.length };
  }
  return { schema, nullable: false };
}

const LONG_TEXT = /(^|_)(description|text|notes|details|message|resolution|feedback|expression|schema|sample_log|documentation|conditions|actions|needs|overview|next_steps|current_status)$/;

export function fieldSpecs(meta: ResourceMeta, body: JsonSchema): FieldSpec[] {
  const required = new Set(body.required ?? []);
  return Object.entries(body.properties ?? {}).map(([name, raw]) => {
    const { schema, nullable } = unwrap(raw);
    const base = { name, required: required.has(name), nullable, min: schema.minimum, max: schema.maximum, maxLength: schema.maxLength };
    const reference = meta.references[name];
    if (reference) return { ...base, kind: 'reference', reference, many: schema.type === 'array' };
    if (schema.enum) return { ...base, kind: 'enum', choices: schema.enum.map(String) };
    switch (schema.type) {
      case 'boolean':
        return { ...base, kind: 'boolean' };
      case 'integer':
      case 'number':
        return { ...base, kind: 'number' };
      case 'array':
        return { ...base, kind: unwrap(schema.items ?? {}).schema.type === 'string' ? 'strings' : 'json' };
      case 'object':
        return { ...base, kind: 'json' };
      case 'string':
        if (schema.format === 'date-time' || schema.format === 'date') return { ...base, kind: 'date' };
        if (schema.format === 'uri') return { ...base, kind: 'url' };
        if (schema.format === 'email' || /(^|_)email$/.test(name)) return { ...base, kind: 'email' };
        if (name === 'color' || name.endsWith('_color')) return { ...base, kind: 'color' };
        if (LONG_TEXT.test(name) || (schema.maxLength ?? 0) > 1000) return { ...base, kind: 'longtext' };
        return { ...base, kind: 'text' };
      default: {
        // No JSON schema type (e.g. a coerced date): go by the column behind it.
        const column = meta.columns.find((c) => c.name === name)?.type;
        if (column === 'date') return { ...base, kind: 'date' };
        if (column === 'number') return { ...base, kind: 'number' };
        if (column === 'boolean') return { ...base, kind: 'boolean' };
        if (column === 'json_array' || column === 'array') return { ...base, kind: 'json' };
        return { ...base, kind: 'text' };
      }
    }
  });
}

/** `tag_type_id` → "Tag type", `owner_email` → "Owner email". */
export function humanize(name: string): string {
  const words = name.replace(/_id$/, '').replace(/[_./]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** "API Key" → "API Keys", "Case priority" → "Case priorities". */
export function plural(label: string): string {
  if (/[^aeiou]y$/i.test(label)) return `${label.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/i.test(label)) return `${label}es`;
  return `${label}s`;
}

/** How a record is named in references, titles and confirmations. */
export function representation(record: Record<string, unknown> | undefined): string {
  if (!record) return '';
  for (const key of ['name', 'title', 'email', 'text', 'key_prefix', 'description', 'commit_message', 'url']) {
    const value = record[key];
    if (typeof value === 'string' && value.trim()) return value;
  }
  return `#${String(record.id)}`;
}
