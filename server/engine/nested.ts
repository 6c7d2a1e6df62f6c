import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { invalid } from '../core/errors.js';
import type { CustomFilter, ResourceDefinition } from './define.js';
import { recordRepresentation } from './field-meta.js';
import { columnType, filterCondition, FILTER_OPS, type FilterField, type FilterOp } from './filters.js';
import { findResource } from './registry.js';
import { SERVER_MANAGED } from './body.js';
import { hidesRows, visibleRows } from './visibility.js';
import type { RequestContext } from '../core/context.js';

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
  /** For a list named as the spec names it (`tags`, `terms`): the `_ids` spelling a body may send instead (`tag_ids`). */
  alias?: string;
}

export interface Relations {
  references: NestedReference[];
  /**
   * Singular references whose answers carry `{id, <name>}`: the key, the id field, the target's name
   * field and its SQL (a lookup that, from visibleRelations, answers null for a row the caller may not
   * see), and the target's table.
   */
  answered: { key: string; field: string; nameKey: string; name: SQL; table: PgTable }[];
  /**
   * Lists of ids answered as the spec's list of objects beside them (`tags: [{"id": 1, "name": "db"}]`
   * beside `tag_ids`), in the ids' order: the key, the id field, the target's name field and the SQL
   * of the whole list (a JSON array; a row the caller may not see, or a dangling id, as `{"id"}` alone).
   */
  answeredLists: { key: string; field: string; nameKey: string; list: SQL; table: PgTable }[];
  /** `Model.field` filters through a singular reference. */
  filters: Record<string, CustomFilter>;
  /** `key.field` sorts through a singular reference. */
  sorts: Record<string, FilterField>;
  /** Fields an answer carries that no body writes (ignored when a record is sent back). */
  answerOnly: Set<string>;
  /** People by e-mail (the definition's `people`): the spec's key, the field, and for one person the `{email}` answer's SQL. */
  people: { key: string; field: string; list: boolean; answer?: SQL }[];
}

const cache = new WeakMap<ResourceDefinition, Relations>();

/** The spec's plural of a list field's stem (`incident_priority_ids` -> `incident_priorities`). */
const plural = (stem: string) => (/[^aeiou]y$/.test(stem) ? `${stem.slice(0, -1)}ies` : `${stem}s`);
/** The `_ids` field of a list the spec names by its plural (`entities` -> `entity_ids`, `tags` -> `tag_ids`). */
const idsField = (key: string) => `${key.endsWith('ies') ? `${key.slice(0, -3)}y` : key.replace(/s$/, '')}_ids`;

function referencesOf(def: ResourceDefinition): NestedReference[] {
  const columns = getTableColumns(def.table) as Record<string, PgColumn>;
  const out: NestedReference[] = [];
  for (const [field, model] of Object.entries(def.references ?? {})) {
    const column = columns[field];
    const list = column ? column.dataType === 'array' || column.dataType === 'json' : true;
    if (field.endsWith('_id') && !list) out.push({ field, key: field.slice(0, -3), model, list: false });
    else if (field.endsWith('_ids')) out.push({ field, key: plural(field.slice(0, -4)), model, list: true });
    else out.push({ field, key: field, model, list: true, alias: idsField(field) });
  }
  // References declared for the admin app only (an incident's `tags`, a feedback's incident, checked
  // by the domain's hooks) take and give the nested form too.
  for (const [field, meta] of Object.entries(def.fieldMeta ?? {})) {
    if (!meta.reference || out.some((r) => r.field === field)) continue;
    if (meta.kind === 'references') out.push({ field, key: field, model: meta.reference, list: true, alias: idsField(field) });
    else if (field.endsWith('_id') && columns[field]?.dataType === 'number') out.push({ field, key: field.slice(0, -3), model: meta.reference, list: false });
  }
  // A nested key (or an `_ids` spelling) that is a column of its own (rare) keeps its column's meaning.
  for (const r of out) if (r.alias && columns[r.alias]) delete r.alias;
  return out.filter((r) => r.key === r.field || !columns[r.key]);
}

/** Which of a referenced table's rows the caller may see, read in the organization `org` (undefined: all). */
type Visible = (table: PgTable, org: SQL) => SQL | undefined;

/** The relations of a definition (the registry must hold every definition it names: call after registerResources). */
export function relationsOf(def: ResourceDefinition): Relations {
  let found = cache.get(def);
  if (!found) cache.set(def, (found = buildRelations(def)));
  return found;
}

/**
 * The relations as `ctx` may read them: names, filters and sorts through a reference see only the
 * rows the domains' visibility rules show the caller (a case escalated to a restricted incident
 * answers `incident: {"id": 7}`, without the name, to a member who is not on it). The same as
 * relationsOf where no referenced table hides rows from the caller.
 */
export function visibleRelations(def: ResourceDefinition, ctx: RequestContext): Relations {
  const relations = relationsOf(def);
  if (!hidesReferences(def, ctx)) return relations;
  return buildRelations(def, (table, org) => visibleRows(ctx, table, org));
}

const targetsOf = new WeakMap<ResourceDefinition, PgTable[]>();

/** Whether visibility rules hide rows of a table `def`'s references name (its list statements are then compiled apart). */
export function hidesReferences(def: ResourceDefinition, ctx: RequestContext): boolean {
  let tables = targetsOf.get(def);
  if (!tables) targetsOf.set(def, (tables = [...new Set(referencesOf(def).flatMap((r) => findResource(r.model)?.table ?? []))]));
  return tables.some((table) => hidesRows(ctx, table));
}

/** The spec's key of a person field (`owner_email` -> `owner`; a list of e-mails keeps its name). */
function peopleOf(def: ResourceDefinition, parentName: string): Relations['people'] {
  const columns = getTableColumns(def.table) as Record<string, PgColumn>;
  return (def.people ?? []).map((field) => {
    const column = columns[field];
    if (!column) throw new Error(`${def.model}: people field ${field} is not a column.`);
    if (column.dataType !== 'string') return { key: field, field, list: true };
    if (!field.endsWith('_email')) throw new Error(`${def.model}: a person field is named <role>_email (${field}).`);
    const value = sql`${sql.identifier(parentName)}.${sql.identifier(column.name)}`;
    return { key: field.slice(0, -6), field, list: false, answer: sql`case when ${value} is null then null else json_build_object('email', ${value}) end` };
  });
}

function buildRelations(def: ResourceDefinition, visible?: Visible): Relations {
  const references = referencesOf(def);
  const columns = getTableColumns(def.table) as Record<string, PgColumn>;
  const parentName = getTableConfig(def.table).name;
  const outerColumn = (name: string) => sql`${sql.identifier(parentName)}.${sql.identifier(name)}`;
  const answered: Relations['answered'] = [];
  const answeredLists: Relations['answeredLists'] = [];
  const filters: Relations['filters'] = {};
  const sorts: Relations['sorts'] = {};
  for (const ref of references) {
    const target = findResource(ref.model);
    if (!target || !columns[ref.field]) continue;
    const targetColumns = getTableColumns(target.table) as Record<string, PgColumn>;
    const tc = targetColumns;
    const nameKey = recordRepresentation(target);
    // An alias of its own, so a reference to the same table (a parent record) binds to the right
    // rows; every column written qualified (Drizzle writes a single table's columns bare).
    const aliasName = `ref_${ref.key}`;
    const targetName = sql.identifier(getTableConfig(target.table).name);
    const t = sql`${targetName} ${sql.identifier(aliasName)}`;
    const inner = (column: PgColumn) => sql`${sql.identifier(aliasName)}.${sql.identifier(column.name)}`;
    const sameOrg =
      targetColumns.organization_id && columns.organization_id ? sql` and ${inner(targetColumns.organization_id)} = ${outerColumn('organization_id')}` : sql``;
    // The rules' condition is written against the target by its own name: checked on that row
    // through its primary key, in the row's own organization (a statement shared by organizations
    // stays right for each).
    const condition = visible?.(target.table, tc.organization_id ? inner(tc.organization_id) : sql`${outerColumn('organization_id')}`);
    const seen = condition
      ? sql` and exists (select 1 from ${targetName} where ${targetName}.${sql.identifier(tc.id!.name)} = ${inner(tc.id!)} and ${condition})`
      : sql``;
    if (ref.list) {
      const column = columns[ref.field]!;
      // The ids in their order (an integer array, or a JSON array of numbers), each with its name
      // (a target without a name field answers `{"id"}` objects).
      const elements =
        column.dataType === 'array'
          ? sql`unnest(${outerColumn(column.name)}) with ordinality e(id, n)`
          : sql`(select (x.v)::int as id, x.n from json_array_elements_text(${outerColumn(column.name)}::json) with ordinality x(v, n)) e`;
      const named = tc[nameKey] ? sql`, ${sql.raw(`'${nameKey}'`)}::text, ${inner(tc[nameKey])}` : sql``;
      const list = sql`(select coalesce(json_agg(json_strip_nulls(json_build_object('id', e.id${named})) order by e.n), '[]'::json)
        from ${elements} left join ${t} on ${inner(tc.id!)} = e.id${sameOrg}${seen})`;
      answeredLists.push({ key: ref.key, field: ref.field, nameKey, list, table: target.table });
      continue;
    }
    const fk = outerColumn(columns[ref.field]!.name);
    const lookup = (column: PgColumn) => sql`(select ${inner(column)} from ${t} where ${inner(targetColumns.id!)} = ${fk}${sameOrg}${seen})`;
    if (tc[nameKey]) answered.push({ key: ref.key, field: ref.field, nameKey, name: lookup(tc[nameKey]).mapWith(tc[nameKey]), table: target.table });
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
        build: (op, value) =>
          sql`${fk} in (select ${inner(tc.id!)} from ${t} where ${filterCondition({ column: inner(column), type }, op as FilterOp, value)}${sameOrg}${seen})`,
      };
    }
  }
  const people = peopleOf(def, parentName);
  const answerOnly = new Set<string>([
    ...SERVER_MANAGED,
    ...people.map((p) => p.key),
    ...Object.keys(columns),
    ...def.fields,
    ...answered.map((a) => a.key),
    ...answeredLists.map((a) => a.key),
    ...references.map((r) => r.key),
    ...(def.answerOnly ?? []),
  ]);
  return { references, answered, answeredLists, filters, sorts, answerOnly, people };
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
    const name = record[from];
    // A row the caller may not see (or no longer there) answers its id alone: the id field beside it
    // already says it, and null would read as "no reference" (and unlink it if sent back).
    record[key] = id === null || id === undefined ? null : name === null || name === undefined ? { id } : { id, [nameKey]: name };
  }
  return record;
}

const idOf = (value: unknown) => (value && typeof value === 'object' && !Array.isArray(value) && 'id' in value ? (value as { id: unknown }).id : value);

/** Whether two ids (or lists of ids, or of `{id}` objects as answers carry them) are the same. */
export const sameValue = (a: unknown, b: unknown) =>
  a === b || (Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => idOf(x) === idOf(b[i])));

/** The e-mail of a person as the spec's client sends one: `{"email"}`, a participant's `{"individual": {"email"}}`, or the e-mail itself. */
function emailOf(value: unknown, key: string): unknown {
  if (value === null || typeof value !== 'object') return value;
  const person = value as { email?: unknown; individual?: { email?: unknown } | null };
  const email = person.email ?? person.individual?.email;
  if (typeof email !== 'string') throw invalid(`'${key}' must be an e-mail address or an object with an 'email'.`, ['body', key], 'nested_reference');
  return email;
}

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
    // The organization a record belongs to is the path's: a client that sends it (a project's
    // `organization`, as Dispatch's client does from its stored organization) is not refused for it.
    if (ref.field === 'organization_id' && ref.key in out && (out[ref.key] === null || typeof out[ref.key] === 'object')) delete out[ref.key];
    if (!(ref.field in shape)) continue;
    if (ref.list) {
      // The field itself takes ids or `{id}` objects; the spec's key (`tags` beside `tag_ids`) or the
      // `_ids` spelling (`tag_ids` for `tags`) stand for it when it is not sent.
      if (Array.isArray(out[ref.field])) out[ref.field] = (out[ref.field] as unknown[]).map(idOf);
      for (const other of [ref.key, ref.alias]) {
        if (other === undefined || other === ref.field || !Object.hasOwn(out, other)) continue;
        const given = out[other];
        delete out[other];
        if (!Array.isArray(given)) {
          // A record sent back may carry the nested key as null (a list it could not read).
          if (given === null && other === ref.key) continue;
          throw invalid(`'${other}' must be a list of ids or of objects with an 'id'.`, ['body', other], 'nested_reference');
        }
        const ids = given.map(idOf);
        if (!Object.hasOwn(out, ref.field)) out[ref.field] = ids;
        else if (!sameValue(out[ref.field], ids)) conflicts[ref.field] = ids;
      }
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
  for (const person of relations.people) {
    if (!(person.field in shape)) continue;
    if (person.list) {
      if (Array.isArray(out[person.field])) out[person.field] = (out[person.field] as unknown[]).map((v) => emailOf(v, person.field));
      continue;
    }
    if (!Object.hasOwn(out, person.key)) continue;
    const email = emailOf(out[person.key], person.key);
    delete out[person.key];
    if (!Object.hasOwn(out, person.field)) out[person.field] = email;
    else if (out[person.field] !== email) conflicts[person.field] = email;
  }
  if (update) for (const key of Object.keys(out)) if (!(key in shape) && relations.answerOnly.has(key)) delete out[key];
  return { body: out, conflicts };
}

/** The spec's nested fields, for the OpenAPI document: `{id}` objects (other keys allowed) beside the ids. */
export function nestedBodyShape(def: ResourceDefinition, schema: z.ZodObject): Record<string, z.ZodType> {
  const ref = z.looseObject({ id: z.number().int().positive() });
  const ids = z.array(z.union([z.number().int().positive(), ref]));
  const shape: Record<string, z.ZodType> = {};
  for (const r of relationsOf(def).references) {
    if (!(r.field in (schema.shape as Record<string, unknown>))) continue;
    if (r.key !== r.field)
      shape[r.key] = (r.list ? z.array(ref) : ref.nullable())
        .optional()
        .describe(`The ${r.model} by id, as the spec's client sends it; the same as '${r.field}'.`);
    if (!r.alias) continue;
    shape[r.field] = ids.optional().describe(`${r.model} ids, or objects with an 'id' as answers carry them.`);
    shape[r.alias] = ids.optional().describe(`The same as '${r.field}'.`);
  }
  const person = z.looseObject({ email: z.email() });
  for (const p of relationsOf(def).people) {
    if (!(p.field in (schema.shape as Record<string, unknown>))) continue;
    if (p.list)
      shape[p.field] = z
        .array(z.union([z.email(), person]))
        .optional()
        .describe(`E-mail addresses, or objects with an 'email'.`);
    else shape[p.key] = person.nullable().optional().describe(`The person by e-mail, as the spec's client sends it; the same as '${p.field}'.`);
  }
  return shape;
}

/**
 * The nested references of a record a domain reads itself (a full incident), from the `<key>_name`
 * values it selected beside the ids (`incident_type_name`, `project_name`), and its people as `{email}`.
 */
export function nestNamed(def: ResourceDefinition, record: Record<string, unknown>) {
  for (const p of relationsOf(def).people)
    if (!p.list && p.field in record && !(p.key in record)) record[p.key] = record[p.field] == null ? null : { email: record[p.field] };
  return nestRecord(
    relationsOf(def)
      .answered.filter((a) => `${a.key}_name` in record)
      .map((a) => ({ ...a, from: `${a.key}_name` })),
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

/** A row of a table as answers carry it, every column but the `hidden` ones (for the OpenAPI document only). */
export function tableJsonSchema(table: PgTable, hidden: ReadonlySet<string> = new Set()): JsonSchema {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const properties: Record<string, JsonSchema> = {};
  for (const [name, column] of Object.entries(columns)) {
    if (hidden.has(name)) continue;
    properties[name] = { ...JSON_TYPES[columnType(column)], ...(column.notNull ? {} : { nullable: true }) };
  }
  return { type: 'object', properties };
}

/**
 * A record of a definition as answers carry it, for the OpenAPI document only (answers are not
 * validated against it): every column but the hidden ones, the computed values, and each nested
 * reference `{id, <name>}` beside its id.
 */
export function recordJsonSchema(def: ResourceDefinition): JsonSchema {
  const hidden = new Set(def.hidden ?? []);
  const properties = tableJsonSchema(def.table, hidden).properties as Record<string, JsonSchema>;
  for (const name of def.fields) if (!properties[name] && !name.includes('.')) properties[name] = { type: 'string', nullable: true, readOnly: true };
  for (const a of relationsOf(def).answered) {
    if (hidden.has(a.field)) continue;
    properties[a.key] = {
      type: 'object',
      nullable: true,
      readOnly: true,
      description: `The ${a.field} reference with its ${a.nameKey}.`,
      properties: { id: { type: 'integer' }, [a.nameKey]: { type: 'string' } },
    };
  }
  for (const p of relationsOf(def).people) {
    if (hidden.has(p.field) || p.list) continue;
    properties[p.key] = {
      type: 'object',
      nullable: true,
      readOnly: true,
      description: `The person of ${p.field}.`,
      properties: { email: { type: 'string', format: 'email' } },
    };
  }
  for (const a of relationsOf(def).answeredLists) {
    if (hidden.has(a.field)) continue;
    properties[a.key] = {
      type: 'array',
      readOnly: true,
      description: `The ${a.field} references with their ${a.nameKey}, in the same order.`,
      items: { type: 'object', properties: { id: { type: 'integer' }, [a.nameKey]: { type: 'string' } }, required: ['id'] },
    };
  }
  return { type: 'object', properties };
}

/** A list page's answer, for the OpenAPI document. */
export const pageJsonSchema = (record: JsonSchema): JsonSchema => ({
  type: 'object',
  properties: {
    items: { type: 'array', items: record },
    total: { type: 'integer' },
    totalCapped: { type: 'boolean' },
    page: { type: 'integer' },
    itemsPerPage: { type: 'integer' },
  },
});
