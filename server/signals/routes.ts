import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../core/errors.js';
import { inTenant } from '../core/tenancy.js';
import type { RequestContext } from '../core/context.js';
import { idParam } from '../engine/crud.js';
import { linkedRows, ownRows } from '../engine/visibility.js';
import { cases, incidents } from '../incidents/tables.js';
import { entities, entityTypes, signalInstanceEntities, signalInstances, signals } from './tables.js';
import { registerSignalIngest } from './ingest.js';

const page = z.object({ page: z.coerce.number().int().min(1).default(1), itemsPerPage: z.coerce.number().int().min(1).max(100).default(25) });

/** One instance with the entities extracted from it. */
async function instanceWithEntities(ctx: RequestContext, where: ReturnType<typeof and>) {
  const [instance] = await ctx.tx.select().from(signalInstances).where(and(eq(signalInstances.organization_id, ctx.orgId), where, linkedRows(ctx, signalInstances)));
  if (!instance) return null;
  const found = await ctx.tx
    .select({ id: entities.id, value: entities.value, entity_type_id: entities.entity_type_id, entity_type: entityTypes.name })
    .from(signalInstanceEntities)
    .innerJoin(entities, and(eq(entities.organization_id, signalInstanceEntities.organization_id), eq(entities.id, signalInstanceEntities.entity_id)))
    .innerJoin(entityTypes, and(eq(entityTypes.organization_id, entities.organization_id), eq(entityTypes.id, entities.entity_type_id)))
    .where(and(eq(signalInstanceEntities.organization_id, ctx.orgId), eq(signalInstanceEntities.signal_instance_id, instance.id)))
    .orderBy(entities.id);
  return { ...instance, entities: found };
}

/** Cases an entity was seen in (through the signal instances it was extracted from), newest first. */
async function casesOfEntity(ctx: RequestContext, entityId: number) {
  const caseIds = ctx.tx
    .selectDistinct({ id: signalInstances.case_id })
    .from(signalInstanceEntities)
    .innerJoin(signalInstances, and(eq(signalInstances.organization_id, signalInstanceEntities.organization_id), eq(signalInstances.id, signalInstanceEntities.signal_instance_id)))
    .where(and(eq(signalInstanceEntities.organization_id, ctx.orgId), eq(signalInstanceEntities.entity_id, entityId), sql`${signalInstances.case_id} is not null`));
  return ctx.tx
    .select({ id: cases.id, name: cases.name, title: cases.title, status: cases.status, incident_id: cases.incident_id, reported_at: cases.reported_at })
    .from(cases)
    .where(and(eq(cases.organization_id, ctx.orgId), inArray(cases.id, caseIds), ownRows(ctx, cases)))
    .orderBy(desc(cases.reported_at), desc(cases.id));
}

async function requireEntity(ctx: RequestContext, id: number) {
  const [row] = await ctx.tx.select({ id: entities.id }).from(entities).where(and(eq(entities.organization_id, ctx.orgId), eq(entities.id, id)));
  if (!row) throw notFound('Entity', id);
}

/** Signal routes beyond CRUD (spec §7 /signals, /entity, /entity_type) and the ingestion endpoints. */
export function registerSignalRoutes(scope: FastifyInstance) {
  registerSignalIngest(scope);
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const tags = ['Signal'];

  app.get('/signals/instances/:id', { schema: { tags, summary: 'One signal instance: raw payload, entities, filter action, case', params: idParam } }, (req) =>
    inTenant(req, async (ctx) => (await instanceWithEntities(ctx, eq(signalInstances.id, req.params.id))) ?? Promise.reject(notFound('Signal instance', req.params.id)), { readOnly: true }),
  );

  app.get('/signals/:id/instances', { schema: { tags, summary: "A signal definition's instances, newest first", params: idParam, querystring: page } }, (req) =>
    inTenant(
      req,
      async (ctx) => {
        const [signal] = await ctx.tx.select({ id: signals.id }).from(signals).where(and(eq(signals.organization_id, ctx.orgId), eq(signals.id, req.params.id)));
        if (!signal) throw notFound('Signal', req.params.id);
        const where = and(eq(signalInstances.organization_id, ctx.orgId), eq(signalInstances.signal_id, signal.id), linkedRows(ctx, signalInstances));
        const { page: p, itemsPerPage } = req.query;
        const [items, [count]] = await Promise.all([
          ctx.tx.select().from(signalInstances).where(where).orderBy(desc(signalInstances.id)).limit(itemsPerPage).offset((p - 1) * itemsPerPage),
          ctx.tx.select({ n: sql<number>`count(*)::int` }).from(signalInstances).where(where),
        ]);
        return { items, total: count!.n, page: p, itemsPerPage };
      },
      { readOnly: true },
    ),
  );

  app.get(
    '/signals/:id/:instanceId',
    { schema: { tags, summary: 'One instance of a signal definition', params: z.object({ id: idParam.shape.id, instanceId: idParam.shape.id }) } },
    (req) =>
      inTenant(
        req,
        async (ctx) => (await instanceWithEntities(ctx, and(eq(signalInstances.signal_id, req.params.id), eq(signalInstances.id, req.params.instanceId)))) ?? Promise.reject(notFound('Signal instance', req.params.instanceId)),
        { readOnly: true },
      ),
  );

  app.get('/entity/:id/cases', { schema: { tags: ['Entity'], summary: 'Cases the entity was seen in', params: idParam } }, (req) =>
    inTenant(
      req,
      async (ctx) => {
        await requireEntity(ctx, req.params.id);
        const items = await casesOfEntity(ctx, req.params.id);
        return { items, total: items.length, open: items.filter((c) => c.status !== 'Closed').length };
      },
      { readOnly: true },
    ),
  );

  app.get('/entity/:id/incidents', { schema: { tags: ['Entity'], summary: 'Incidents its cases were escalated to', params: idParam } }, (req) =>
    inTenant(
      req,
      async (ctx) => {
        await requireEntity(ctx, req.params.id);
        const ids = [...new Set((await casesOfEntity(ctx, req.params.id)).map((c) => c.incident_id).filter((x): x is number => x !== null))];
        const items = ids.length ? await ctx.tx.select({ id: incidents.id, name: incidents.name, title: incidents.title, status: incidents.status }).from(incidents).where(and(eq(incidents.organization_id, ctx.orgId), inArray(incidents.id, ids), ownRows(ctx, incidents))) : [];
        return { items, total: items.length };
      },
      { readOnly: true },
    ),
  );

  app.get('/entity/:id/signal_instances', { schema: { tags: ['Entity'], summary: 'Signal instances the entity was extracted from', params: idParam, querystring: page } }, (req) =>
    inTenant(
      req,
      async (ctx) => {
        await requireEntity(ctx, req.params.id);
        const { page: p, itemsPerPage } = req.query;
        const items = await ctx.tx
          .select({ id: signalInstances.id, signal_id: signalInstances.signal_id, source: signalInstances.source, case_id: signalInstances.case_id, filter_action: signalInstances.filter_action, created_at: signalInstances.created_at })
          .from(signalInstanceEntities)
          .innerJoin(signalInstances, and(eq(signalInstances.organization_id, signalInstanceEntities.organization_id), eq(signalInstances.id, signalInstanceEntities.signal_instance_id)))
          .where(and(eq(signalInstanceEntities.organization_id, ctx.orgId), eq(signalInstanceEntities.entity_id, req.params.id), linkedRows(ctx, signalInstances)))
          .orderBy(desc(signalInstances.id))
          .limit(itemsPerPage)
          .offset((p - 1) * itemsPerPage);
        return { items, page: p, itemsPerPage };
      },
      { readOnly: true },
    ),
  );

  app.get('/entity/type/:type', { schema: { tags: ['Entity'], summary: 'Entities of one type (by id or name)', params: z.object({ type: z.string().min(1).max(200) }), querystring: page } }, (req) =>
    inTenant(
      req,
      async (ctx) => {
        const byId = /^\d+$/.test(req.params.type);
        const [type] = await ctx.tx.select({ id: entityTypes.id }).from(entityTypes).where(and(eq(entityTypes.organization_id, ctx.orgId), byId ? eq(entityTypes.id, Number(req.params.type)) : eq(entityTypes.name, req.params.type)));
        if (!type) throw notFound('Entity type', req.params.type);
        const { page: p, itemsPerPage } = req.query;
        const items = await ctx.tx.select().from(entities).where(and(eq(entities.organization_id, ctx.orgId), eq(entities.entity_type_id, type.id))).orderBy(entities.value, entities.id).limit(itemsPerPage).offset((p - 1) * itemsPerPage);
        return { items, page: p, itemsPerPage };
      },
      { readOnly: true },
    ),
  );
}
