import { and, eq, inArray, sql, type Placeholder, type SQL, getTableColumns } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Role } from '../core/db/tables.js';
import { forbidden, invalid, notFound } from '../core/errors.js';
import { StatementCache } from './compiled-select.js';
import { compileList, listQuerySchema, listShape, listValues, oneListPlan, readableFields, runListPage, type ListStatement } from './list-query.js';
import { inTenant } from '../core/tenancy.js';
import type { ResourceDefinition } from './define.js';
import type { RequestContext } from '../core/context.js';
import { atLeast } from '../core/context.js';
import { hidesLinkedRows, linkedRows } from './visibility.js';
import { resourceNamed } from './registry.js';
import { answers } from './answers.js';
import { acceptNested, hidesReferences, nestedBodyShape, sameValue, nestRecord, pageJsonSchema, recordJsonSchema, type NestedConflicts } from './nested.js';

/** List statement shapes (sort, page size, filter, search or not) each resource keeps compiled. */
const LIST_SHAPES_KEPT = 200;

const ID_MESSAGE = 'The id must be a whole number written in digits, from 1 to 2147483647.';
/**
 * A record id in a path, query or body: decimal digits only (Number() would also read `+1`, `1e3`,
 * `0x10` and ` 1`), or a JSON whole number, within PostgreSQL's integer.
 */
export const idValue = z
  .union(
    [
      z.number({ error: ID_MESSAGE }).int(ID_MESSAGE),
      z
        .string({ error: ID_MESSAGE })
        .regex(/^[0-9]{1,10}$/, ID_MESSAGE)
        .transform(Number),
    ],
    { error: ID_MESSAGE },
  )
  .refine((n) => n >= 1 && n <= 2147483647, ID_MESSAGE);
export const idParam = z.object({ id: idValue });
/**
 * A record addressed by its id or by its human name (`IAO-2`, `OCO-1`), as the spec's screens address
 * them. Names imported from Dispatch keep their hyphenated prefix (`dispatch-default-default-12`).
 */
export const idOrNameParam = z.object({ id: z.union([idValue, z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*-[0-9]{1,10}$/, ID_MESSAGE)], { error: ID_MESSAGE }) });

/**
 * The row condition that keeps a query inside the caller's organization, and out of the incidents and
 * rows a domain's visibility rule hides (linkedRows). `org` may stand in for the organization's id (a
 * placeholder, in a statement shared by organizations); a definition's own scope always takes the caller.
 */
export function scopeOf(def: ResourceDefinition, ctx: RequestContext, org: number | Placeholder = ctx.orgId): SQL {
  const linked = linkedRows(ctx, def.table, org);
  if (def.scope) return linked ? and(def.scope(ctx, org), linked)! : def.scope(ctx, org);
  const columns = getTableColumns(def.table) as Record<string, PgColumn>;
  return linked ? and(eq(columns.organization_id!, org), linked)! : eq(columns.organization_id!, org);
}

/** A 404 unless the row is one the caller may see: before hooks that read or write it by id alone. */
async function mustSee(def: ResourceDefinition, ctx: RequestContext, id: number) {
  if (!linkedRows(ctx, def.table)) return;
  const { columns } = readableFields(def, ctx);
  const [hit] = await ctx.tx
    .select({ id: columns.id! })
    .from(def.table)
    .where(and(eq(columns.id!, id), scopeOf(def, ctx)))
    .limit(1);
  if (!hit) throw notFound(def.label, id);
}

/** One record as clients see it, or a 404 with the entity's message. */
export const STALE_MESSAGE = 'Someone else changed this record since you loaded it; here is its current version. Review it and save again.';

/** The write was based on an older version: carries the current record for the 409. */
class StaleWrite extends Error {
  constructor(readonly record: unknown) {
    super(STALE_MESSAGE);
  }
}

/**
 * Optimistic concurrency: If-Match names the updated_at the client edited (quoted or not); the row
 * is locked for the rest of the transaction, so no write can come between the check and the update.
 */
async function checkUnchanged(def: ResourceDefinition, ctx: RequestContext, id: number, ifMatch: string) {
  const columns = getTableColumns(def.table) as Record<string, PgColumn>;
  if (!columns.updated_at || ifMatch.trim() === '*') return;
  const expected = Date.parse(ifMatch.trim().replace(/^W\//, '').replace(/^"|"$/g, ''));
  if (Number.isNaN(expected))
    throw invalid('If-Match must be the record\'s updated_at, e.g. "2026-01-01T00:00:00.000Z".', ['header', 'if-match'], 'value_error');
  const [row] = (await ctx.tx
    .select({ updated_at: columns.updated_at })
    .from(def.table)
    .where(and(eq(columns.id!, id), scopeOf(def, ctx)))
    .for('update')) as { updated_at: Date | null }[];
  if (!row) throw notFound(def.label, id);
  if (row.updated_at?.getTime() !== expected) throw new StaleWrite(await getRecord(def, ctx, id));
}

/**
 * `madeNow`: the record was just created by this caller, who is answered it even where a visibility
 * rule hides it from them afterwards (an API key reporting an incident of a Restricted type).
 */
export async function getRecord(def: ResourceDefinition, ctx: RequestContext, id: number, opts: { madeNow?: boolean } = {}) {
  const { columns, selection, nested } = readableFields(def, ctx);
  const scope = opts.madeNow && columns.organization_id ? eq(columns.organization_id, ctx.orgId) : scopeOf(def, ctx);
  const [row] = await ctx.tx
    .select(selection)
    .from(def.table)
    .where(and(eq(columns.id!, id), scope))
    .limit(1);
  if (!row) throw notFound(def.label, id);
  return nestRecord(nested, row as Record<string, unknown>);
}

/** Lists and reads of a definition with a readRole (API keys: Admins), before any query. */
function requireReadRole(def: ResourceDefinition, role: Role | null) {
  if (def.readRole && !(role && atLeast(role, def.readRole)))
    throw forbidden(`Only a${/^[AEIOU]/.test(def.readRole) ? 'n' : ''} ${def.readRole} or above may see ${def.labelPlural ?? `${def.label.toLowerCase()}s`}.`);
}

function requireRole(def: ResourceDefinition, role: Role) {
  if (!atLeast(role, def.writeRole ?? 'Member'))
    throw forbidden(`Only a${/^[AEIOU]/.test(def.writeRole!) ? 'n' : ''} ${def.writeRole} or above may change ${def.label.toLowerCase()}s.`);
}

/** Body foreign keys must name rows of the caller's own organization. */
async function checkReferences(def: ResourceDefinition, ctx: RequestContext, data: Record<string, unknown>) {
  for (const [field, target] of Object.entries(def.references ?? {})) {
    const value = data[field];
    if (value === undefined || value === null) continue;
    const ref = resourceNamed(target);
    const { columns } = readableFields(ref, ctx);
    // A list of ids (e.g. `filters`) is checked as a whole: every id must be visible.
    const ids = [...new Set(Array.isArray(value) ? value : [value])];
    if (!ids.length) continue;
    const hits = await ctx.tx
      .select({ id: columns.id! })
      .from(ref.table)
      .where(and(inArray(columns.id!, ids), scopeOf(ref, ctx)));
    const found = new Set(hits.map((h) => h.id));
    const missing = ids.find((id) => !found.has(id));
    if (missing !== undefined) throw invalid(`${ref.label} '${String(missing)}' could not be found.`, ['body', field], 'not_found');
  }
}

/** Turns one resource definition into its list, get, create, update and delete routes. */
export function registerCrud(scope: FastifyInstance, def: ResourceDefinition) {
  const enabled = (route: keyof NonNullable<ResourceDefinition['routes']>) => def.routes?.[route] !== false;
  const crud = crudRoutes(def);
  if (enabled('list')) registerListRoute(scope, crud);
  if (enabled('get')) registerGetRoute(scope, crud);
  if (enabled('create')) registerCreateRoute(scope, crud);
  if (enabled('update')) registerUpdateRoute(scope, crud);
  if (enabled('delete')) registerDeleteRoute(scope, crud);
}

/** What a definition's routes share: their tag, the record's answer schema, and how nested bodies are taken. */
type CrudRoutes = ReturnType<typeof crudRoutes>;

function crudRoutes(def: ResourceDefinition) {
  const tags = [def.label];
  const updateSchema = def.update ?? def.create.partial();
  // Bodies in the spec's shape (nested references, a record sent back whole) become the engine's
  // before validation (server/engine/nested.ts); the documented schemas show the nested fields too.
  const conflictsOf = new WeakMap<object, NestedConflicts>();
  const accepting = (schema: z.ZodObject, update: boolean) => (req: FastifyRequest, _reply: unknown, done: (err?: Error) => void) => {
    try {
      const given =
        req.body && typeof req.body === 'object' && !Array.isArray(req.body) && def.hooks?.prepare
          ? def.hooks.prepare(req.body as Record<string, unknown>)
          : req.body;
      const { body, conflicts } = acceptNested(def, given, schema, update);
      req.body = body;
      if (Object.keys(conflicts).length) conflictsOf.set(req, conflicts);
      done();
    } catch (err) {
      done(err as Error);
    }
  };
  // Answers as the OpenAPI document shows them (see answers.ts).
  const record = recordJsonSchema(def);
  const documented = (schema: z.ZodObject) => {
    const nested = nestedBodyShape(def, schema);
    return Object.keys(nested).length ? schema.safeExtend(nested) : schema;
  };
  return { def, tags, updateSchema, conflictsOf, accepting, record, documented };
}

function registerListRoute(scope: FastifyInstance, crud: CrudRoutes) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { def, tags, record } = crud;
  // Where only the organization tells callers' lists apart, the compiled statement is shared:
  // by shape, with the organization as a placeholder (a `computed` that takes no argument is the
  // same for every caller).
  const shared = (!def.scope || !!def.scopeShape) && !(def.computed && def.computed.length > 0);
  const compiled = new StatementCache<ListStatement>(LIST_SHAPES_KEPT);
  // Whether a shape's list runs on one generic plan (oneListPlan parses the filter: once per shape).
  const plans = new StatementCache<boolean>(LIST_SHAPES_KEPT);
  app.get(
    def.path,
    { schema: { tags, summary: `List ${def.label.toLowerCase()}s`, querystring: listQuerySchema(def.pageSize), ...answers(200, pageJsonSchema(record)) } },
    async (req, reply) => {
      requireReadRole(def, req.caller.role);
      const listed = listShape(req.query);
      const answer = await inTenant(
        req,
        async (ctx) => {
          const build = (org: number | Placeholder) => compileList(def, readableFields(def, ctx), req.query, scopeOf(def, ctx, org), ctx.tx, org);
          // Callers who see every incident and those who see some read different statements.
          // So do callers a definition's scope tells apart (scopeShape).
          // So do callers from whom rows the references name are hidden (their names are not read).
          const shape = `${listed}${hidesLinkedRows(ctx, def.table) ? '\u0000linked' : ''}${hidesReferences(def, ctx) ? '\u0000refs' : ''}\u0000${def.scopeShape?.(ctx) ?? ''}`;
          const statement = shared ? compiled.get(shape, () => build(sql.placeholder('org'))) : build(ctx.orgId);
          // The page is written as JSON text from the rows (serialize.ts): no record objects.
          return runListPage(ctx.tx, statement, listValues(req.query, ctx.orgId), req.query);
        },
        { oneRound: true, genericPlans: plans.get(listed, () => oneListPlan(def, req.query)) },
      );
      return reply.type('application/json; charset=utf-8').send(answer);
    },
  );
}

function registerGetRoute(scope: FastifyInstance, crud: CrudRoutes) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { def, tags, record } = crud;
  app.get(`${def.path}/:id`, { schema: { tags, summary: `Get one ${def.label.toLowerCase()}`, params: idParam, ...answers(200, record) } }, (req) => {
    requireReadRole(def, req.caller.role);
    return inTenant(req, (ctx) => getRecord(def, ctx, req.params.id));
  });
}

function registerCreateRoute(scope: FastifyInstance, crud: CrudRoutes) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { def, tags, record, accepting, documented, conflictsOf } = crud;
  app.post(
    def.path,
    {
      schema: { tags, summary: `Create a ${def.label.toLowerCase()}`, body: documented(def.create), ...answers(201, record) },
      preValidation: accepting(def.create, false),
    },
    async (req, reply) => {
      let data = req.body as Record<string, unknown>;
      const conflict = Object.keys(conflictsOf.get(req) ?? {})[0];
      if (conflict) throw invalid(`'${conflict}' and its nested object name different records.`, ['body', conflict], 'nested_reference');
      const saved = await inTenant(req, async (ctx) => {
        requireRole(def, ctx.role);
        data = req.body as Record<string, unknown>;
        if (def.hooks?.beforeCreate) data = await def.hooks.beforeCreate(ctx, data);
        await checkReferences(def, ctx, data);
        let id: number;
        if (def.hooks?.create) id = await def.hooks.create(ctx, data);
        else {
          const columns = getTableColumns(def.table) as Record<string, PgColumn>;
          const values = columns.organization_id && !def.scope ? { ...data, organization_id: ctx.orgId } : data;
          const [row] = await ctx.tx.insert(def.table).values(values).returning({ id: columns.id! });
          id = row!.id as number;
        }
        const created = await getRecord(def, ctx, id, { madeNow: true });
        return def.hooks?.afterCreate ? def.hooks.afterCreate(ctx, created, data) : created;
      });
      const record = def.hooks?.afterCommit ? await def.hooks.afterCommit(req, saved, data) : saved;
      return reply.status(201).send(record);
    },
  );
}

/** Update: If-Match against a stale write, nested conflicts resolved, immutable fields kept. */
function registerUpdateRoute(scope: FastifyInstance, crud: CrudRoutes) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { def, tags, record, accepting, documented, conflictsOf, updateSchema } = crud;
  app.put(
    `${def.path}/:id`,
    {
      schema: {
        tags,
        summary: `Update a ${def.label.toLowerCase()} (send If-Match: its updated_at to refuse a stale write)`,
        params: idParam,
        body: documented(updateSchema),
        ...answers(200, record),
      },
      preValidation: accepting(updateSchema, true),
    },
    (req, reply) =>
      inTenant(req, async (ctx) => {
        const id = req.params.id;
        requireRole(def, ctx.role);
        await mustSee(def, ctx, id);
        const ifMatch = req.headers['if-match'];
        if (typeof ifMatch === 'string') await checkUnchanged(def, ctx, id, ifMatch);
        let data = req.body as Record<string, unknown>;
        const conflicts = conflictsOf.get(req);
        if (conflicts) {
          // A record sent back with the id and the nested object disagreeing: the one the caller
          // changed stands (a spec client edits the object, a form edits the id).
          const current = await getRecord(def, ctx, id);
          data = { ...data };
          for (const [field, nestedId] of Object.entries(conflicts)) if (sameValue(data[field], current[field])) data[field] = nestedId;
        }
        if (def.immutable?.some((f) => data[f] !== undefined)) {
          const current = await getRecord(def, ctx, id);
          for (const field of def.immutable) {
            if (data[field] !== undefined && data[field] !== current[field])
              throw invalid('This field cannot be changed after creation.', ['body', field], 'immutable');
          }
        }
        if (def.hooks?.beforeUpdate) data = await def.hooks.beforeUpdate(ctx, id, data);
        await checkReferences(def, ctx, data);
        if (def.hooks?.update) {
          if (!(await def.hooks.update(ctx, id, data))) throw notFound(def.label, id);
        } else {
          const columns = getTableColumns(def.table) as Record<string, PgColumn>;
          const set = columns.updated_at ? { ...data, updated_at: sql`now()` } : data;
          const done = Object.keys(set).length
            ? await ctx.tx
                .update(def.table)
                .set(set)
                .where(and(eq(columns.id!, id), scopeOf(def, ctx)))
                .returning({ id: columns.id! })
            : [await getRecord(def, ctx, id)];
          if (!done.length) throw notFound(def.label, id);
        }
        return getRecord(def, ctx, id);
      }).catch((err: unknown) => {
        if (err instanceof StaleWrite)
          return reply.status(409).send({ detail: [{ msg: STALE_MESSAGE, loc: ['header', 'if-match'], type: 'stale_write' }], record: err.record });
        throw err;
      }),
  );
}

function registerDeleteRoute(scope: FastifyInstance, crud: CrudRoutes) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { def, tags } = crud;
  app.delete(
    `${def.path}/:id`,
    { schema: { tags, summary: `Delete a ${def.label.toLowerCase()}`, params: idParam, ...answers(204, null) } },
    async (req, reply) => {
      await inTenant(req, async (ctx) => {
        const id = req.params.id;
        requireRole(def, ctx.role);
        await mustSee(def, ctx, id);
        if (def.hooks?.beforeDelete) await def.hooks.beforeDelete(ctx, id);
        let deleted: boolean;
        if (def.hooks?.delete) deleted = await def.hooks.delete(ctx, id);
        else {
          const columns = getTableColumns(def.table) as Record<string, PgColumn>;
          deleted =
            (
              await ctx.tx
                .delete(def.table)
                .where(and(eq(columns.id!, id), scopeOf(def, ctx)))
                .returning({ id: columns.id! })
            ).length > 0;
        }
        if (!deleted) throw notFound(def.label, id);
      });
      return reply.status(204).send();
    },
  );
}
