import { and, eq, getTableColumns, ne, sql } from 'drizzle-orm';
import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import { invalid } from '../core/errors.js';
import { linkedRows, ownRows } from './visibility.js';
import { z } from 'zod';
import type { FieldMeta, ResourceDefinition } from './define.js';
import type { RequestContext } from '../core/context.js';
import { color, email, ref, requiredText, text } from './fields.js';

/** Every column a filter or sortBy may name: all but organization_id. */
export function fieldsOf(table: PgTable, except: string[] = []): string[] {
  return Object.keys(getTableColumns(table)).filter((name) => name !== 'organization_id' && name !== 'id' && !except.includes(name));
}

export const order = () => z.number().int().min(0).max(10_000);
export const hours = () =>
  z
    .number()
    .int()
    .min(0)
    .max(24 * 366);
export const json = () => z.array(z.unknown()).max(500);
export const idList = () => z.array(ref()).max(500);
/** The project of a body written by hand (bodyOf adds it from the table by itself). */
export const projectField = { project_id: ref().nullish() };

/** The refined fields of a priority or severity (name, description, color, view_order; flags and project by default). */
export const rankFields = {
  name: requiredText(100),
  description: text(2000),
  color: color().nullish(),
  view_order: order().optional(),
};

/** Owner reminded every interval (days) to review the object. */
export const evergreenFields = {
  evergreen_owner: email().nullish(),
  evergreen_reminder_interval: z.number().int().min(1).max(3650).optional(),
};

/** How the evergreen fields read in the admin app. */
export const evergreenMeta = {
  evergreen: { label: 'Remind the owner to review it', list: false },
  evergreen_owner: { label: 'Review owner', kind: 'email', list: false },
  evergreen_reminder_interval: { label: 'Review every (days)', list: false },
} satisfies Record<string, FieldMeta>;

/**
 * Hooks that keep at most one row per project with `default` set: saving a new default clears the
 * flag on the others, as a user ticking "default" on a priority expects.
 */
export function oneDefault(table: PgTable): NonNullable<ResourceDefinition['hooks']> {
  const c = getTableColumns(table) as Record<string, PgColumn>;
  const clear = async (ctx: RequestContext, projectId: unknown, exceptId?: number) => {
    const where = and(
      eq(c.organization_id!, ctx.orgId),
      eq(c.default!, true),
      sql`${c.project_id!} is not distinct from ${projectId ?? null}::integer`,
      exceptId ? ne(c.id!, exceptId) : undefined,
    );
    await ctx.tx
      .update(table)
      .set({ default: false, updated_at: sql`now()` } as never)
      .where(where);
  };
  return {
    async beforeCreate(ctx, data) {
      if (data.default === true) await clear(ctx, data.project_id);
      return data;
    },
    async beforeUpdate(ctx, id, data) {
      if (data.default !== true) return data;
      const [row] = await ctx.tx
        .select({ project_id: c.project_id! })
        .from(table)
        .where(and(eq(c.id!, id), eq(c.organization_id!, ctx.orgId)));
      if (row) await clear(ctx, data.project_id !== undefined ? data.project_id : row.project_id, id);
      return data;
    },
  };
}

/** An ISO date-time in the body, stored as a timestamp. */
export const datetime = () =>
  z.iso
    .datetime({ offset: true, error: 'Must be an ISO date-time like 2026-01-31T09:00:00Z' })
    .transform((s) => new Date(s))
    .nullish();

/**
 * Hooks that stamp a flag's time: turning `sent` on sets `sent_at` to now (unless the body gives it),
 * turning it off clears it. Pairs are flag -> timestamp column.
 */
export function stampFlags(table: PgTable, pairs: Record<string, string>): NonNullable<ResourceDefinition['hooks']> {
  const c = getTableColumns(table) as Record<string, PgColumn>;
  const stamp = (data: Record<string, unknown>, was: Record<string, unknown>) => {
    for (const [flagName, at] of Object.entries(pairs)) {
      if (data[flagName] === undefined || data[at] !== undefined) continue;
      if (data[flagName] === false) data[at] = null;
      else if (!was[flagName]) data[at] = new Date();
    }
    return data;
  };
  return {
    beforeCreate: (_ctx, data) => stamp({ ...data }, {}),
    async beforeUpdate(ctx, id, data) {
      if (!Object.keys(pairs).some((f) => data[f] !== undefined)) return data;
      const selection = Object.fromEntries(Object.keys(pairs).map((f) => [f, c[f]!]));
      const [row] = await ctx.tx
        .select(selection)
        .from(table)
        .where(and(eq(c.id!, id), eq(c.organization_id!, ctx.orgId)));
      return stamp({ ...data }, row ?? {});
    },
  };
}

/**
 * A body id that must name a row the caller may see: of the caller's organization, and for incidents,
 * cases and their rows (participants...) one the domains' visibility rules let the caller see.
 */
export async function mustExist(ctx: RequestContext, table: PgTable & { id: PgColumn; organization_id: PgColumn }, id: unknown, label: string, field: string) {
  if (id === undefined || id === null) return;
  const visible = ownRows(ctx, table) ?? and(eq(table.organization_id, ctx.orgId), linkedRows(ctx, table));
  const [hit] = await ctx.tx
    .select({ id: table.id })
    .from(table)
    .where(and(eq(table.id, id), visible))
    .limit(1);
  if (!hit) throw invalid(`${label} '${String(id)}' could not be found.`, ['body', field], 'not_found');
}

/**
 * A column of the outer row, always qualified by its table name: inside a correlated subquery in a
 * select list, Drizzle writes columns bare, and a bare name would bind to the subquery's own table.
 */
export const outer = (table: PgTable, column: string) => sql`${sql.identifier(getTableConfig(table).name)}.${sql.identifier(column)}`;

/**
 * The records of `table` whose list of ids `column` (JSON) names the outer row of `owner`, the side
 * that does not hold the link (a term's definitions), answered as the spec's `[{"id", <name>}]`.
 */
export const linkedFrom = (owner: PgTable, table: PgTable, column: string, name: string) =>
  sql`(select coalesce(jsonb_agg(jsonb_build_object('id', x.id, ${name}::text, x.${sql.identifier(name)}) order by x.id), '[]'::jsonb) from ${table} x
    where x.organization_id = ${outer(owner, 'organization_id')} and x.${sql.identifier(column)} @> jsonb_build_array(${outer(owner, 'id')}))`;

type Hooks = NonNullable<ResourceDefinition['hooks']>;

/** Runs the before-create and before-update hooks of several helpers one after another. */
export function chainHooks(...list: Hooks[]): Hooks {
  return {
    async beforeCreate(ctx, data) {
      for (const h of list) if (h.beforeCreate) data = await h.beforeCreate(ctx, data);
      return data;
    },
    async beforeUpdate(ctx, id, data) {
      for (const h of list) if (h.beforeUpdate) data = await h.beforeUpdate(ctx, id, data);
      return data;
    },
  };
}

/** `<name>` of the row `column` points at, as a correlated lookup inside the list query (no N+1). */
export const nameOf = (table: { organization_id: never; id: never; name: never }, parent: { organization_id: never }, column: unknown) =>
  sql<string | null>`(select ${table.name} from ${table as never} where ${table.organization_id} = ${parent.organization_id} and ${table.id} = ${column})`;
