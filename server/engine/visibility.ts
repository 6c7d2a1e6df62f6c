import { and, getTableColumns, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import type { RequestContext } from '../core/context.js';

/**
 * The organization a rule's condition is read in: the caller's id, the placeholder of a statement
 * shared by organizations, or (inside a nested reference's lookup) the referenced row's own column,
 * so the condition holds for every organization a shared statement runs for.
 */
export type OrgValue = number | Placeholder | SQL;

/**
 * Which rows a caller may see beyond their organization, as a domain decides it (restricted incidents
 * and cases hide their own rows and the rows that belong to them). The engine applies every registered
 * rule to lists, reads, writes, body references and the names of nested references without knowing
 * the domains.
 */
export interface RowVisibility {
  /**
   * The table whose rows this rule hides (incidents); rows of such a table keep their own visibility
   * only, never a linked one (a case linked to a restricted incident stays the case's own business).
   */
  owns?: PgTable;
  /** A table's own condition (e.g. restricted incidents), or undefined where the rule says nothing. `org` as in linked (default: the caller's). */
  own(ctx: RequestContext, table: PgTable, org?: OrgValue): SQL | undefined;
  /** A condition from the rows a table's rows belong to (a task of a restricted incident), or undefined. */
  linked(ctx: RequestContext, table: PgTable, org: OrgValue): SQL | undefined;
  /**
   * Optional: callers with the same key get the same conditions from this rule (a role's rights), so
   * whether it hides a table's rows is worked out once per key (hidesRows runs on every list request).
   */
  callerKey?(ctx: RequestContext): string;
}

const rules: RowVisibility[] = [];
/** hidesRows' answers per table and caller key, forgotten when a rule is registered. */
let hiding = new WeakMap<PgTable, Map<string, boolean>>();

/** Registers a rule (the app does, once per domain that has one). */
export function registerRowVisibility(rule: RowVisibility) {
  if (!rules.includes(rule)) rules.push(rule);
  hiding = new WeakMap();
}

export function ownRows(ctx: RequestContext, table: PgTable, org?: OrgValue): SQL | undefined {
  const parts = rules.map((r) => r.own(ctx, table, org)).filter((p): p is SQL => p !== undefined);
  return parts.length ? and(...parts) : undefined;
}

/**
 * A row that belongs to a hidden record (an `incident_id` or `case_id` column: tasks, feedback, forms,
 * participants...) is visible only where that record is, by every rule; undefined when that hides
 * nothing. `org` as in RowVisibility.own.
 */
export function linkedRows(ctx: RequestContext, table: PgTable, org: OrgValue = ctx.orgId): SQL | undefined {
  if (rules.some((r) => r.owns === table)) return undefined;
  const parts = rules.map((r) => r.linked(ctx, table, org)).filter((p): p is SQL => p !== undefined);
  return parts.length ? and(...parts) : undefined;
}

/** Every rule's condition on `table`'s rows (written against the table by its own name), or undefined when the caller sees them all. */
export function visibleRows(ctx: RequestContext, table: PgTable, org: OrgValue = ctx.orgId): SQL | undefined {
  const parts = [ownRows(ctx, table, org), linkedRows(ctx, table, org)].filter((p): p is SQL => p !== undefined);
  return parts.length ? and(...parts) : undefined;
}

/** `compute`'s answer for the caller, remembered per table and caller key where every rule has one (RowVisibility.callerKey). */
function perCaller(kind: string, ctx: RequestContext, table: PgTable, compute: () => boolean): boolean {
  let key = kind;
  for (const rule of rules) {
    if (!rule.callerKey) return compute();
    key += `\u0000${rule.callerKey(ctx)}`;
  }
  let byKey = hiding.get(table);
  if (!byKey) hiding.set(table, (byKey = new Map()));
  let answer = byKey.get(key);
  if (answer === undefined) byKey.set(key, (answer = compute()));
  return answer;
}

/**
 * Whether any rule hides some of `table`'s rows from the caller (a statement cache key, asked on
 * every list request: building the conditions to find out cost more than the rest of the request's
 * own work, so the answer is remembered per caller key).
 */
export const hidesRows = (ctx: RequestContext, table: PgTable) => perCaller('rows', ctx, table, () => visibleRows(ctx, table) !== undefined);

/** Whether the rows `table`'s rows belong to hide some of them from the caller (linkedRows is not undefined), remembered as hidesRows. */
export const hidesLinkedRows = (ctx: RequestContext, table: PgTable) => perCaller('linked', ctx, table, () => linkedRows(ctx, table) !== undefined);

/**
 * For a rule's `linked`: "the row's `column` is null or names a `parent` row that `parentRows` lets
 * through", or undefined when `table` has no such column.
 */
export function throughParent(table: PgTable, column: string, parent: PgTable & { id: PgColumn }, parentRows: SQL): SQL | undefined {
  if (!(getTableColumns(table) as Record<string, PgColumn>)[column]) return undefined;
  // Qualified by the table's name: bare, the column would bind to the subquery's own table.
  const own = sql`${sql.identifier(getTableConfig(table).name)}.${sql.identifier(column)}`;
  return sql`(${own} is null or exists (select 1 from ${parent} where ${parent.id} = ${own} and ${parentRows}))`;
}
