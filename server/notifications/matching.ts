import { and, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import { cases, caseTags } from '../cases/tables.js';
import { incidents, incidentTags } from '../incidents/tables.js';
import { tags, tagTypes } from '../tags/tables.js';
import { HttpError, invalid } from '../core/errors.js';
import { columnType, compileFilter, type FilterField } from '../engine/filters.js';
import { readableFields } from '../engine/list-query.js';
import { relationsOf } from '../engine/nested.js';
import { findResource } from '../engine/registry.js';
import type { RequestContext } from '../core/context.js';
import type { Tx } from '../core/db/client.js';

export type FilterSubject = 'incident' | 'case';
export const subjects = { incident: { model: 'Incident', table: incidents }, case: { model: 'Case', table: cases } } as const;

/**
 * A saved filter's expression as SQL over its subject's table, compiled exactly as a list's `filter`
 * would be against the subject's definition, so a saved filter can never name a field or operator the
 * list would reject. Errors are 422s located at `body.expression`.
 */
export function compileExpression(ctx: RequestContext, subject: FilterSubject, expression: unknown): SQL {
  const target = subjects[subject];
  const def = findResource(target.model);
  let fields: Record<string, FilterField>;
  if (def) fields = readableFields(def, ctx).filterable;
  else {
    // The subject has no definition registered: every column of its table may be named.
    const columns = getTableColumns(target.table) as Record<string, PgColumn>;
    fields = Object.fromEntries(Object.entries(columns).map(([name, column]) => [name, { column, type: columnType(column) }]));
  }
  let compiled;
  try {
    // The references' filters too (`IncidentType.id`), as a list's filter has them.
    compiled = compileFilter(JSON.stringify(expression), target.model, fields, def ? { ...relationsOf(def).filters, ...def.customFilters } : {});
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    throw new HttpError(
      422,
      err.detail.map((d) => ({ ...d, loc: ['body', 'expression', ...d.loc.slice(2)] })),
    );
  }
  if (!compiled) throw invalid('The expression has no conditions.', ['body', 'expression'], 'filter_error');
  return compiled;
}

export interface SavedFilter {
  id: number;
  subject: FilterSubject;
  /** Needed only when the filter is not compiled yet (isCompiled). */
  expression?: unknown;
  updated_at: Date;
}

type Truth = boolean | null;
type Predicate = (row: Record<string, unknown>) => Truth;

/**
 * A LIKE pattern as a regular expression (`%`, `_`, and `\\` escaping the next character). A leading
 * or trailing `%` leaves that end unanchored rather than becoming `[\s\S]*`, so the usual `%word%`
 * is a plain search (no backtracking over the whole value).
 */
export function likeRegex(pattern: string, insensitive: boolean) {
  const ANY = null; // a `%`
  const escape = (c: string) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const tokens: (string | null)[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) tokens.push(escape(pattern[++i]!));
    else if (c === '%') {
      if (tokens.at(-1) !== ANY || !tokens.length) tokens.push(ANY);
    } else if (c === '_') tokens.push('[\\s\\S]');
    else tokens.push(escape(c));
  }
  const start = tokens.length && tokens[0] === ANY ? '' : '^';
  if (!start) tokens.shift();
  const end = tokens.length && tokens.at(-1) === ANY ? '' : '$';
  if (!end) tokens.pop();
  return new RegExp(`${start}${tokens.map((t) => t ?? '[\\s\\S]*').join('')}${end}`, insensitive ? 'i' : '');
}

/** Thrown where a filter cannot be evaluated in JavaScript (compilePredicate then gives undefined). */
const UNSUPPORTED = Symbol('unsupported');

/** `and`, `or` and `not` over their parts, in three-valued logic. */
function groupPredicate(group: 'and' | 'or' | 'not', parts: Predicate[]): Predicate {
  if (group === 'or')
    return (row) => {
      let unknown = false;
      for (const p of parts) {
        const v = p(row);
        if (v === true) return true;
        if (v === null) unknown = true;
      }
      return unknown ? null : false;
    };
  const all: Predicate = (row) => {
    let unknown = false;
    for (const p of parts) {
      const v = p(row);
      if (v === false) return false;
      if (v === null) unknown = true;
    }
    return unknown ? null : true;
  };
  if (group === 'and') return parts.length ? all : () => true;
  return (row) => {
    const v = all(row);
    return v === null ? null : !v;
  };
}

/** A comparison of one plain column (`field`, of the column's `type`) with the filter's value. */
function fieldPredicate(field: string, type: ReturnType<typeof columnType>, op: string, value: unknown): Predicate {
  const scalar = (v: unknown): unknown => {
    if (type === 'number') return Number(v);
    if (type === 'date') return new Date(v as string).getTime();
    if (type === 'boolean') return v === true || v === 'true';
    return String(v);
  };
  const read = (row: Record<string, unknown>): unknown => {
    const v = row[field];
    if (v === null || v === undefined) return null;
    if (type === 'date') return v instanceof Date ? v.getTime() : new Date(v as string).getTime();
    if (type === 'number') return Number(v);
    return v;
  };
  if (op === 'is_null') return (row) => read(row) === null;
  if (op === 'is_not_null') return (row) => read(row) !== null;
  if (op === 'any' || op === 'not_any') {
    const wanted = String(value);
    const contains = (row: Record<string, unknown>): Truth => {
      const v = read(row);
      return v === null ? null : Array.isArray(v) && v.some((x) => String(x) === wanted);
    };
    return op === 'any' ? contains : (row) => !(contains(row) ?? false);
  }
  if (op === 'in' || op === 'not_in') {
    const set = new Set((value as unknown[]).map(scalar));
    return (row) => {
      const v = read(row);
      if (v === null) return set.size ? null : op === 'not_in';
      return set.has(v) === (op === 'in');
    };
  }
  if (op === 'like' || op === 'ilike' || op === 'not_ilike') {
    const re = likeRegex(String(value), op !== 'like');
    return (row) => {
      const v = read(row);
      return v === null ? null : re.test(String(v)) === (op !== 'not_ilike');
    };
  }
  // Text order follows the database's collation: left to SQL.
  if (type === 'string' && op !== '==' && op !== '!=') throw UNSUPPORTED;
  if (type !== 'string' && type !== 'number' && type !== 'date' && type !== 'boolean') throw UNSUPPORTED;
  const wanted = scalar(value) as number | string | boolean;
  const compare = {
    '==': (a: unknown) => a === wanted,
    '!=': (a: unknown) => a !== wanted,
    '>': (a: unknown) => (a as number) > (wanted as number),
    '<': (a: unknown) => (a as number) < (wanted as number),
    '>=': (a: unknown) => (a as number) >= (wanted as number),
    '<=': (a: unknown) => (a as number) <= (wanted as number),
  }[op];
  if (!compare) throw UNSUPPORTED;
  return (row) => {
    const v = read(row);
    return v === null ? null : compare(v);
  };
}

/**
 * The expression as a function of the record's row, with SQL's three-valued logic (a comparison
 * with NULL is unknown; a filter matches when its expression is true), for expressions on plain
 * columns of the subject's table with operators whose meaning JavaScript shares with PostgreSQL.
 * The subjects' tag filters (Tag.name, Tag.id, TagType.name) read the record's tags, read with its row.
 * Anything else (a computed field, another custom filter or model's field, text ordered by collation)
 * gives undefined: that filter is evaluated in SQL instead. The expression was validated by
 * compileExpression first, so this only reads it.
 */
function compilePredicate(
  ctx: RequestContext,
  subject: FilterSubject,
  expression: unknown,
): { predicate: Predicate; needsTags: boolean; reads: string[] } | undefined {
  const target = subjects[subject];
  let needsTags = false;
  const reads = new Set<string>();
  const def = findResource(target.model);
  const columns = getTableColumns(target.table) as Record<string, PgColumn>;
  const allowed = new Set(def ? ['id', ...def.fields] : Object.keys(columns));
  let tree = expression;
  if (Array.isArray(tree)) tree = { and: tree };
  const walk = (node: unknown): Predicate => {
    const n = node as Record<string, unknown>;
    for (const group of ['and', 'or', 'not'] as const) {
      if (!Object.hasOwn(n, group)) continue;
      const parts = (n[group] as unknown[]).map(walk);
      return groupPredicate(group, parts);
    }
    const { model, field, op, value } = n as { model?: string; field: string; op: string; value?: unknown };
    // The record's tags (read with its row as `record_tags`), as the subjects' Tag and TagType filters have them.
    const named = model !== undefined && model.toLowerCase() !== target.model.toLowerCase() ? `${model}.${field}` : field;
    if (Object.hasOwn(TAG_FILTERS, named) && def?.customFilters?.[named]) {
      needsTags = true;
      return tagPredicate(named as keyof typeof TAG_FILTERS, op, value);
    }
    if ((model !== undefined && model.toLowerCase() !== target.model.toLowerCase()) || !allowed.has(field) || !columns[field] || def?.customFilters?.[field])
      throw UNSUPPORTED;
    const type = columnType(columns[field]);
    reads.add(field);
    return fieldPredicate(field, type, op, value);
  };
  try {
    const predicate = walk(tree);
    return { predicate, needsTags, reads: [...reads] };
  } catch (err) {
    if (err === UNSUPPORTED) return undefined;
    throw err;
  }
}

/** A tag of the record: its id, name and its type's name (null when it has none). */
interface RecordTag {
  id: number;
  name: string;
  type: string | null;
}
/** The custom filters on a record's tags (server/incidents/resources.ts tagFilter) evaluated in memory, with their operators. */
const TAG_FILTERS = { 'Tag.name': ['==', 'in', 'ilike'], 'Tag.id': ['==', 'in'], 'TagType.name': ['==', 'in'] } as const;

function tagPredicate(name: keyof typeof TAG_FILTERS, op: string, value: unknown): Predicate {
  if (!(TAG_FILTERS[name] as readonly string[]).includes(op)) throw new Error(`${name} ${op} passed compileExpression but has no predicate`);
  const tagsOf = (row: Record<string, unknown>) => (row.record_tags as RecordTag[] | undefined) ?? [];
  if (name === 'Tag.id') {
    const wanted = new Set((op === 'in' ? (value as unknown[]) : [value]).map(Number));
    return (row) => tagsOf(row).some((t) => wanted.has(Number(t.id)));
  }
  const key = name === 'Tag.name' ? 'name' : 'type';
  if (op === 'ilike') {
    const re = likeRegex(String(value), true);
    return (row) => tagsOf(row).some((t) => t[key] !== null && re.test(t[key]));
  }
  const wanted = new Set((op === 'in' ? (value as unknown[]) : [value]).map(String));
  return (row) => tagsOf(row).some((t) => t[key] !== null && wanted.has(t[key]));
}

/** The record's tags as one JSON array, read beside its row when a filter needs them. */
function recordTags(subject: FilterSubject) {
  const { table } = subjects[subject];
  const link = subject === 'incident' ? incidentTags : caseTags;
  // Every column qualified (Drizzle writes a single table's columns bare, which would bind inside the subquery).
  const q = (t: PgTable, column: string) => sql`${sql.identifier(getTableConfig(t).name)}.${sql.identifier(column)}`;
  return sql<
    RecordTag[] | string
  >`(select coalesce(json_agg(json_build_object('id', ${q(tags, 'id')}, 'name', ${q(tags, 'name')}, 'type', ${q(tagTypes, 'name')})), '[]'::json)
    from ${link} join ${tags} on ${q(tags, 'organization_id')} = ${q(link, 'organization_id')} and ${q(tags, 'id')} = ${q(link, 'tag_id')}
    left join ${tagTypes} on ${q(tagTypes, 'organization_id')} = ${q(tags, 'organization_id')} and ${q(tagTypes, 'id')} = ${q(tags, 'tag_type_id')}
    where ${q(link, 'organization_id')} = ${q(table, 'organization_id')} and ${q(link, subject === 'incident' ? 'incident_id' : 'case_id')} = ${q(table, 'id')})`;
}

/**
 * Compiled filters by id: a predicate over the record's row when the expression allows one, else its
 * SQL condition. An entry is reused while the filter's `updated_at` is the one it was compiled from
 * (every write through the API moves it), so an edited filter is compiled again on its next event
 * and an unchanged one never is. A filter that no longer compiles (its field was removed) is kept
 * as matching nothing.
 */
interface Compiled {
  stamp: number;
  subject: FilterSubject;
  predicate?: Predicate;
  /** The predicate reads the record's tags. */
  needsTags?: boolean;
  /** The row's columns the predicate reads. */
  reads?: string[];
  condition: SQL | null;
}
// Per database (tests run several in one process, with the same ids).
const compiledByDb = new WeakMap<object, Map<number, Compiled>>();
function cacheOf(ctx: RequestContext) {
  let cache = compiledByDb.get(ctx.system);
  if (!cache) compiledByDb.set(ctx.system, (cache = new Map()));
  return cache;
}

/** Whether the filter's compiled form is cached for its current version. */
export function isCompiled(ctx: RequestContext, filter: Pick<SavedFilter, 'id' | 'subject' | 'updated_at'>) {
  const cached = cacheOf(ctx).get(filter.id);
  return !!cached && cached.stamp === filter.updated_at.getTime() && cached.subject === filter.subject;
}

function compiled(ctx: RequestContext, filter: SavedFilter): Compiled {
  const stamp = filter.updated_at.getTime();
  const cached = cacheOf(ctx).get(filter.id);
  if (cached && cached.stamp === stamp && cached.subject === filter.subject) return cached;
  let entry: Compiled;
  try {
    const condition = compileExpression(ctx, filter.subject, filter.expression);
    const inMemory = compilePredicate(ctx, filter.subject, filter.expression);
    entry = { stamp, subject: filter.subject, condition, predicate: inMemory?.predicate, needsTags: inMemory?.needsTags, reads: inMemory?.reads };
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    entry = { stamp, subject: filter.subject, condition: null };
  }
  cacheOf(ctx).set(filter.id, entry);
  return entry;
}

/** The filter's SQL condition (null: it matches nothing), compiled once. */
export function compiledCondition(ctx: RequestContext, filter: SavedFilter): SQL | null {
  return compiled(ctx, filter).condition;
}

/** Drops a filter's compiled form (it was deleted). */
export function forgetFilter(ctx: RequestContext, id: number) {
  cacheOf(ctx).delete(id);
}

/**
 * The filters of one subject split by where they are evaluated: a predicate over the record's row
 * (in memory), else a SQL condition read alongside the row. Built once per set of followed filters
 * (see dispatch.ts) so an event only runs the predicates.
 */
export interface PreparedFilters {
  subject: FilterSubject;
  inMemory: { ids: number[]; predicates: Predicate[] };
  /** Some predicate reads the record's tags: the row's statement reads them too. */
  tags: boolean;
  /** The columns the predicates read (with id and project_id): the row's statement reads only these. */
  columns: string[];
  /** `array_remove(array[case when ... then id end, ...], null)`, or undefined when every filter is in memory. */
  bySql?: SQL;
}

export function prepareFilters(ctx: RequestContext, subject: FilterSubject, filters: SavedFilter[]): PreparedFilters {
  const ids: number[] = [];
  const predicates: Predicate[] = [];
  const arms: SQL[] = [];
  let needsTags = false;
  const columns = new Set(['id', 'project_id']);
  for (const f of filters) {
    if (f.subject !== subject) continue;
    const c = compiled(ctx, f);
    if (c.predicate) {
      needsTags ||= !!c.needsTags;
      for (const column of c.reads ?? []) columns.add(column);
      ids.push(f.id);
      predicates.push(c.predicate);
    } else if (c.condition) arms.push(sql`case when ${c.condition} then ${sql.raw(String(Math.trunc(f.id)))} end`);
  }
  return {
    subject,
    inMemory: { ids, predicates },
    tags: needsTags,
    columns: [...columns],
    bySql: arms.length ? sql<number[]>`array_remove(array[${sql.join(arms, sql`, `)}]::int[], null)` : undefined,
  };
}

/**
 * The match itself: which prepared filters the record's row satisfies. `row.sql_matched` holds the
 * ids the row's statement matched in SQL (prepared.bySql); the others are evaluated here in memory.
 */
export function matchRow(prepared: PreparedFilters, row: Record<string, unknown>): Set<number> {
  const matched = new Set<number>();
  for (const id of (row.sql_matched as number[] | undefined) ?? []) matched.add(Number(id));
  const { ids, predicates } = prepared.inMemory;
  for (let i = 0; i < predicates.length; i++) if (predicates[i]!(row) === true) matched.add(ids[i]!);
  return matched;
}

/** The records' rows (only the columns the predicates read, with id and project_id), each with the SQL-evaluated filters' matches (`sql_matched`), its tags when a predicate reads them, and `extra` values, in one statement; in no particular order. */
export async function readRecords(ctx: RequestContext, prepared: PreparedFilters, recordIds: number[], extra: Record<string, SQL> = {}) {
  const { table } = subjects[prepared.subject];
  const rows = (await (ctx.tx as Tx)
    .select({
      ...Object.fromEntries(prepared.columns.map((name) => [name, (getTableColumns(table) as Record<string, PgColumn>)[name]!])),
      ...(prepared.bySql ? { sql_matched: prepared.bySql } : {}),
      ...(prepared.tags ? { record_tags: recordTags(prepared.subject) } : {}),
      ...extra,
    })
    .from(table)
    .where(and(eq(table.organization_id, ctx.orgId), recordIds.length === 1 ? eq(table.id, recordIds[0]!) : inArray(table.id, recordIds)))) as Record<
    string,
    unknown
  >[];
  for (const row of rows) if (typeof row.record_tags === 'string') row.record_tags = JSON.parse(row.record_tags);
  return rows;
}

export const readRecord = async (ctx: RequestContext, prepared: PreparedFilters, recordId: number, extra: Record<string, SQL> = {}) =>
  (await readRecords(ctx, prepared, [recordId], extra))[0] ?? null;

/**
 * Which of `filters` match one incident or case, and the record's project. The record's row is read
 * once; filters with a predicate are evaluated on it in memory, the others in that same statement
 * (each condition a `case when` in one array), with `extra` values read alongside.
 */
export async function matchRecord(
  ctx: RequestContext,
  subject: FilterSubject,
  recordId: number,
  filters: SavedFilter[] | PreparedFilters,
  extra: Record<string, SQL> = {},
) {
  const prepared = Array.isArray(filters) ? prepareFilters(ctx, subject, filters) : filters;
  const row = await readRecord(ctx, prepared, recordId, extra);
  if (!row) return null;
  return { project_id: row.project_id as number, matched: matchRow(prepared, row), row };
}
