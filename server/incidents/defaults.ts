import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { RequestContext } from '../core/context.js';
import { projects } from '../core/db/projects.js';
import { notVisitorsProject } from '../projects/resources.js';
import { invalid } from '../core/errors.js';

type Setting = PgTable & { id: PgColumn; organization_id: PgColumn; project_id: PgColumn; enabled: PgColumn; default: PgColumn };
type TypeTable = PgTable & { id: PgColumn; organization_id: PgColumn; visibility: PgColumn };

/**
 * The ids among `ids` of types whose visibility is Restricted (incident_types, case_types). A record
 * created with such a type, or retyped to it, is Restricted whatever the caller sent: the type says
 * "only participants see it", and no path (form, API, escalation, signals) may leave it Open.
 */
export async function restrictedTypes(ctx: RequestContext, table: TypeTable, ids: (number | null | undefined)[]): Promise<Set<number>> {
  const wanted = [...new Set(ids.filter((id): id is number => typeof id === 'number'))];
  if (!wanted.length) return new Set();
  const rows = await ctx.tx
    .select({ id: table.id })
    .from(table as PgTable)
    .where(and(eq(table.organization_id, ctx.orgId), inArray(table.id, wanted), eq(table.visibility, 'Restricted')));
  return new Set(rows.map((r) => r.id as number));
}

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
  const [first] = await ctx.tx
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.organization_id, ctx.orgId), notVisitorsProject(ctx.orgId)))
    .orderBy(asc(projects.id))
    .limit(1);
  if (!first) throw invalid('Create a project first: there is none to put this in.', ['body', 'project_id'], 'missing');
  return { ...input, project_id: first.id };
}
