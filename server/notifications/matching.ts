import { and, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { cases, incidents } from '../incidents/tables.js';
import { HttpError, invalid } from '../core/errors.js';
import { columnType, compileFilter, type FilterField } from '../engine/filters.js';
import { readableFields } from '../engine/list-query.js';
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
    compiled = compileFilter(JSON.stringify(expression), target.model, fields, def?.customFilters);
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    throw new HttpError(422, err.detail.map((d) => ({ ...d, loc: ['body', 'expression', ...d.loc.slice(2)] })));
  }
  if (!compiled) throw invalid('The expression has no conditions.', ['body', 'expression'], 'filter_error');
  return compiled;
}

export interface SavedFilter {
  id: number;
  subject: FilterSubject;
  expression: unknown;
  updated_at: Date;
}

/**
 * Compiled conditions by filter id. An entry is reused while the filter's `updated_at` is the one it
 * was compiled from (every write through the API moves it), so an edited filter is compiled again on
 * its next event and an unchanged one never is. A filter that no longer compiles (its field was
 * removed) is kept as null: it matches nothing.
 */
const compiledFilters = new Map<number, { stamp: number; subject: FilterSubject; condition: SQL | null }>();

export function compiledCondition(ctx: RequestContext, filter: SavedFilter): SQL | null {
  const stamp = filter.updated_at.getTime();
  const cached = compiledFilters.get(filter.id);
  if (cached && cached.stamp === stamp && cached.subject === filter.subject) return cached.condition;
  let condition: SQL | null;
  try {
    condition = compileExpression(ctx, filter.subject, filter.expression);
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    condition = null;
  }
  compiledFilters.set(filter.id, { stamp, subject: filter.subject, condition });
  return condition;
}

/** Drops a filter's compiled condition (it was changed or deleted). */
export function forgetFilter(id: number) {
  compiledFilters.delete(id);
}

/**
 * Which of `filters` match one incident or case: one statement for all of them, each filter's
 * condition a `case when` in one array over the record's row. Also returns the record's project.
 */
export async function matchRecord(ctx: RequestContext, subject: FilterSubject, recordId: number, filters: SavedFilter[]) {
  const { table } = subjects[subject];
  const arms: SQL[] = [];
  for (const f of filters) {
    const condition = f.subject === subject ? compiledCondition(ctx, f) : null;
    if (condition) arms.push(sql`case when ${condition} then ${sql.raw(String(Math.trunc(f.id)))} end`);
  }
  const matched = arms.length ? sql`array_remove(array[${sql.join(arms, sql`, `)}]::int[], null)` : sql`'{}'::int[]`;
  const [row] = await (ctx.tx as Tx)
    .select({ project_id: table.project_id, matched: sql<number[]>`${matched}` })
    .from(table)
    .where(and(eq(table.organization_id, ctx.orgId), eq(table.id, recordId)));
  if (!row) return null;
  return { project_id: row.project_id, matched: new Set((row.matched ?? []).map(Number)) };
}
