import { and, asc, eq, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { RequestContext } from '../core/context.js';
import { projects } from '../core/db/projects.js';
import { invalid } from '../core/errors.js';

type Setting = PgTable & { id: PgColumn; organization_id: PgColumn; project_id: PgColumn; enabled: PgColumn; default: PgColumn };

/**
 * The id of the enabled item marked default among an organization's settings (types, priorities,
 * severities): the project's own first, then an organization-wide one, then any project's (the
 * seeded ones live in the default project); undefined when none is marked.
 */
export async function defaultSetting(ctx: RequestContext, table: Setting, projectId: number | null | undefined): Promise<number | undefined> {
  const [row] = await ctx.tx
    .select({ id: table.id })
    .from(table as PgTable)
    .where(and(eq(table.organization_id, ctx.orgId), eq(table.enabled, true), eq(table.default, true)))
    .orderBy(sql`case when ${table.project_id} = ${projectId ?? null}::integer then 0 when ${table.project_id} is null then 1 else 2 end`, asc(table.id))
    .limit(1);
  return row?.id as number | undefined;
}

/** Fills each field left out of a create (undefined, not null) with its setting's default. */
export async function withDefaults<T extends Record<string, unknown>>(
  ctx: RequestContext,
  input: T,
  fields: Record<string, Setting>,
  projectId: number | null | undefined,
): Promise<T> {
  const filled: Record<string, unknown> = { ...input };
  for (const [field, table] of Object.entries(fields)) {
    if (filled[field] === undefined) {
      const id = await defaultSetting(ctx, table, projectId);
      if (id !== undefined) filled[field] = id;
    }
  }
  return filled as T;
}

/**
 * A create that names no project goes to the organization's first project (every organization starts
 * with one, "Default"), so a first report needs nothing made beforehand.
 */
export async function withProject<T extends { project_id?: number | null }>(ctx: RequestContext, input: T): Promise<T & { project_id: number }> {
  if (input.project_id != null) return input as T & { project_id: number };
  const [first] = await ctx.tx.select({ id: projects.id }).from(projects).where(eq(projects.organization_id, ctx.orgId)).orderBy(asc(projects.id)).limit(1);
  if (!first) throw invalid('Create a project first: there is none to put this in.', ['body', 'project_id'], 'missing');
  return { ...input, project_id: first.id };
}
