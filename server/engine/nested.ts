import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import { getTableConfig, type PgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { invalid } from '../core/errors.js';
import type { CustomFilter, ResourceDefinition } from './define.js';
import { recordRepresentation } from './field-meta.js';
import { columnType, filterCondition, FILTER_OPS, type FilterField, type FilterOp } from './filters.js';
import { findResource } from './registry.js';
import { SERVER_MANAGED } from './body.js';

/**
 * References as the spec names them: every `references` entry of a definition (`tag_type_id: 'TagType'`)
 * is also the spec's nested field (`tag_type: {"id": 3, "name": "Service"}`). Bodies may send either;
 * answers carry both; filters may name the target model (`TagType.name`) and sorts the nested field
 * (`tag_type.name`). Everything here is derived from the definitions, once per definition.
 */
export interface NestedReference {
  /** The body and column field holding the id (or the list of ids). */
  field: string;
  /** The spec's field: `tag_type` for `tag_type_id`, `incident_types` for `incident_type_ids`; for a list of ids named without `_ids` (`terms`), the field itself. */
  key: string;
  model: string;
  list: boolean;
}

export interface Relations {
  references: NestedReference[];
  /** Singular references whose answers carry `{id, <name>}`: the key, the id field, the target's name field and its SQL. */
  answered: { key: string; field: string; nameKey: string; name: SQL }[];
  /** `Model.field` filters through a singular reference. */
  filters: Record<string, CustomFilter>;
  /** `key.field` sorts through a singular reference. */
  sorts: Record<string, FilterField>;
  /** Fields an answer carries that no body writes (ignored when a record is sent back). */
  answerOnly: Set<string>;
}

const cache = new WeakMap<ResourceDefinition, Relations>();

function referencesOf(def: ResourceDefinition): NestedReference[] {
  const columns = getTableColumns(def.table) as Record<string, PgColumn>;
  const out: NestedReference[] = [];
  for (const [field, model] of Object.entries(def.references ?? {})) {
    const column = columns[field];
    const list = column ? column.dataType === 'array' || column.dataType === 'json' : true;
    if (field.endsWith('_id') && !list) out.push({ field, key: field.slice(0, -3), model, list: false });
    else if (field.endsWith('_ids')) out.push({ field, key: `${field.slice(0, -4)}s`, model, list: true });
    else out.push({ field, key: field, model, list: true });
  }
  // References declared for the admin app only (an incident's `tags`, a feedback's incident, checked
  // by the domain's hooks) take and give the nested form too.
  for (const [field, meta] of Object.entries(def.fieldMeta ?? {})) {
    if (!meta.reference || out.some((r) => r.field === field)) continue;
    if (meta.kind === 'references') out.push({ field, key: field, model: meta.reference, list: true });
    else if (field.endsWith('_id') && columns[field]?.dataType === 'number') out.push({ field, key: field.slice(0, -3), model: meta.reference, list: false });
  }
  // A nested key that is a column of its own (rare) keeps its column's meaning.
  return out.filter((r) => r.key === r.field || !columns[r.key]);
}

/** The relations of a definition (the registry must hold every definition it names: call after registerResources). */
export function relationsOf(def: ResourceDefinition): Relations {
  let found = cache.get(def);
  if (found) return found;
  const references = referencesOf(def);
  const columns = getTableColumns(def.table) as Record<string, PgColumn>;
  const parentName = getTableConfig(def.table).name;
  const outerColumn = (name: string) => sql`${sql.identifier(parentName)}.${sql.identifier(name)}`;
  const answered: Relations['answered'] = [];
  const filters: Relations['filters'] = {};
  const sorts: Relations['sorts'] = {};
  for (const ref of references) {
    const target = findResource(ref.model);
    if (!target || ref.list || !columns[ref.field]) continue;
    const targetColumns = getTableColumns(target.table) as Record<string, PgColumn>;
    // An alias of its own, so a reference to the same table (a parent record) binds to the right
    // rows; every column written qualified (Drizzle writes a single table's columns bare).
    const aliasName = `ref_${ref.key}`;
    const t = sql`${sql.identifier(getTableConfig(target.table).name)} ${sql.identifier(aliasName)}`;
    const inner = (column: PgColumn) => sql`${sql.identifier(aliasName)}.${sql.identifier(column.name)}`;
    const sameOrg = targetColumns.organization_id && columns.organization_id ? sql` and ${inner(targetColumns.organization_id)} = ${outerColumn('organization_id')}` : sql``;
    const fk = outerColumn(columns[ref.field]!.name);
    const lookup = (column: PgColumn) => sql`(select ${inner(column)} from ${t} where ${inner(targetColumns.id!)} = ${fk}${sameOrg})`;
    const tc = targetColumns;
    const nameKey = recordRepresentation(target);
    if (tc[nameKey]) answered.push({ key: ref.key, field: ref.field, nameKey, name: lookup(tc[nameKey]).mapWith(tc[nameKey]) });
    for (const name of ['id', ...target.fields]) {
      const column = tc[name];
      if (!column) continue;
      const type = columnType(column);
      if (type === 'array' || type === 'json_array') continue;
      sorts[`${ref.key}.${name}`] = { column: lookup(column), type };
      const filterName = `${ref.model}.${name}`;
      if (filters[filterName]) continue; // two references to one model: the first one answers
      filters[filterName] = {
        type: type as CustomFilter['type'],
        ops: FILTER_OPS.filter((op) => op !== 'any' && op !== 'not_any'),
        // A semi-join on the target's rows: the planner reads them by the condition, then the
        // parent's rows by their foreign key (indexed by a list's filter where lists use one).
        build: (op, value) => sql`${fk} in (select ${inner(tc.id!)} from ${t} where ${filterCondition({ column: inner(column), type }, op as FilterOp, value)}${sameOrg})`,
      };
    }
  }
  const answerOnly = new Set<string>([...SERVER_MANAGED, ...Object.keys(columns), ...def.fields, ...answered.map((a) => a.key), ...references.map((r) => r.key), ...(def.answerOnly ?? [])]);
  found = { references, answered, filters, sorts, answerOnly };
  cache.set(def, found);
  return found;
}

/** A nested reference of an answer: its key, the id field, the target's name field, and the record key its name was read into. */
export interface AnsweredReference {
  key: string;
  field: string;
  nameKey: string;
  from: string;
}

/** Puts `{id, name}` beside each answered reference's id, in a record read with the names selected (readableFields). */
export function nestRecord(nested: readonly AnsweredReference[], record: Record<string, unknown>) {
  for (const { key, field, nameKey, from } of nested) {
    if (!(field in record)) continue;
    const id = record[field];
    record[key] = id === null || id === undefined ? null : { id, [nameKey]: record[from] ?? null };
  }
  return record;
}

const idOf = (value: unknown) => (value && typeof value === 'object' && !Array.isArray(value) && 'id' in value ? (value as { id: unknown }).id : value);

/** A reference written both ways with different ids: the caller decides which one stands (see crud's update). */
export type NestedConflicts = Record<string, unknown>;

/**
 * A body as the spec's client writes it, turned into the engine's: `tag_type: {id}` becomes
 * `tag_type_id` (other keys of the nested object ignored), lists of `{id}` become lists of ids, and on
 * an update the fields only answers carry (id, timestamps, names, nested objects) are dropped, so a
 * record sent back as it was answered is accepted. Unknown fields are left for the schema to refuse.
 */
export function acceptNested(def: ResourceDefinition, body: unknown, schema: z.ZodObject, update: boolean): { body: unknown; conflicts: NestedConflicts } {
  const conflicts: NestedConflicts = {};
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { body, conflicts };
  const relations = relationsOf(def);
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  const shape = schema.shape as Record<string, unknown>;
  for (const ref of relations.references) {
    if (!(ref.field in shape)) continue;
    if (ref.list) {
      const given = Object.hasOwn(out, ref.field) ? out[ref.field] : out[ref.key];
      if (ref.key !== ref.field) delete out[ref.key];
      if (Array.isArray(given)) out[ref.field] = given.map(idOf);
      continue;
    }
    if (!Object.hasOwn(out, ref.key)) continue;
    const nested = out[ref.key];
    delete out[ref.key];
    if (nested !== null && (typeof nested !== 'object' || Array.isArray(nested) || !('id' in nested))) {
      throw invalid(`'${ref.key}' must be an object with an 'id' (or null).`, ['body', ref.key], 'nested_reference');
    }
    const id = nested === null ? null : (nested as { id: unknown }).id;
    if (!Object.hasOwn(out, ref.field)) out[ref.field] = id;
    else if (out[ref.field] !== id) conflicts[ref.field] = id;
  }
  if (update) for (const key of Object.keys(out)) if (!(key in shape) && relations.answerOnly.has(key)) delete out[key];
  return { body: out, conflicts };
}

/** The spec's nested fields, for the OpenAPI document: `{id}` objects (other keys allowed) beside the ids. */
export function nestedBodyShape(def: ResourceDefinition, schema: z.ZodObject): Record<string, z.ZodType> {
  const ref = z.looseObject({ id: z.number().int().positive() });
  const shape: Record<string, z.ZodType> = {};
  for (const r of relationsOf(def).references) {
    if (!(r.field in (schema.shape as Record<string, unknown>)) || r.key === r.field) continue;
    shape[r.key] = (r.list ? z.array(ref) : ref.nullable()).optional().describe(`The ${r.model} by id, as the spec's client sends it; the same as '${r.field}'.`);
  }
  return shape;
}

/**
 * The nested references of a record a domain reads itself (a full incident), from the `<key>_name`
 * values it selected beside the ids (`incident_type_name`, `project_name`).
 */
export function nestNamed(def: ResourceDefinition, record: Record<string, unknown>) {
  return nestRecord(
    relationsOf(def).answered.filter((a) => `${a.key}_name` in record).map((a) => ({ ...a, from: `${a.key}_name` })),
    record,
  );
}

type JsonSchema = Record<string, unknown>;
const JSON_TYPES: Record<string, JsonSchema> = {
  number: { type: 'number' },
  string: { type: 'string' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date-time' },
  array: { type: 'array', items: {} },
  json_array: {},
};

/**
 * A record of a definition as answers carry it, for the OpenAPI document only (answers are not
 * validated against it): every column but the hidden ones, the computed values, and each nested
 * reference `{id, <name>}` beside its id.
 */
export function recordJsonSchema(def: ResourceDefinition): JsonSchema {
  const columns = getTableColumns(def.table) as Record<string, PgColumn>;
  const hidden = new Set(def.hidden ?? []);
  const properties: Record<string, JsonSchema> = {};
  for (const [name, column] of Object.entries(columns)) {
    if (hidden.has(name)) continue;
    properties[name] = { ...JSON_TYPES[columnType(column)], ...(column.notNull ? {} : { nullable: true }) };
  }
  for (const name of def.fields) if (!properties[name] && !name.includes('.')) properties[name] = { type: 'string', nullable: true, readOnly: true };
  for (const a of relationsOf(def).answered) {
    if (hidden.has(a.field)) continue;
    properties[a.key] = {
      type: 'object',
      nullable: true,
      readOnly: true,
      description: `The ${a.field} reference with its ${a.nameKey}.`,
      properties: { id: { type: 'integer' }, [a.nameKey]: { type: 'string', nullable: true } },
    };
  }
  return { type: 'object', properties };
}

/** A list page's answer, for the OpenAPI document. */
export const pageJsonSchema = (record: JsonSchema): JsonSchema => ({
  type: 'object',
  properties: { items: { type: 'array', items: record }, total: { type: 'integer' }, totalCapped: { type: 'boolean' }, page: { type: 'integer' }, itemsPerPage: { type: 'integer' } },
});
