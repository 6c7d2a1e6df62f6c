import { Column, getTableColumns, is } from 'drizzle-orm';
import type { ResourceDefinition } from './define.js';
import type { PgTable } from 'drizzle-orm/pg-core';
import { recordJsonSchema, tableJsonSchema } from './nested.js';

/**
 * What routes answer, for the OpenAPI document (/api/v1/docs/json). The schemas are documentation
 * only: the serializer does not see them, so a schema that lists fewer fields than a handler returns
 * loses nothing from the answer.
 */
export type JsonSchema = Record<string, unknown>;
/**
 * A schema, or one made when the document is (a record's schema needs every definition registered,
 * and its relations are cached once built).
 */
export type Schema = JsonSchema | (() => JsonSchema);

/** The schema with every deferred part made. */
function made(value: unknown): unknown {
  if (typeof value === 'function') return made((value as () => unknown)());
  if (Array.isArray(value)) return value.map(made);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, made(v)]));
  return value;
}

/** The route schema key holding a route's answers for the OpenAPI document only (see documentResponses). */
export const RESPONSE_DOC = 'x-response-doc';

/** Every 4xx and 5xx: `{"detail": [...]}` (server/core/errors.ts). */
const errorAnswer: JsonSchema = {
  description: 'An error: what went wrong, and where (loc) in the request',
  type: 'object',
  properties: {
    detail: {
      type: 'array',
      items: {
        type: 'object',
        properties: { msg: { type: 'string' }, loc: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] } }, type: { type: 'string' } },
        required: ['msg', 'loc', 'type'],
      },
    },
  },
  required: ['detail'],
};

/** For fastify-swagger's transform: a route's documented answers become its `response`, with the error shape. */
export function documentResponses<T extends { schema: Record<string, unknown> }>(transformed: T): T {
  const doc = transformed.schema?.[RESPONSE_DOC] as Record<string, Schema | null> | undefined;
  if (!doc) return transformed;
  const { [RESPONSE_DOC]: _doc, ...schema } = transformed.schema;
  const documented = Object.entries(doc).map(([status, s]) => [
    status,
    s
      ? { description: 'The answer', ...(made(s) as JsonSchema) }
      : { description: status.startsWith('3') ? 'A redirect (Location)' : 'No content', type: 'null' },
  ]);
  return {
    ...transformed,
    schema: { ...schema, response: { ...(schema.response as object), ...Object.fromEntries(documented), '4XX': errorAnswer, '5XX': errorAnswer } },
  };
}

/** A route's answers by status (null: no body), to spread into its schema. */
export const answersBy = (byStatus: Record<number, Schema | null>): Record<string, unknown> => ({ [RESPONSE_DOC]: byStatus });
/** A route's successful answer, to spread into its schema: `...answers(201, schema)`. */
export const answers = (status: number, schema: Schema | null): Record<string, unknown> => answersBy({ [status]: schema });
/** The route answers one record of `def`, as its CRUD routes do; `more` names what the route adds to it. */
export const recordAnswer = (def: ResourceDefinition, status = 200, more: Record<string, Schema> = {}) => answers(status, recordWith(def, more));

/** `def`'s record schema with more properties (what a route nests in the record). */
export function recordWith(def: ResourceDefinition, more: Record<string, Schema> = {}): Schema {
  return () => {
    const record = recordJsonSchema(def);
    return { ...record, properties: { ...(record.properties as object), ...more } };
  };
}

/** A row of `table` as a route answers it, every column (a table no resource definition covers). */
export const rowOf = (table: PgTable): JsonSchema => tableJsonSchema(table);
/** A row of `table` with more properties (what a route adds to it). */
export function rowWith(table: PgTable, more: Record<string, Schema>): JsonSchema {
  const row = rowOf(table);
  return { ...row, properties: { ...(row.properties as object), ...more } };
}
/**
 * What a select answers: each column of `selection` (a Drizzle selection, keys as the route names
 * them) as its table's row has it; an entry that is not a column is the schema of a value computed there.
 */
export function selectionOf(selection: Record<string, Column | Schema>): JsonSchema {
  const properties = Object.fromEntries(
    Object.entries(selection).map(([key, value]) => {
      if (!is(value, Column)) return [key, value];
      const table = value.table as PgTable;
      const name = Object.entries(getTableColumns(table)).find(([, c]) => c === value)![0];
      return [key, (rowOf(table).properties as Record<string, JsonSchema>)[name]];
    }),
  );
  return { type: 'object', properties };
}
/** `def`'s record schema, to nest in an answer. */
export const recordOf =
  (def: ResourceDefinition): Schema =>
  () =>
    recordJsonSchema(def);

// Shorthands for the schemas of action answers.
export const str: JsonSchema = { type: 'string' };
export const nullableStr: JsonSchema = { type: 'string', nullable: true };
export const int: JsonSchema = { type: 'integer' };
export const num: JsonSchema = { type: 'number' };
export const bool: JsonSchema = { type: 'boolean' };
export const arrayOf = (items: Schema): JsonSchema => ({ type: 'array', items });
/** An object with these properties, all of them present. */
export const objectOf = (properties: Record<string, Schema>, description?: string): JsonSchema => ({
  type: 'object',
  ...(description ? { description } : {}),
  properties,
  required: Object.keys(properties),
});
/** An object whose keys are data (a map), each value of this schema. */
export const mapOf = (values: JsonSchema, description?: string): JsonSchema => ({
  type: 'object',
  ...(description ? { description } : {}),
  additionalProperties: values,
});
/** `{ message }`: what the action did, in words for people. */
export const messageAnswer = (more: Record<string, Schema> = {}, status = 200) => answers(status, objectOf({ message: str, ...more }));
/** `{ items }` of this schema. */
export const itemsOf = (item: Schema, more: Record<string, Schema> = {}): JsonSchema => objectOf({ items: arrayOf(item), ...more });
