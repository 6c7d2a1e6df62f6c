import { sql } from 'drizzle-orm';
import { boolean, ExtraConfigColumn, foreignKey, index, integer, text, timestamp, unique, type IndexBuilderOn, type PgColumn } from 'drizzle-orm/pg-core';

type IndexPart = Parameters<IndexBuilderOn['on']>[number];
import { tenantPolicy } from './columns.js';
import { projects } from './projects.js';

/** Columns of an "evergreen" object: its owner is reminded every `interval` days to review it. */
export const evergreenColumns = () => ({
  evergreen: boolean().notNull().default(false),
  evergreen_owner: text(),
  evergreen_reminder_interval: integer().notNull().default(90),
  evergreen_last_reminder_at: timestamp({ withTimezone: true }),
});

/** A foreign key from (organization_id, column) to the parent's (organization_id, id): never across tenants. */
export function tenantFk(name: string, organizationId: PgColumn, column: PgColumn, parent: { organization_id: PgColumn; id: PgColumn }) {
  return foreignKey({ name, columns: [organizationId, column], foreignColumns: [parent.organization_id, parent.id] });
}

/**
 * What every tenant table of the catalog shares: unique (organization_id, id) for composite foreign
 * keys, the row level security policy, the project foreign key, and an index for its default sort.
 */
export function tenantExtras(table: string, t: { organization_id: PgColumn; id: PgColumn; project_id?: PgColumn }, sortColumns: IndexPart[] = []) {
  return [
    unique(`${table}_org_id_unique`).on(t.organization_id, t.id),
    ...(t.project_id ? [tenantFk(`${table}_project_fk`, t.organization_id, t.project_id, projects).onDelete('cascade')] : []),
    ...(sortColumns.length ? [index(`${table}_org_sort_idx`).on(t.organization_id, ...(sortColumns.map(sortKey) as [IndexPart, ...IndexPart[]]), t.id)] : []),
    tenantPolicy(table),
  ];
}

/** Text sorts run on lower(x) collate "C" (server/engine/list-query.ts textSortKey); the index uses the same. */
const sortKey = (c: IndexPart): IndexPart => ((c as PgColumn).dataType === 'string' ? sql`lower(${c}) collate "C"` : c);

/** Trigram index for `q` search on a text column (pg_trgm, btree_gin from the setup migration). */
export const trigram = (table: string, organizationId: PgColumn, column: ExtraConfigColumn) =>
  index(`${table}_org_${column.name}_trgm_idx`).using('gin', organizationId, column.op('gin_trgm_ops'));

/** The values of a text enum as an SQL list, for a check constraint (`status in (...)`). */
export const inList = (values: readonly string[]) => sql.raw(values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', '));
