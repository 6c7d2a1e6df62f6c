import { getTableColumns } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { columnType } from './filters.js';
import { resourceNamed } from './registry.js';
import type { ResourceDefinition } from './define.js';
import { describeFields, plural, recordRepresentation } from './field-meta.js';
import { answers, arrayOf, objectOf, str } from './answers.js';

const resourceMeta = {
  type: 'object',
  description: 'A definition as the admin app draws it: labels, fields with their widgets, columns, references, roles, routes, body schemas',
  properties: { name: str, path: str, model: str, label: str, labelPlural: str, fields: { type: 'array', items: { type: 'object' } } },
};

/**
 * A description depends on its definition only: made once per process, not per app built (together
 * about 0.1 s of CPU for each app after the first, mostly their JSON Schemas; tests build hundreds).
 */
const descriptions = new WeakMap<ResourceDefinition, ReturnType<typeof describe>>();

/** What the admin app needs to draw a generic list and form for a definition. */
export function describeResource(def: ResourceDefinition) {
  let described = descriptions.get(def);
  if (!described) descriptions.set(def, (described = describe(def)));
  return described;
}

function describe(def: ResourceDefinition) {
  const hidden = new Set(def.hidden ?? []);
  const columns = Object.entries(getTableColumns(def.table) as Record<string, PgColumn>)
    .filter(([name]) => !hidden.has(name) && name !== 'organization_id')
    .map(([name, column]) => ({ name, type: columnType(column), nullable: !column.notNull }));
  return {
    name: def.path.replace(/^\//, ''),
    path: def.path,
    model: def.model,
    label: def.displayLabel ?? def.label,
    labelPlural: def.labelPlural ?? plural(def.displayLabel ?? def.label),
    recordRepresentation: recordRepresentation(def),
    fields: describeFields(def),
    pageSize: def.pageSize,
    sort: def.sort,
    search: def.search,
    filterFields: ['id', ...def.fields],
    columns,
    references: Object.fromEntries(Object.entries(def.references ?? {}).map(([field, target]) => [field, resourceNamed(target).path.replace(/^\//, '')])),
    immutable: def.immutable ?? [],
    writeRole: def.writeRole ?? 'Member',
    readRole: def.readRole ?? 'Member',
    updateRole: def.updateRole ?? def.writeRole ?? 'Member',
    routes: { list: true, get: true, create: true, update: true, delete: true, ...def.routes },
    create: z.toJSONSchema(def.create, { io: 'input', unrepresentable: 'any' }),
    update: z.toJSONSchema(def.update ?? def.create.partial(), { io: 'input', unrepresentable: 'any' }),
  };
}

export function registerMetaRoutes(scope: FastifyInstance, resources: ResourceDefinition[]) {
  const described = resources.map(describeResource);
  scope.get(
    '/meta/resources',
    { schema: { tags: ['Meta'], summary: 'Resource metadata for generic screens', ...answers(200, objectOf({ resources: arrayOf(resourceMeta) })) } },
    async () => ({ resources: described }),
  );
}
