import { LRUCache } from 'lru-cache';
import { Column, is, SQL, type Query } from 'drizzle-orm';
import { PgTimestamp, type PgColumn } from 'drizzle-orm/pg-core';
import type { Tx } from '../core/db/client.js';
import { nestRecord, type AnsweredReference } from './nested.js';

type Decoder = { mapFromDriverValue(value: unknown): unknown };

/**
 * A select turned into SQL text once, to be run again on any transaction with new values for its
 * `sql.placeholder`s. Building and rendering a drizzle query costs more Node CPU than PostgreSQL
 * spends on a page of a list (bench/README.md, list path), so hot statements are compiled per shape.
 */
export interface CompiledSelect {
  query: Query;
  /**
   * Result keys, in select-list order, and how each column's driver value becomes the API's: what
   * JSON.stringify makes of the column's own value (a timestamp may come as its ISO text, not a Date).
   */
  keys: string[];
  decoders: Decoder[];
  /** References made `{id, name}` after decoding (server/engine/nested.ts). */
  nested: readonly AnsweredReference[];
}

/** `builder` must select `selection` (a flat record of columns and aliased expressions) first. */
export function compileSelect(
  builder: { toSQL(): Query },
  selection: Record<string, PgColumn | SQL | SQL.Aliased>,
  nested: readonly AnsweredReference[] = [],
): CompiledSelect {
  const keys = Object.keys(selection);
  const decoders = keys.map((key): Decoder => {
    const field = selection[key]!;
    if (is(field, PgTimestamp) && field.withTimezone) return isoTimestamp(field);
    if (is(field, Column)) return field;
    // An expression's decoder (sql<T>`...`.mapWith(...)) is drizzle-internal in its types.
    return ((is(field, SQL) ? field : field.sql) as unknown as { decoder: Decoder }).decoder;
  });
  return { query: builder.toSQL(), keys, decoders, nested };
}

/**
 * A timestamptz as PostgreSQL writes it in UTC ('2026-03-01 12:34:56.123456+00') goes straight to the
 * text a Date would give in JSON ('2026-03-01T12:34:56.123Z'): making the Date and printing it again
 * was a tenth of a list page's Node time. Any other form (another session time zone, a year past 9999,
 * BC) takes the column's own decoder.
 */
function isoTimestamp(column: Decoder): Decoder {
  return {
    mapFromDriverValue(value) {
      if (typeof value !== 'string' || value.length < 22 || value[10] !== ' ' || !value.endsWith('+00') || (value.length > 22 && value[19] !== '.')) {
        return column.mapFromDriverValue(value);
      }
      return `${value.slice(0, 10)}T${value.slice(11, 19)}.${`${value.slice(20, -3)}000`.slice(0, 3)}Z`;
    },
  };
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
export function decodeRow({ keys, decoders, nested }: CompiledSelect, row: unknown[]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) record[keys[i]!] = row[i] === null ? null : decoders[i]!.mapFromDriverValue(row[i]);
  return nested.length ? nestRecord(nested, record) : record;
}

/** A bounded map of compiled statements: the least recently used goes once `max` are held. */
export class StatementCache<T extends NonNullable<unknown>> {
  private readonly entries: LRUCache<string, T>;
  constructor(max: number) {
    this.entries = new LRUCache({ max });
  }

  get(key: string, build: () => T): T {
    let value = this.entries.get(key);
    if (value === undefined) this.entries.set(key, (value = build()));
    return value;
  }

  get size() {
    return this.entries.size;
  }
}
