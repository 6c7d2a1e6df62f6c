import { is, SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import fastJson from 'fast-json-stringify';
import type { AnsweredReference } from './nested.js';

type JsonSchema = Record<string, unknown>;

/**
 * The JSON type of a column's answered value where it is certain (what its decoder gives on both
 * drivers); anything else (numeric, json, arrays, computed values) is left to JSON.stringify.
 */
const TYPED: Record<string, string> = {
  PgText: 'string',
  PgVarchar: 'string',
  PgChar: 'string',
  PgEnumColumn: 'string',
  PgUUID: 'string',
  // A timestamp comes as its ISO text (isoTimestamp) or a Date, which a string field prints as JSON does.
  PgTimestamp: 'string',
  PgTimestampString: 'string',
  PgDateString: 'string',
  PgInteger: 'integer',
  PgSerial: 'integer',
  PgSmallInt: 'integer',
  PgSmallSerial: 'integer',
  PgBoolean: 'boolean',
};

function fieldSchema(field: PgColumn | SQL | SQL.Aliased): JsonSchema {
  if (is(field, SQL) || is(field, SQL.Aliased)) return {};
  const type = TYPED[field.columnType];
  if (!type) return {};
  // Null allowed even where the column is NOT NULL: a typed field would print null as 0, "" or false.
  return { type: [type, 'null'] };
}

/**
 * A list page's answer written by a serializer compiled from the record's fields
 * (fast-json-stringify), not by JSON.stringify walking every value: half the Node time of a page's
 * serialization. The text is JSON.stringify's (same keys, same order, same values); a key the
 * schema does not name is still written (additionalProperties), so a computed value is never lost.
 */
export function pageSerializer(selection: Record<string, PgColumn | SQL | SQL.Aliased>, nested: readonly AnsweredReference[]): (page: unknown) => string {
  const properties: Record<string, JsonSchema> = {};
  for (const [key, field] of Object.entries(selection)) properties[key] = fieldSchema(field);
  // A nested reference: null, `{id}` (a row the caller may not see) or `{id, <name>}`.
  for (const a of nested) {
    properties[a.key] = { type: ['object', 'null'], properties: { id: {}, [a.nameKey]: {} }, additionalProperties: true };
  }
  return fastJson({
    type: 'object',
    properties: {
      items: { type: 'array', items: { type: 'object', properties, additionalProperties: true } },
      total: { type: 'integer' },
      totalCapped: { type: 'boolean' },
      itemsPerPage: { type: 'integer' },
      page: { type: 'integer' },
    },
    additionalProperties: true,
  }) as (page: unknown) => string;
}
