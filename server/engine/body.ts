import { getTableColumns, type Table } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { createInsertSchema } from 'drizzle-zod';
import { z } from 'zod';
import { flag, ref, requiredRef } from './fields.js';

/** Columns the server keeps itself: never in a request body, for any entity. */
export const SERVER_MANAGED = [
  'id',
  'organization_id',
  'created_at',
  'updated_at',
  'created_by',
  'search',
  'evergreen_last_reminder_at',
  'last_reminder_at',
] as const;
type Managed = (typeof SERVER_MANAGED)[number];

/**
 * The default schema of a column nobody refined, where drizzle-zod's would read worse: an id column
 * is a positive id ("This field is required" when a NOT NULL one is missing), a flag a boolean.
 */
function columnDefault(name: string, column: PgColumn): z.ZodType | undefined {
  if (name.endsWith('_id') && column.dataType === 'number')
    return column.notNull && !column.hasDefault ? requiredRef() : column.notNull ? ref().optional() : ref().nullish();
  if (column.dataType === 'boolean') return column.notNull ? flag().optional() : flag().nullish();
  return undefined;
}

// The body's static type, kept simple (drizzle-zod's own types are too deep for the compiler here):
// a refinement's type where given, otherwise the column's insert type, optional where the column is.
type Insert<T extends Table> = T['$inferInsert'];
type OptionalKeys<X> = { [K in keyof X]-?: undefined extends X[K] ? K : never }[keyof X];
type ColumnSchema<X, K extends keyof X> = K extends OptionalKeys<X> ? z.ZodOptional<z.ZodType<X[K]>> : z.ZodType<X[K]>;
type Shape<T extends Table, R, O extends string> = {
  [K in Exclude<keyof Insert<T> & string, Managed | O>]: K extends keyof R ? R[K] : ColumnSchema<Insert<T>, K>;
};

/**
 * A create body derived from the table: one entry per column but the server-managed ones and the
 * definition's `readOnly` columns (set by its hooks, e.g. an incident's name), each a refinement
 * when given (the builders of fields.ts, so messages read the same everywhere), otherwise the
 * column's default. `extra` adds fields that are not columns (a list of tag ids). Unknown fields
 * are refused.
 */
export function bodyOf<T extends Table, R extends Record<string, z.ZodType>, O extends string = never, E extends z.ZodRawShape = Record<never, never>>(
  table: T,
  refine: R,
  options: { readOnly?: readonly O[]; extra?: E } = {},
) {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const skip = new Set<string>([...SERVER_MANAGED, ...(options.readOnly ?? [])]);
  for (const name of [...Object.keys(refine), ...(options.readOnly ?? [])]) {
    if (!columns[name]) throw new Error(`${name} is not a column of this table (a virtual field goes in extra).`);
  }
  const defaults = Object.fromEntries(
    Object.entries(columns)
      .filter(([name]) => !(name in refine))
      .map(([name, column]) => [name, columnDefault(name, column)])
      .filter(([, schema]) => schema),
  );
  const base = createInsertSchema(table, { ...defaults, ...refine } as never) as unknown as z.ZodObject;
  const shape = Object.fromEntries(Object.entries(base.shape).filter(([name]) => !skip.has(name)));
  return z.strictObject({ ...shape, ...options.extra }) as unknown as z.ZodObject<Shape<T, R, O> & E, z.core.$strict>;
}
