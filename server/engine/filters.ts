import { and, Column, eq, gt, gte, ilike, is, isNotNull, isNull, like, lt, lte, ne, not, notIlike, or, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { HttpError, type DetailItem } from '../core/errors.js';
import type { CustomFilter } from './define.js';
import { coercedDate } from '../core/input.js';

/** An ILIKE/LIKE pattern matching `text` anywhere, its own `%`, `_` and `\\` taken literally. */
export const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export const FILTER_OPS = ['==', '!=', '>', '<', '>=', '<=', 'like', 'ilike', 'not_ilike', 'in', 'not_in', 'any', 'not_any', 'is_null', 'is_not_null'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

type Leaf = { model?: string; field: string; op: string; value?: unknown };

const MAX_DEPTH = 8;
const MAX_LEAVES = 100;

/** A column a filter may name, with the kind of value it holds. */
export interface FilterField {
  column: PgColumn | SQL;
  type: 'number' | 'string' | 'boolean' | 'date' | 'json_array' | 'array';
}

export function columnType(column: PgColumn): FilterField['type'] {
  const dt = column.dataType as string;
  if (dt === 'number' || dt === 'bigint') return 'number';
  if (dt === 'boolean') return 'boolean';
  if (dt === 'date') return 'date';
  if (dt === 'array') return 'array';
  if (dt === 'json') return 'json_array';
  return 'string';
}

/** `values` as one PostgreSQL array literal, every element quoted (its `"` and `\` escaped). */
export const arrayLiteral = (values: readonly unknown[]) =>
  `{${values.map((v) => `"${(v instanceof Date ? v.toISOString() : String(v)).replace(/["\\]/g, '\\$&')}"`).join(',')}}`;

/**
 * The values as one array parameter, of the column's type; compared with an expression (a computed
 * field), the parameter is left untyped and PostgreSQL takes the expression's type for its elements.
 */
const arrayOf = (column: PgColumn | SQL, values: readonly unknown[]) => {
  if (!is(column, Column)) return sql`${arrayLiteral(values)}`;
  const element = column.getSQLType().replace(/^(small|big)?serial$/, (_m, size?: string) => (size ? `${size}int` : 'integer'));
  return sql`${arrayLiteral(values)}::${sql.raw(element)}[]`;
};

/**
 * `column in (values)` as `column = any($1::type[])`: one array parameter, so every list length is the
 * same statement text. Each length of an IN list was a statement of its own, prepared and kept on
 * every pooled connection (review F9: +372 MB of PostgreSQL memory over 2,000 lengths).
 */
export const anyOf = (column: PgColumn | SQL, values: readonly unknown[]) => sql`${column} = any(${arrayOf(column, values)})`;

/** `column not in (values)` as `column <> all($1::type[])`, for the same reason. */
export const noneOf = (column: PgColumn | SQL, values: readonly unknown[]) => sql`${column} <> all(${arrayOf(column, values)})`;

const fail = (msg: string, loc: (string | number)[], type = 'filter_error'): never => {
  throw new HttpError(422, [{ msg, loc: ['query', 'filter', ...loc], type }]);
};

/** The name a condition's field goes by: `Model.field` when the condition names another model. */
const fieldName = (node: Leaf, model: string) =>
  node.model !== undefined && node.model.toLowerCase() !== model.toLowerCase() ? `${node.model}.${node.field}` : node.field;

/** Every field a filter's conditions name, or undefined for text compileFilter would refuse. */
export function filterFieldNames(text: string, model: string): string[] | undefined {
  let tree: unknown;
  try {
    tree = JSON.parse(text);
  } catch {
    return undefined;
  }
  const names: string[] = [];
  // compileFilter refuses a filter nested deeper than MAX_DEPTH, so the walk stops there too (a
  // 20,000-character filter can nest 10,000 arrays, enough to exhaust the stack).
  const walk = (node: unknown, depth: number): boolean => {
    if (depth > MAX_DEPTH + 1 || !node || typeof node !== 'object') return false;
    if (Array.isArray(node)) return node.every((c) => walk(c, depth + 1));
    const group = (['and', 'or', 'not'] as const).find((g) => Object.hasOwn(node, g));
    if (group) return Array.isArray((node as Record<string, unknown>)[group]) && (node as Record<string, unknown[]>)[group]!.every((c) => walk(c, depth + 1));
    if (typeof (node as Leaf).field !== 'string') return false;
    names.push(fieldName(node as Leaf, model));
    return true;
  };
  return walk(tree, 0) ? names : undefined;
}

/** Parses the `filter` query parameter (JSON text) into a SQL condition over the allowed fields. */
export function compileFilter(text: string, model: string, fields: Record<string, FilterField>, custom: Record<string, CustomFilter> = {}): SQL | undefined {
  let tree: unknown;
  try {
    tree = JSON.parse(text);
  } catch {
    return fail('The filter is not valid JSON.', [], 'json_invalid');
  }
  if (Array.isArray(tree)) tree = { and: tree };
  if (tree && typeof tree === 'object' && Object.keys(tree).length === 0) return undefined;
  let leaves = 0;
  const walk = (node: unknown, loc: (string | number)[], depth: number): SQL | undefined => {
    if (depth > MAX_DEPTH) fail(`The filter is nested deeper than ${MAX_DEPTH} levels.`, loc);
    if (!node || typeof node !== 'object' || Array.isArray(node)) return fail('Each filter node must be an object.', loc);
    const keys = Object.keys(node);
    const group = keys.find((k) => k === 'and' || k === 'or' || k === 'not');
    if (group) {
      if (keys.length !== 1) fail(`A '${group}' node takes no other keys.`, loc);
      const children = (node as Record<string, unknown>)[group];
      if (!Array.isArray(children)) return fail(`'${group}' must hold a list of filter nodes.`, [...loc, group]);
      const parts = children.map((c, i) => walk(c, [...loc, group, i], depth + 1)).filter((p): p is SQL => !!p);
      if (parts.length === 0) return undefined;
      if (group === 'and') return and(...parts);
      if (group === 'or') return sameFieldEquals(children, loc) ?? or(...parts);
      return not(and(...parts)!);
    }
    if (++leaves > MAX_LEAVES) fail(`The filter has more than ${MAX_LEAVES} conditions.`, loc);
    return leaf(node as Leaf, loc);
  };
  /**
   * `a == x or a == y` (the client's status toggles) as `a in (x, y)`: the same rows, but PostgreSQL
   * can then read them from one index range instead of OR-ing bitmaps over the table.
   */
  const sameFieldEquals = (children: unknown[], loc: (string | number)[]): SQL | undefined => {
    if (children.length < 2) return undefined;
    const conditions = children as Partial<Leaf>[];
    const first = conditions[0]!;
    const mergeable = conditions.every(
      (c) =>
        Object.keys(c).every((k) => ['model', 'field', 'op', 'value'].includes(k)) &&
        c.op === '==' &&
        c.field === first.field &&
        c.model === first.model &&
        c.value !== null &&
        typeof c.value !== 'object',
    );
    if (!mergeable || typeof first.field !== 'string' || Object.hasOwn(custom, first.field)) return undefined;
    return leaf({ ...first, op: 'in', value: conditions.map((c) => c.value) } as Leaf, loc);
  };
  const leaf = (node: Leaf, loc: (string | number)[]): SQL => {
    const extra = Object.keys(node).filter((k) => !['model', 'field', 'op', 'value'].includes(k));
    if (extra.length) fail(`Unknown key '${extra[0]}' in a filter condition.`, [...loc, extra[0]!]);
    if (typeof node.field !== 'string') fail("A filter condition needs a 'field'.", [...loc, 'field']);
    if (typeof node.op !== 'string') fail("A filter condition needs an 'op'.", [...loc, 'op']);
    if (!(FILTER_OPS as readonly string[]).includes(node.op)) fail(`Unknown filter operator '${node.op}'.`, [...loc, 'op']);
    const name = fieldName(node, model);
    const op = node.op as FilterOp;
    // Own names only: `constructor` or `toString` must not find Object.prototype's.
    const customFilter = Object.hasOwn(custom, name) ? custom[name] : undefined;
    if (customFilter) {
      if (!customFilter.ops.includes(op)) fail(`Operator '${op}' cannot be used on field '${name}'.`, [...loc, 'op']);
      return customFilter.build(op, coerceValue(op, customFilter.type, node.value, name, loc));
    }
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (!field) return fail(`Unknown filter field '${name}'.`, [...loc, 'field']);
    return condition(field, op, coerceValue(op, field.type, node.value, name, loc), name, loc);
  };
  return walk(tree, [], 0);
}

// PostgreSQL text cannot hold NUL (22021); the filter's JSON can write one as \u0000.
const text = z.string().refine((v) => !v.includes('\u0000'), 'Text may not contain the NUL character (\\u0000)');

const scalar = {
  number: z.coerce.number().finite(),
  string: text,
  boolean: z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]),
  date: coercedDate('Invalid date'),
};

/** A LIKE pattern: PostgreSQL refuses one that ends in its escape character (22025). */
const likePattern = text.refine((p) => !/(^|[^\\])(\\\\)*\\$/.test(p), 'A pattern may not end in an unescaped backslash');

function coerceValue(op: FilterOp, type: FilterField['type'], value: unknown, name: string, loc: (string | number)[]): unknown {
  if (op === 'is_null' || op === 'is_not_null') return null;
  const base = type === 'json_array' || type === 'array' ? scalar.string : scalar[type];
  const isPattern = op === 'like' || op === 'ilike' || op === 'not_ilike';
  // A pattern compares text: on a number, date or boolean column PostgreSQL has no LIKE (42883).
  if (isPattern && (type === 'number' || type === 'date' || type === 'boolean'))
    fail(`Operator '${op}' needs a text field; '${name}' is a ${type}.`, [...loc, 'op']);
  const schema = op === 'in' || op === 'not_in' ? z.array(base).max(1000) : isPattern ? likePattern : base;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const expected = op === 'in' || op === 'not_in' ? `a list of ${type} values` : `a ${type === 'json_array' || type === 'array' ? 'string' : type} value`;
    // A refinement (a date out of range, a pattern's trailing backslash) says what is wrong itself.
    const refined = parsed.error.issues.find((i) => i.code === 'custom');
    fail(
      refined ? `Field '${name}' with operator '${op}': ${refined.message}.` : `Field '${name}' with operator '${op}' needs ${expected}.`,
      [...loc, 'value'],
      'type_error',
    );
  }
  return parsed.data;
}

/** A condition on a field another model holds (a relation's filter, server/engine/nested.ts), its value already checked. */
export const filterCondition = (field: FilterField, op: FilterOp, value: unknown) => condition(field, op, value, '', []);

function condition(field: FilterField, op: FilterOp, value: unknown, name: string, loc: (string | number)[]): SQL {
  const c = field.column as PgColumn;
  const isList = field.type === 'json_array' || field.type === 'array';
  if (isList !== (op === 'any' || op === 'not_any') && !['is_null', 'is_not_null'].includes(op)) {
    fail(isList ? `Field '${name}' is a list: use 'any' or 'not_any'.` : `Operator '${op}' needs a list field; '${name}' is not one.`, [...loc, 'op']);
  }
  const contains = field.type === 'json_array' ? sql`${c} ? ${value}` : sql`${value} = any(${c})`;
  switch (op) {
    case '==':
      return eq(c, value);
    case '!=':
      return ne(c, value);
    case '>':
      return gt(c, value);
    case '<':
      return lt(c, value);
    case '>=':
      return gte(c, value);
    case '<=':
      return lte(c, value);
    case 'like':
      return like(c, value as string);
    case 'ilike':
      return ilike(c, value as string);
    case 'not_ilike':
      return notIlike(c, value as string);
    case 'in':
      return anyOf(field.column, value as unknown[]);
    case 'not_in':
      return noneOf(field.column, value as unknown[]);
    case 'any':
      return contains;
    case 'not_any':
      return sql`not coalesce(${contains}, false)`;
    case 'is_null':
      return isNull(c);
    case 'is_not_null':
      return isNotNull(c);
  }
}

export type { DetailItem };
