import { getTableColumns } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import type { FieldKind, FieldMeta, ResourceDefinition } from './define.js';
import { columnType } from './filters.js';
import { findResource } from './registry.js';

/** A field as the admin app draws it: every entry filled, defaults from the column, overrides from the definition. */
export interface DescribedField {
  name: string;
  label: string;
  kind: FieldKind;
  /** Shown as a column of the list. */
  list: boolean;
  /** Drawn in the create and edit forms. */
  form: boolean;
  /** The model an id (or a list of ids) names, and that model's path. */
  reference?: string;
  resource?: string;
  help?: string;
  /** Enum values and the words shown for them. */
  choices?: { id: string; name: string }[];
  /** A reference picker's filter on its target's list. */
  referenceFilter?: Record<string, unknown>;
  /** The fields of one entry of a list of records (kind `list`). */
  items?: DescribedField[];
}

const ACRONYMS = new Set(['api', 'url', 'uri', 'id', 'sla', 'ttp', 'ai', 'okr', 'pir', 'faq', 'it', 'json', 'ip']);

/** `tag_type_id` → "Tag type", `repo_urls` → "Repo URLs": the default label of a field. */
export function humanize(name: string, isReference = true): string {
  const words = (isReference ? name.replace(/_id$/, '') : name)
    .replace(/_ids$/, 's')
    .split(/[_./\s-]+/)
    .filter(Boolean)
    .map((w) =>
      ACRONYMS.has(w.toLowerCase()) ? w.toUpperCase() : ACRONYMS.has(w.toLowerCase().replace(/s$/, '')) ? `${w.slice(0, -1).toUpperCase()}s` : w.toLowerCase(),
    );
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "Case priority" → "Case priorities", "API key" → "API keys". */
export function plural(label: string): string {
  if (/[^aeiou]y$/i.test(label)) return `${label.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/i.test(label)) return `${label}es`;
  return `${label}s`;
}

/** An enum value people read as it is ("Active"), or one made for machines ("dispatch-sales-runbook"). */
const choiceName = (value: string) => (/^[a-z0-9]+([-_][a-z0-9]+)*$/.test(value) ? humanize(value) : value);

const LONG_TEXT =
  /(^|_)(description|text|notes|details|message|resolution|feedback|documentation|conditions|actions|needs|overview|next_steps|current_status|schema|sample_log|issues|tasks_completed|pending_tasks|mentions|tools_and_access)$/;
const NOT_LISTED = new Set(['id', 'organization_id', 'updated_at', 'created_by']);

type Json = {
  type?: string | string[];
  anyOf?: Json[];
  enum?: unknown[];
  format?: string;
  maxLength?: number;
  items?: Json;
  properties?: Record<string, Json>;
};

function unwrap(schema: Json): Json {
  if (schema.anyOf) return schema.anyOf.find((s) => s.type !== 'null') ?? {};
  if (Array.isArray(schema.type)) return { ...schema, type: schema.type.find((t) => t !== 'null') };
  return schema;
}

/** The default kind of a field, from its body schema, its column and its name. */
function kindOf(name: string, body: Json | undefined, column: string | undefined, reference: string | undefined): FieldKind {
  const schema = body ? unwrap(body) : {};
  if (reference) return schema.type === 'array' || column === 'json_array' ? 'references' : 'reference';
  if (schema.enum) return 'enum';
  const type = (schema.type as string | undefined) ?? column;
  if (name === 'password') return 'password';
  if (type === 'boolean') return 'boolean';
  if (type === 'integer' || type === 'number') return 'number';
  if (type === 'array' || type === 'json_array') {
    const item = unwrap(schema.items ?? {});
    if (item.enum) return 'enums';
    if (item.type === 'string') return 'strings';
    return item.type === 'object' && item.properties ? 'list' : 'json';
  }
  if (type === 'object' || type === 'json') return 'json';
  if (schema.format === 'date-time' || schema.format === 'date' || column === 'date') return 'date';
  if (schema.format === 'email' || /(^|_)email$/.test(name)) return 'email';
  if (schema.format === 'uri' || /(^|_)(url|uri|weblink|link)$/.test(name)) return 'url';
  if (name === 'color' || name.endsWith('_color')) return 'color';
  if (LONG_TEXT.test(name) || (schema.maxLength ?? 0) > 1000) return 'longtext';
  return 'text';
}

function describe(name: string, body: Json | undefined, column: string | undefined, model: string | undefined, own: FieldMeta = {}): DescribedField {
  const kind = own.kind ?? kindOf(name, body, column, model);
  const schema = body ? unwrap(body) : {};
  const values = (schema.enum ?? (kind === 'enums' ? unwrap(schema.items ?? {}).enum : undefined))?.map(String);
  const field: DescribedField = {
    name,
    label: own.label ?? humanize(name, !!model),
    kind,
    // Long text stays out of lists, but a description is listed (cut short) as people scan by it.
    list:
      own.list ??
      (!NOT_LISTED.has(name) && (name === 'description' || !['longtext', 'json', 'list', 'markdown', 'password', 'references', 'strings'].includes(kind))),
    form: own.form ?? body !== undefined,
  };
  if (model) {
    field.reference = model;
    const target = findResource(model);
    if (target) field.resource = target.path.replace(/^\//, '');
    // A switched-off type, priority or severity is kept on old records but not offered for new ones.
    if (target && !own.referenceFilter && 'enabled' in getTableColumns(target.table)) field.referenceFilter = { enabled: true };
  }
  if (own.help) field.help = own.help;
  if (own.referenceFilter) field.referenceFilter = own.referenceFilter;
  if (values) field.choices = values.map((id) => ({ id, name: own.choices?.[id] ?? choiceName(id) }));
  // A free text field may still offer the usual values by their names (a service's on-call system).
  else if (own.choices) field.choices = Object.entries(own.choices).map(([id, name]) => ({ id, name }));
  if (kind === 'list') {
    const item = unwrap(schema.items ?? {});
    field.items = Object.entries(item.properties ?? {}).map(([n, s]) => describe(n, s, undefined, undefined, own.items?.[n]));
  }
  return field;
}

/**
 * Every field of a definition as the admin draws it: the create body's fields in order, then the
 * read-only columns and computed values. Defaults come from here alone; a definition's `fieldMeta`
 * overrides a label, a kind, the list flag, a help text or the words of enum values.
 */
export function describeFields(def: ResourceDefinition): DescribedField[] {
  const body = z.toJSONSchema(def.create, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, Json> };
  const hidden = new Set([...(def.hidden ?? []), 'organization_id', 'search']);
  const columns = Object.fromEntries(
    Object.entries(getTableColumns(def.table) as Record<string, PgColumn>)
      .filter(([name]) => !hidden.has(name))
      .map(([name, column]) => [name, columnType(column)]),
  );
  const own = def.fieldMeta ?? {};
  const names = [
    ...new Set([...Object.keys(body.properties ?? {}), ...Object.keys(columns), ...def.fields.filter((f) => !hidden.has(f)), ...Object.keys(own)]),
  ];
  const described = names.map((name) => describe(name, body.properties?.[name], columns[name], own[name]?.reference ?? def.references?.[name], own[name]));
  // A list shows eight columns at most: the first eight listable ones unless a definition says otherwise.
  let shown = 0;
  for (const f of described) if (f.list && own[f.name]?.list === undefined && ++shown > 8) f.list = false;
  return described;
}

/** The field that names a record ("name", "title"), unless the definition says. */
export function recordRepresentation(def: ResourceDefinition): string {
  if (def.recordRepresentation) return def.recordRepresentation;
  const columns = getTableColumns(def.table);
  return ['name', 'title', 'email', 'text', 'key_prefix', 'description', 'commit_message', 'url'].find((c) => c in columns) ?? 'id';
}
