import { Column, is, SQL, type Query } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Tx } from './client.js';

type Decoder = { mapFromDriverValue(value: unknown): unknown };

/**
 * A select turned into SQL text once, to be run again on any transaction with new values for its
 * `sql.placeholder`s. Building and rendering a drizzle query costs more Node CPU than PostgreSQL
 * spends on a page of a list (bench/README.md, list path), so hot statements are compiled per shape.
 */
export interface CompiledSelect {
  query: Query;
  /** Result keys, in select-list order, and how each column's driver value becomes the API's. */
  keys: string[];
  decoders: Decoder[];
}

/** `builder` must select `selection` (a flat record of columns and aliased expressions) first. */
export function compileSelect(builder: { toSQL(): Query }, selection: Record<string, PgColumn | SQL | SQL.Aliased>): CompiledSelect {
  const keys = Object.keys(selection);
  const decoders = keys.map((key): Decoder => {
    const field = selection[key]!;
    if (is(field, Column)) return field;
    // An expression's decoder (sql<T>`...`.mapWith(...)) is drizzle-internal in its types.
    return ((is(field, SQL) ? field : field.sql) as unknown as { decoder: Decoder }).decoder;
  });
  return { query: builder.toSQL(), keys, decoders };
}

/**
 * Runs a compiled select in `tx` (prepared, on its connection) with the placeholders' values; rows come
 * back as arrays in select-list order (decodeRow makes a record of one). Columns the builder selected
 * after `selection`'s are left for the caller.
 */
export function runCompiledRows(tx: Tx, compiled: CompiledSelect, values: Record<string, unknown>): Promise<unknown[][]> {
  return tx._.session.prepareQuery(compiled.query, undefined, undefined, true, (rows: unknown[][]) => rows).execute(values) as Promise<unknown[][]>;
}

/** One row of runCompiledRows as the API's record: `selection`'s keys, each value decoded. */
export function decodeRow({ keys, decoders }: CompiledSelect, row: unknown[]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) record[keys[i]!] = row[i] === null ? null : decoders[i]!.mapFromDriverValue(row[i]);
  return record;
}

/** A bounded map of compiled statements: the oldest entry goes once `max` are held. */
export class StatementCache<T> {
  private readonly entries = new Map<string, T>();
  constructor(private readonly max: number) {}

  get(key: string, build: () => T): T {
    let value = this.entries.get(key);
    if (value === undefined) {
      value = build();
      if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, value);
    }
    return value;
  }

  get size() {
    return this.entries.size;
  }
}
