import { and, type Placeholder, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { RequestContext } from '../core/context.js';

/**
 * Which rows a caller may see beyond their organization, as a domain decides it (restricted incidents
 * and cases hide their own rows and the rows that belong to them). The engine applies every registered
 * rule to lists, reads, writes and body references without knowing the domains.
 */
export interface RowVisibility {
  /** A table's own condition (e.g. restricted incidents), or undefined where the rule says nothing. */
  own(ctx: RequestContext, table: PgTable): SQL | undefined;
  /** A condition from the rows a table's rows belong to (a task of a restricted incident), or undefined. */
  linked(ctx: RequestContext, table: PgTable, org: number | Placeholder): SQL | undefined;
}

const rules: RowVisibility[] = [];

/** Registers a rule (the app does, once per domain that has one). */
export function registerRowVisibility(rule: RowVisibility) {
  if (!rules.includes(rule)) rules.push(rule);
}

export function ownRows(ctx: RequestContext, table: PgTable): SQL | undefined {
  const parts = rules.map((r) => r.own(ctx, table)).filter((p): p is SQL => p !== undefined);
  return parts.length ? and(...parts) : undefined;
}

export function linkedRows(ctx: RequestContext, table: PgTable, org: number | Placeholder = ctx.orgId): SQL | undefined {
  const parts = rules.map((r) => r.linked(ctx, table, org)).filter((p): p is SQL => p !== undefined);
  return parts.length ? and(...parts) : undefined;
}
