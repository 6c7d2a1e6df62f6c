import { and, desc, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../core/errors.js';
import { inTenant } from '../core/tenancy.js';
import type { RequestContext } from '../core/context.js';
import { idParam } from '../engine/crud.js';
import { answers, arrayOf, int, objectOf, rowOf, rowWith, selectionOf } from '../engine/answers.js';
import { linkedRows } from '../engine/visibility.js';
import { entities, entityTypes, signalInstanceEntities, signalInstances, signals } from './tables.js';
import { registerSignalIngest } from './ingest.js';
import { registerEntityRoutes } from './entity-routes.js';
import { registerSignalExtras } from './signal-routes.js';

const page = z.object({ page: z.coerce.number().int().min(1).default(1), itemsPerPage: z.coerce.number().int().min(1).max(100).default(25) });

const extracted = { id: entities.id, value: entities.value, entity_type_id: entities.entity_type_id, entity_type: entityTypes.name };
/** An instance as its routes answer it: the row with the entities extracted from it. */
const instanceAnswer = rowWith(signalInstances, { entities: arrayOf(selectionOf(extracted)) });

/** One instance with the entities extracted from it. */
async function instanceWithEntities(ctx: RequestContext, where: ReturnType<typeof and>) {
  const [instance] = await ctx.tx
    .select()
    .from(signalInstances)
    .where(and(eq(signalInstances.organization_id, ctx.orgId), where, linkedRows(ctx, signalInstances)));
  if (!instance) return null;
  const found = await ctx.tx
    .select(extracted)
    .from(signalInstanceEntities)
    .innerJoin(entities, and(eq(entities.organization_id, signalInstanceEntities.organization_id), eq(entities.id, signalInstanceEntities.entity_id)))
    .innerJoin(entityTypes, and(eq(entityTypes.organization_id, entities.organization_id), eq(entityTypes.id, entities.entity_type_id)))
    .where(and(eq(signalInstanceEntities.organization_id, ctx.orgId), eq(signalInstanceEntities.signal_instance_id, instance.id)))
    .orderBy(entities.id);
  return { ...instance, entities: found };
}

/** Signal routes beyond CRUD (spec §7 /signals, /entity, /entity_type) and the ingestion endpoints. */
export function registerSignalRoutes(scope: FastifyInstance) {
  registerSignalIngest(scope);
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const tags = ['Signal'];

  app.get(
    '/signals/instances/:id',
    { schema: { tags, summary: 'One signal instance: raw payload, entities, filter action, case', params: idParam, ...answers(200, instanceAnswer) } },
    (req) =>
      inTenant(
        req,
        async (ctx) => (await instanceWithEntities(ctx, eq(signalInstances.id, req.params.id))) ?? Promise.reject(notFound('Signal instance', req.params.id)),
        { readOnly: true },
      ),
  );

  app.get(
    '/signals/:id/instances',
    {
      schema: {
        tags,
        summary: "A signal definition's instances, newest first",
        params: idParam,
        querystring: page,
        ...answers(200, objectOf({ items: arrayOf(rowOf(signalInstances)), total: int, page: int, itemsPerPage: int })),
      },
    },
    (req) =>
      inTenant(
        req,
        async (ctx) => {
          const [signal] = await ctx.tx
            .select({ id: signals.id })
            .from(signals)
            .where(and(eq(signals.organization_id, ctx.orgId), eq(signals.id, req.params.id)));
          if (!signal) throw notFound('Signal', req.params.id);
          const where = and(eq(signalInstances.organization_id, ctx.orgId), eq(signalInstances.signal_id, signal.id), linkedRows(ctx, signalInstances));
          const { page: p, itemsPerPage } = req.query;
          const [items, [count]] = await Promise.all([
            ctx.tx
              .select()
              .from(signalInstances)
              .where(where)
              .orderBy(desc(signalInstances.id))
              .limit(itemsPerPage)
              .offset((p - 1) * itemsPerPage),
            ctx.tx
              .select({ n: sql<number>`count(*)::int` })
              .from(signalInstances)
              .where(where),
          ]);
          return { items, total: count!.n, page: p, itemsPerPage };
        },
        { readOnly: true },
      ),
  );

  app.get(
    '/signals/:id/:instanceId',
    {
      schema: {
        tags,
        summary: 'One instance of a signal definition',
        params: z.object({ id: idParam.shape.id, instanceId: idParam.shape.id }),
        ...answers(200, instanceAnswer),
      },
    },
    (req) =>
      inTenant(
        req,
        async (ctx) =>
          (await instanceWithEntities(ctx, and(eq(signalInstances.signal_id, req.params.id), eq(signalInstances.id, req.params.instanceId)))) ??
          Promise.reject(notFound('Signal instance', req.params.instanceId)),
        { readOnly: true },
      ),
  );

  registerEntityRoutes(scope);
  registerSignalExtras(scope);
}
