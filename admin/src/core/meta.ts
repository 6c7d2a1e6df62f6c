import { api } from './http.js';
import type { FieldMeta, JsonSchema, ResourceMeta } from './meta-types.js';

let cache: Promise<ResourceMeta[]> | null = null;
const aliasSources: ((served: ResourceMeta[]) => ResourceMeta[])[] = [];

/** Screens that show a served resource under names of their own (the knowledge documents' kinds); App.tsx adds them. */
export const addResourceAliases = (aliases: (served: ResourceMeta[]) => ResourceMeta[]) => void aliasSources.push(aliases);

const byName = new Map<string, ResourceMeta>();

export function loadMeta(): Promise<ResourceMeta[]> {
  if (cache) return cache;
  const loading = api<{ resources: ResourceMeta[] }>('/meta/resources').then(({ resources: served }) => {
    const resources = [...served, ...aliasSources.flatMap((aliases) => aliases(served))];
    for (const r of resources) byName.set(r.name, r);
    return resources;
  });
  loading.catch(() => (cache = null));
  cache = loading;
  return loading;
}

export const metaOf = (resource: string) => byName.get(resource);

/** Field kinds the generic screens draw (the server chooses them: server/engine/field-meta.ts). */
export type FieldKind = FieldMeta['kind'];

/** A field to draw: the server's metadata plus the body schema's limits. */
export interface FieldSpec extends FieldMeta {
  required: boolean;
  nullable: boolean;
  /** An empty value is this shape (a JSON object or list), never null. */
  empty?: 'object' | 'array';
  min?: number;
  max?: number;
  maxLength?: number;
  items?: FieldSpec[];
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

function spec(field: FieldMeta, raw: JsonSchema, required: boolean): FieldSpec {
  const { schema, nullable } = unwrap(raw);
  const itemSchema = unwrap(schema.items ?? {}).schema;
  const itemRequired = new Set(itemSchema.required ?? []);
  return {
    ...field,
    required,
    nullable,
    min: schema.minimum,
    max: schema.maximum,
    maxLength: schema.maxLength,
    empty: schema.type === 'array' ? 'array' : schema.type === 'object' ? 'object' : undefined,
    // The body's enum is what may be sent (a runbook form offers runbook types only).
    choices: field.choices?.filter((c) => !(schema.enum ?? itemSchema.enum) || (schema.enum ?? itemSchema.enum)!.includes(c.id)),
    items: field.items?.map((item) => spec(item, itemSchema.properties?.[item.name] ?? {}, itemRequired.has(item.name))),
  };
}

/**
 * The inputs of a form: the body's fields the server draws in forms, with its labels and kinds.
 * `requiredIn` names the fields marked required (an edit form marks what the create form does).
 */
export function fieldSpecs(meta: ResourceMeta, body: JsonSchema, requiredIn: JsonSchema = body): FieldSpec[] {
  const required = new Set(requiredIn.required ?? []);
  const byName = new Map(meta.fields.map((f) => [f.name, f]));
  return Object.entries(body.properties ?? {}).flatMap(([name, raw]) => {
    const field = byName.get(name) ?? { name, label: humanize(name), kind: 'text' as const, list: false, form: true };
    return field.form ? [spec(field, raw, required.has(name))] : [];
  });
}

/** A name the server did not describe (a report column): `owner_email` → "Owner email". */
export function humanize(name: string): string {
  const words = name
    .replace(/_id$/, '')
    .replace(/[_./]+/g, ' ')
    .trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A field's label as the server gives it. */
export const labelOf = (meta: ResourceMeta | undefined, name: string) => meta?.fields.find((f) => f.name === name)?.label ?? humanize(name);

/** How a record of a resource is named in titles and confirmations (the server's recordRepresentation). */
export function representation(record: Record<string, unknown> | undefined, resource?: string): string {
  if (!record) return '';
  const field = resource ? metaOf(resource)?.recordRepresentation : undefined;
  const value = field ? record[field] : undefined;
  return value !== undefined && value !== null && String(value).trim() ? String(value) : `#${String(record.id)}`;
}
