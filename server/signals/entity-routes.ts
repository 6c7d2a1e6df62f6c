import { and, desc, eq, gt, inArray, sql, type SQL } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { httpError, invalid, notFound } from '../core/errors.js';
import { defineJob, enqueueJob } from '../core/jobs/define.js';
import { inTenant } from '../core/tenancy.js';
import type { RequestContext } from '../core/context.js';
import { idParam } from '../engine/crud.js';
import { answers, arrayOf, int, messageAnswer, objectOf, rowOf, rowWith, str, type JsonSchema } from '../engine/answers.js';
import { linkedRows, ownRows } from '../engine/visibility.js';
import { caseParticipants, cases } from '../cases/tables.js';
import { conversations } from '../timeline/tables.js';
import { incidentParticipants, incidentResources, incidents } from '../incidents/tables.js';
import { tasks } from '../tasks/tables.js';
import { commits } from '../commits/tables.js';
import { chunks, submissions } from '../ai/tables.js';
import {
  entities,
  entitySubscriptions,
  entityTypeRuns,
  entityTypes,
  signalEngagementRequests,
  signalInstanceEntities,
  signalInstances,
  signals,
} from './tables.js';
import { extract, type ExtractableType } from './extract.js';
import { checkPatterns, entityTypeCreate } from './resources.js';
import { ref } from '../engine/fields.js';

const page = z.object({ page: z.coerce.number().int().min(1).default(1), itemsPerPage: z.coerce.number().int().min(1).max(100).default(25) });

/** What a sub-route lists about: a set of entities (one, or every one of a type), optionally seen since a date. */
interface Scope {
  entityIds: SQL;
  since: Date | null;
}

const instanceIds = (ctx: RequestContext, s: Scope) =>
  ctx.tx
    .select({ id: signalInstanceEntities.signal_instance_id })
    .from(signalInstanceEntities)
    .where(and(eq(signalInstanceEntities.organization_id, ctx.orgId), sql`${signalInstanceEntities.entity_id} in ${s.entityIds}`));

const caseIds = (ctx: RequestContext, s: Scope) =>
  ctx.tx
    .selectDistinct({ id: signalInstances.case_id })
    .from(signalInstances)
    .where(
      and(
        eq(signalInstances.organization_id, ctx.orgId),
        inArray(signalInstances.id, instanceIds(ctx, s)),
        sql`${signalInstances.case_id} is not null`,
        s.since ? gt(signalInstances.created_at, s.since) : undefined,
      ),
    );

const incidentIds = (ctx: RequestContext, s: Scope) =>
  ctx.tx
    .select({ id: cases.incident_id })
    .from(cases)
    .where(and(eq(cases.organization_id, ctx.orgId), inArray(cases.id, caseIds(ctx, s)), sql`${cases.incident_id} is not null`));

/** Text that mentions one of the scope's entity values (case-insensitive). */
const mentions = (ctx: RequestContext, s: Scope, column: SQL | unknown) =>
  sql`exists (select 1 from ${entities} e where e.organization_id = ${ctx.orgId} and e.id in ${s.entityIds} and ${column} ilike '%' || replace(replace(replace(e.normalized, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%')`;

const submissionsMentioning = (ctx: RequestContext, s: Scope, kind: 'text' | 'file' | 'video_transcript' | null) =>
  ctx.tx
    .select({
      id: submissions.id,
      title: submissions.title,
      kind: submissions.kind,
      eccs_project_id: submissions.eccs_project_id,
      source_url: submissions.source_url,
      created_at: submissions.created_at,
    })
    .from(submissions)
    .where(
      and(
        eq(submissions.organization_id, ctx.orgId),
        kind ? eq(submissions.kind, kind) : undefined,
        inArray(
          submissions.id,
          ctx.tx
            .selectDistinct({ id: chunks.submission_id })
            .from(chunks)
            .where(and(eq(chunks.organization_id, ctx.orgId), mentions(ctx, s, chunks.text))),
        ),
      ),
    );

const resourcesOf = (ctx: RequestContext, s: Scope, pattern: string) =>
  ctx.tx
    .select({
      id: incidentResources.id,
      incident_id: incidentResources.incident_id,
      resource_type: incidentResources.resource_type,
      name: incidentResources.name,
      weblink: incidentResources.weblink,
      created_at: incidentResources.created_at,
    })
    .from(incidentResources)
    .where(
      and(
        eq(incidentResources.organization_id, ctx.orgId),
        inArray(incidentResources.incident_id, incidentIds(ctx, s)),
        sql`${incidentResources.resource_type} ilike ${pattern}`,
      ),
    );

type Lister = (ctx: RequestContext, s: Scope, limit: number, offset: number) => Promise<unknown[]>;

/**
 * Spec §7's entity sub-resources. Entities reach the rest through the signal instances they were
 * extracted from: those instances' cases, the incidents those cases became, and what hangs off them
 * (tasks, conversations, participants, attached resources). Commits and submissions have no such
 * link, so they are the ones whose text mentions the entity's value.
 */
const SUB_RESOURCES: Record<string, Lister> = {
  cases: (ctx, s, limit, offset) =>
    ctx.tx
      .select({ id: cases.id, name: cases.name, title: cases.title, status: cases.status, incident_id: cases.incident_id, reported_at: cases.reported_at })
      .from(cases)
      .where(and(eq(cases.organization_id, ctx.orgId), inArray(cases.id, caseIds(ctx, s)), ownRows(ctx, cases)))
      .orderBy(desc(cases.reported_at), desc(cases.id))
      .limit(limit)
      .offset(offset),
  incidents: (ctx, s, limit, offset) =>
    ctx.tx
      .select({ id: incidents.id, name: incidents.name, title: incidents.title, status: incidents.status })
      .from(incidents)
      .where(and(eq(incidents.organization_id, ctx.orgId), inArray(incidents.id, incidentIds(ctx, s)), ownRows(ctx, incidents)))
      .orderBy(desc(incidents.id))
      .limit(limit)
      .offset(offset),
  signal_instances: (ctx, s, limit, offset) =>
    ctx.tx
      .select({
        id: signalInstances.id,
        signal_id: signalInstances.signal_id,
        source: signalInstances.source,
        dedup_key: signalInstances.dedup_key,
        case_id: signalInstances.case_id,
        filter_action: signalInstances.filter_action,
        created_at: signalInstances.created_at,
      })
      .from(signalInstances)
      .where(
        and(
          eq(signalInstances.organization_id, ctx.orgId),
          inArray(signalInstances.id, instanceIds(ctx, s)),
          s.since ? gt(signalInstances.created_at, s.since) : undefined,
          linkedRows(ctx, signalInstances),
        ),
      )
      .orderBy(desc(signalInstances.id))
      .limit(limit)
      .offset(offset),
  tasks: (ctx, s, limit, offset) =>
    ctx.tx
      .select({ id: tasks.id, description: tasks.description, status: tasks.status, incident_id: tasks.incident_id, case_id: tasks.case_id })
      .from(tasks)
      .where(and(eq(tasks.organization_id, ctx.orgId), sql`(${inArray(tasks.case_id, caseIds(ctx, s))} or ${inArray(tasks.incident_id, incidentIds(ctx, s))})`))
      .orderBy(desc(tasks.id))
      .limit(limit)
      .offset(offset),
  conversations: (ctx, s, limit, offset) =>
    ctx.tx
      .select()
      .from(conversations)
      .where(
        and(
          eq(conversations.organization_id, ctx.orgId),
          sql`(${inArray(conversations.case_id, caseIds(ctx, s))} or ${inArray(conversations.incident_id, incidentIds(ctx, s))})`,
        ),
      )
      .orderBy(desc(conversations.id))
      .limit(limit)
      .offset(offset),
  individuals: async (ctx, s, limit, offset) => {
    const onCases = ctx.tx
      .selectDistinct({ email: caseParticipants.email })
      .from(caseParticipants)
      .where(and(eq(caseParticipants.organization_id, ctx.orgId), inArray(caseParticipants.case_id, caseIds(ctx, s))));
    const onIncidents = ctx.tx
      .selectDistinct({ email: incidentParticipants.email })
      .from(incidentParticipants)
      .where(and(eq(incidentParticipants.organization_id, ctx.orgId), inArray(incidentParticipants.incident_id, incidentIds(ctx, s))));
    const emails = [...new Set([...(await onCases), ...(await onIncidents)].map((r) => r.email))].sort();
    return emails.slice(offset, offset + limit).map((email) => ({ email }));
  },
  documents: (ctx, s, limit, offset) => resourcesOf(ctx, s, '%document%').limit(limit).offset(offset),
  weblinks: (ctx, s, limit, offset) => resourcesOf(ctx, s, '%link%').limit(limit).offset(offset),
  tickets: (ctx, s, limit, offset) => resourcesOf(ctx, s, '%ticket%').limit(limit).offset(offset),
  conferences: (ctx, s, limit, offset) => resourcesOf(ctx, s, '%conference%').limit(limit).offset(offset),
  emails: (ctx, s, limit, offset) =>
    ctx.tx
      .select({
        id: signalEngagementRequests.id,
        email: signalEngagementRequests.email,
        case_id: signalEngagementRequests.case_id,
        status: signalEngagementRequests.status,
        sent_at: signalEngagementRequests.sent_at,
        answered_at: signalEngagementRequests.answered_at,
      })
      .from(signalEngagementRequests)
      .where(and(eq(signalEngagementRequests.organization_id, ctx.orgId), sql`${signalEngagementRequests.entity_id} in ${s.entityIds}`))
      .orderBy(desc(signalEngagementRequests.id))
      .limit(limit)
      .offset(offset),
  commits: (ctx, s, limit, offset) =>
    ctx.tx
      .select({
        id: commits.id,
        commit_id: commits.commit_id,
        commit_message: commits.commit_message,
        repository_name: commits.repository_name,
        commit_date: commits.commit_date,
      })
      .from(commits)
      .where(and(eq(commits.organization_id, ctx.orgId), mentions(ctx, s, commits.commit_message)))
      .orderBy(desc(commits.id))
      .limit(limit)
      .offset(offset),
  text_submissions: (ctx, s, limit, offset) => submissionsMentioning(ctx, s, 'text').orderBy(desc(submissions.id)).limit(limit).offset(offset),
  file_submissions: (ctx, s, limit, offset) => submissionsMentioning(ctx, s, 'file').orderBy(desc(submissions.id)).limit(limit).offset(offset),
  youtube_transcripts: (ctx, s, limit, offset) => submissionsMentioning(ctx, s, 'video_transcript').orderBy(desc(submissions.id)).limit(limit).offset(offset),
  eccs_projects: async (ctx, s, limit, offset) => {
    const rows = await submissionsMentioning(ctx, s, null);
    const ids = [...new Set(rows.map((r) => r.eccs_project_id).filter((x): x is string => !!x))].sort();
    return ids.slice(offset, offset + limit).map((id) => ({ eccs_project_id: id, submissions: rows.filter((r) => r.eccs_project_id === id).length }));
  },
};
export const ENTITY_SUB_RESOURCES = Object.keys(SUB_RESOURCES);
const ENTITY_TYPE_SUB_RESOURCES = ['cases', 'incidents', 'signal_instances', 'commits', 'tickets'] as const;

/** Kinds of value an entity can hold, told apart by its shape (TheHive's data types): GET /entity/class/{class}. */
const CLASSES: Record<string, string> = {
  email: '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$',
  ip: '^(\\d{1,3}\\.){3}\\d{1,3}$|^[0-9a-f]{0,4}(:[0-9a-f]{0,4}){2,7}$',
  url: '^[a-z][a-z0-9+.-]*://',
  domain: '^([a-z0-9-]+\\.)+[a-z]{2,}$',
  hash: '^([0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64})$',
};

async function requireEntity(ctx: RequestContext, id: number) {
  const [row] = await ctx.tx
    .select({ id: entities.id })
    .from(entities)
    .where(and(eq(entities.organization_id, ctx.orgId), eq(entities.id, id)));
  if (!row) throw notFound('Entity', id);
}
async function requireType(ctx: RequestContext, id: number) {
  const [row] = await ctx.tx
    .select()
    .from(entityTypes)
    .where(and(eq(entityTypes.organization_id, ctx.orgId), eq(entityTypes.id, id)));
  if (!row) throw notFound('Entity type', id);
  return row;
}

/** The instances a type applies to: those of definitions that use it (every one for scope 'all'). */
const instancesOfType = (ctx: RequestContext, type: typeof entityTypes.$inferSelect) =>
  and(
    eq(signalInstances.organization_id, ctx.orgId),
    type.scope === 'all'
      ? undefined
      : inArray(
          signalInstances.signal_id,
          ctx.tx
            .select({ id: signals.id })
            .from(signals)
            .where(and(eq(signals.organization_id, ctx.orgId), sql`${type.id} = any(${signals.entity_type_ids})`)),
        ),
  );

/** How many of `raw`s a type (saved or being edited) finds a value in, with a few of the values. */
export function backTest(rows: { id: number; raw: unknown }[], type: ExtractableType) {
  let matched = 0;
  const samples: { instance_id: number; values: string[] }[] = [];
  const counts = new Map<string, number>();
  for (const row of rows) {
    let found: string[];
    try {
      found = extract(row.raw, [type]).map((e) => e.value);
    } catch {
      // A path that fails on this payload finds nothing in it.
      continue;
    }
    if (!found.length) continue;
    matched++;
    if (samples.length < 10) samples.push({ instance_id: row.id, values: found.slice(0, 5) });
    for (const v of found) counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  const top = [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([value, count]) => ({ value, count }));
  return { total: rows.length, matched, samples, top_values: top };
}

/** A pattern being tried must find something: a JSONPath, a regular expression or both, each valid. */
function checkType(body: { jpath?: string | null; regular_expression?: string | null }) {
  if (!body.jpath && !body.regular_expression) throw invalid('Give a JSONPath, a regular expression, or both.', ['body', 'jpath']);
  checkPatterns(body);
}

// What the routes answer, for the OpenAPI document (server/engine/answers.ts).
/** A page of a sub-resource: its rows differ by sub-resource, so they are described in words. */
const subPage = (subs: readonly string[], more: Record<string, JsonSchema> = {}): JsonSchema => ({
  type: 'object',
  properties: {
    items: {
      type: 'array',
      items: { type: 'object', description: `A row of the sub-resource named in the path (${subs.join(', ')}).` },
    },
    page: int,
    itemsPerPage: int,
    ...more,
  },
  required: ['items', 'page', 'itemsPerPage'],
});
const entityPage = objectOf({ items: arrayOf(rowOf(entities)), page: int, itemsPerPage: int });
const backTestAnswer = objectOf({
  total: int,
  matched: int,
  samples: arrayOf(objectOf({ instance_id: int, values: arrayOf(str) })),
  top_values: arrayOf(objectOf({ value: str, count: int })),
});

/** The queue of re-extraction runs (PUT /entity_type/{id}/process). */
export const REEXTRACT_QUEUE = 'signals-reextract';
const REEXTRACT_CHUNK = 500;

export function registerEntityRoutes(scope: FastifyInstance) {
  registerEntitySubResources(scope);
  registerEntityLists(scope);
  registerEntitySubscriptions(scope);
  registerBackTests(scope);
  registerReextractRoutes(scope);
}

const tags = ['Entity'];

/** Where an entity, or any entity of a type, was seen: cases, incidents, signal instances and what hangs off them. */
function registerEntitySubResources(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const sub = z.enum(ENTITY_SUB_RESOURCES as [string, ...string[]]);
  // The first page of cases, when it holds them all, also counts them and the open ones.
  const entitySubPage = subPage(ENTITY_SUB_RESOURCES, { total: int, open: int });

  const listEntitySub = (id: number, name: string, days: number | null, q: z.infer<typeof page>) => async (ctx: RequestContext) => {
    await requireEntity(ctx, id);
    const s: Scope = { entityIds: sql`(${id})`, since: days ? new Date(Date.now() - days * 86_400_000) : null };
    const items = await SUB_RESOURCES[name]!(ctx, s, q.itemsPerPage, (q.page - 1) * q.itemsPerPage);
    const extra =
      name === 'cases' && q.page === 1 && items.length < q.itemsPerPage
        ? { total: items.length, open: (items as { status: string }[]).filter((c) => c.status !== 'Closed').length }
        : {};
    return { items, page: q.page, itemsPerPage: q.itemsPerPage, ...extra };
  };

  app.get(
    '/entity/:id/:sub',
    {
      schema: {
        tags,
        summary: 'Where the entity was seen: cases, incidents, signal instances and what hangs off them',
        params: z.object({ id: idParam.shape.id, sub }),
        querystring: page,
        ...answers(200, entitySubPage),
      },
    },
    (req) => inTenant(req, listEntitySub(req.params.id, req.params.sub, null, req.query), { readOnly: true }),
  );
  app.get(
    '/entity/:id/:sub/:days',
    {
      schema: {
        tags,
        summary: 'The same, over the last {days} days',
        params: z.object({ id: idParam.shape.id, sub, days: z.coerce.number().int().min(1).max(3650) }),
        querystring: page,
        ...answers(200, entitySubPage),
      },
    },
    (req) => inTenant(req, listEntitySub(req.params.id, req.params.sub, req.params.days, req.query), { readOnly: true }),
  );

  const listTypeSub = (id: number, name: string, q: z.infer<typeof page>) => async (ctx: RequestContext) => {
    await requireType(ctx, id);
    const s: Scope = { entityIds: sql`(select id from ${entities} where organization_id = ${ctx.orgId} and entity_type_id = ${id})`, since: null };
    const items = await SUB_RESOURCES[name]!(ctx, s, q.itemsPerPage, (q.page - 1) * q.itemsPerPage);
    return { items, page: q.page, itemsPerPage: q.itemsPerPage };
  };
  const typeSub = z.enum(ENTITY_TYPE_SUB_RESOURCES);
  app.get(
    '/entity_type/:id/:sub',
    {
      schema: {
        tags: ['EntityType'],
        summary: 'Where any entity of the type was seen',
        params: z.object({ id: idParam.shape.id, sub: typeSub }),
        querystring: page,
        ...answers(200, subPage(ENTITY_TYPE_SUB_RESOURCES)),
      },
    },
    (req) => inTenant(req, listTypeSub(req.params.id, req.params.sub, req.query), { readOnly: true }),
  );
  app.get(
    '/entity_type/:id/:sub/:page',
    {
      schema: {
        tags: ['EntityType'],
        summary: 'The same, page {page}',
        params: z.object({ id: idParam.shape.id, sub: typeSub, page: z.coerce.number().int().min(1) }),
        querystring: page.pick({ itemsPerPage: true }),
        ...answers(200, subPage(ENTITY_TYPE_SUB_RESOURCES)),
      },
    },
    (req) => inTenant(req, listTypeSub(req.params.id, req.params.sub, { page: req.params.page, itemsPerPage: req.query.itemsPerPage }), { readOnly: true }),
  );
}

/** Entities of one type, or whose value is of one kind. */
function registerEntityLists(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/entity/type/:type',
    {
      schema: {
        tags,
        summary: 'Entities of one type (by id or name)',
        params: z.object({ type: z.string().min(1).max(200) }),
        querystring: page,
        ...answers(200, entityPage),
      },
    },
    (req) =>
      inTenant(
        req,
        async (ctx) => {
          const byId = /^\d+$/.test(req.params.type);
          const [type] = await ctx.tx
            .select({ id: entityTypes.id })
            .from(entityTypes)
            .where(and(eq(entityTypes.organization_id, ctx.orgId), byId ? eq(entityTypes.id, Number(req.params.type)) : eq(entityTypes.name, req.params.type)));
          if (!type) throw notFound('Entity type', req.params.type);
          const { page: p, itemsPerPage } = req.query;
          const items = await ctx.tx
            .select()
            .from(entities)
            .where(and(eq(entities.organization_id, ctx.orgId), eq(entities.entity_type_id, type.id)))
            .orderBy(entities.value, entities.id)
            .limit(itemsPerPage)
            .offset((p - 1) * itemsPerPage);
          return { items, page: p, itemsPerPage };
        },
        { readOnly: true },
      ),
  );

  app.get(
    '/entity/class/:class',
    {
      schema: {
        tags,
        summary: `Entities whose value is of one kind (${Object.keys(CLASSES).join(', ')}), whatever their type`,
        params: z.object({ class: z.enum(Object.keys(CLASSES) as [string, ...string[]]) }),
        querystring: page,
        ...answers(200, entityPage),
      },
    },
    (req) =>
      inTenant(
        req,
        async (ctx) => {
          const { page: p, itemsPerPage } = req.query;
          const items = await ctx.tx
            .select()
            .from(entities)
            .where(and(eq(entities.organization_id, ctx.orgId), sql`${entities.normalized} ~ ${CLASSES[req.params.class]!}`))
            .orderBy(entities.value, entities.id)
            .limit(itemsPerPage)
            .offset((p - 1) * itemsPerPage);
          return { items, page: p, itemsPerPage };
        },
        { readOnly: true },
      ),
  );
}

/** A signed-in user's e-mails about an entity turning up in a new case. */
function registerEntitySubscriptions(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/entity/:id/subscribe',
    { schema: { tags, summary: 'E-mail me when the entity turns up in a new case', params: idParam, ...messageAnswer() } },
    (req) =>
      inTenant(req, async (ctx) => {
        if (ctx.userId === null) throw httpError(403, 'Only a signed-in user can subscribe.', 'forbidden');
        await requireEntity(ctx, req.params.id);
        await ctx.tx.insert(entitySubscriptions).values({ organization_id: ctx.orgId, entity_id: req.params.id, user_id: ctx.userId }).onConflictDoNothing();
        return { message: 'Entity subscribed successfully.' };
      }),
  );
  app.delete('/entity/:id/subscribe', { schema: { tags, summary: 'Stop the e-mails about this entity', params: idParam, ...messageAnswer() } }, (req) =>
    inTenant(req, async (ctx) => {
      await requireEntity(ctx, req.params.id);
      if (ctx.userId !== null)
        await ctx.tx
          .delete(entitySubscriptions)
          .where(
            and(
              eq(entitySubscriptions.organization_id, ctx.orgId),
              eq(entitySubscriptions.entity_id, req.params.id),
              eq(entitySubscriptions.user_id, ctx.userId),
            ),
          );
      return { message: 'Subscription cancelled successfully.' };
    }),
  );
}

/** Back-tests: how many of the last instances a pattern, saved or not, finds a value in. */
function registerBackTests(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  // The entity type's own fields, tried before it is saved.
  const backTestBody = entityTypeCreate.pick({ jpath: true, regular_expression: true, scope: true }).extend({
    signal_id: ref().optional(),
    limit: z.number().int().min(1).max(1000).default(1000),
  });
  const lastInstances = (ctx: RequestContext, where: SQL | undefined, limit: number) =>
    ctx.tx
      .select({ id: signalInstances.id, raw: signalInstances.raw })
      .from(signalInstances)
      .where(and(where, linkedRows(ctx, signalInstances)))
      .orderBy(desc(signalInstances.id))
      .limit(limit);

  app.post(
    '/entity_type/backtest',
    {
      schema: {
        tags: ['EntityType'],
        summary: 'How many of the last instances a pattern (not yet saved) finds a value in',
        body: backTestBody,
        ...answers(200, backTestAnswer),
      },
    },
    (req) =>
      inTenant(
        req,
        async (ctx) => {
          checkType(req.body);
          const rows = await lastInstances(
            ctx,
            and(eq(signalInstances.organization_id, ctx.orgId), req.body.signal_id ? eq(signalInstances.signal_id, req.body.signal_id) : undefined),
            req.body.limit,
          );
          return backTest(rows, {
            id: 0,
            jpath: req.body.jpath ?? null,
            regular_expression: req.body.regular_expression ?? null,
            scope: req.body.scope ?? 'multiple',
          });
        },
        { readOnly: true },
      ),
  );
  app.get(
    '/entity_type/:id/backtest',
    {
      schema: {
        tags: ['EntityType'],
        summary: "How many of the last 1,000 instances of the type's definitions it finds a value in",
        params: idParam,
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(1000) }),
        ...answers(200, backTestAnswer),
      },
    },
    (req) =>
      inTenant(
        req,
        async (ctx) => {
          const type = await requireType(ctx, req.params.id);
          const rows = await lastInstances(ctx, instancesOfType(ctx, type), req.query.limit);
          return backTest(rows, type);
        },
        { readOnly: true },
      ),
  );
}

/** Re-extraction of a type over past instances: started as a job, its progress read back. */
function registerReextractRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.put(
    '/entity_type/:id/process',
    {
      schema: {
        tags: ['EntityType'],
        summary: 'Re-extract the type over past instances (a job; progress at GET)',
        params: idParam,
        ...answers(202, rowOf(entityTypeRuns)),
      },
    },
    async (req, reply) => {
      const run = await inTenant(req, async (ctx) => {
        await requireType(ctx, req.params.id);
        const [open] = await ctx.tx
          .select()
          .from(entityTypeRuns)
          .where(
            and(
              eq(entityTypeRuns.organization_id, ctx.orgId),
              eq(entityTypeRuns.entity_type_id, req.params.id),
              inArray(entityTypeRuns.status, ['queued', 'running']),
            ),
          );
        if (open) return open;
        const [row] = await ctx.tx.insert(entityTypeRuns).values({ organization_id: ctx.orgId, entity_type_id: req.params.id }).returning();
        await enqueueJob(ctx, reextractJob, { run_id: row!.id });
        return row!;
      });
      return reply.status(202).send(run);
    },
  );
  app.get(
    '/entity_type/:id/process',
    {
      schema: {
        tags: ['EntityType'],
        summary: "The type's latest re-extraction and its progress",
        params: idParam,
        ...answers(200, rowWith(entityTypeRuns, { percent: int })),
      },
    },
    (req) =>
      inTenant(
        req,
        async (ctx) => {
          await requireType(ctx, req.params.id);
          const [run] = await ctx.tx
            .select()
            .from(entityTypeRuns)
            .where(and(eq(entityTypeRuns.organization_id, ctx.orgId), eq(entityTypeRuns.entity_type_id, req.params.id)))
            .orderBy(desc(entityTypeRuns.id))
            .limit(1);
          if (!run) throw httpError(404, 'This entity type was never re-processed.', 'not_found', ['path', 'id']);
          return { ...run, percent: run.total ? Math.round((100 * run.processed) / run.total) : run.status === 'completed' ? 100 : 0 };
        },
        { readOnly: true },
      ),
  );
}

/**
 * One re-extraction run, in chunks of REEXTRACT_CHUNK instances, each its own transaction: the type's
 * old links in the chunk are replaced by what it finds now, and the run's cursor and counts move on in
 * the same commit, so a run taken up again after a crash neither skips nor counts twice.
 */
export const reextractJob = defineJob({
  name: REEXTRACT_QUEUE,
  payload: z.object({ run_id: z.number().int() }),
  run: async ({ run_id }, { org: { orgId }, tenant }) => {
    const start = await tenant((ctx) => startReextract(ctx, orgId, run_id));
    if (!start) return;
    try {
      // Each chunk its own transaction, until none is left.
      let more = true;
      while (more) more = await tenant((ctx) => reextractNextChunk(ctx, orgId, run_id));
    } catch (err) {
      await tenant((ctx) =>
        ctx.tx
          .update(entityTypeRuns)
          .set({ status: 'failed', error: String((err as Error).message).slice(0, 1000), finished_at: new Date(), updated_at: new Date() })
          .where(eq(entityTypeRuns.id, run_id)),
      );
      throw err;
    }
  },
});

/** A run taken up: null when it is over, else its type (a queued run counts its instances and starts running). */
async function startReextract(ctx: RequestContext, orgId: number, runId: number) {
  const [run] = await ctx.tx
    .select()
    .from(entityTypeRuns)
    .where(and(eq(entityTypeRuns.organization_id, orgId), eq(entityTypeRuns.id, runId)));
  if (!run || run.status === 'completed' || run.status === 'failed') return null;
  const type = await requireType(ctx, run.entity_type_id);
  if (run.status === 'queued') {
    const [c] = await ctx.tx
      .select({ n: sql<number>`count(*)::int` })
      .from(signalInstances)
      .where(instancesOfType(ctx, type));
    await ctx.tx.update(entityTypeRuns).set({ status: 'running', total: c!.n, updated_at: new Date() }).where(eq(entityTypeRuns.id, run.id));
  }
  return type;
}

/** The next chunk after the run's cursor re-extracted, with the cursor and counts; false once none is left (the run completed). */
async function reextractNextChunk(ctx: RequestContext, orgId: number, runId: number): Promise<boolean> {
  const [run] = await ctx.tx
    .select()
    .from(entityTypeRuns)
    .where(and(eq(entityTypeRuns.organization_id, orgId), eq(entityTypeRuns.id, runId)))
    .for('update');
  const type = await requireType(ctx, run!.entity_type_id);
  const rows = await ctx.tx
    .select({ id: signalInstances.id, raw: signalInstances.raw })
    .from(signalInstances)
    .where(and(instancesOfType(ctx, type), gt(signalInstances.id, run!.cursor)))
    .orderBy(signalInstances.id)
    .limit(REEXTRACT_CHUNK);
  if (!rows.length) {
    await ctx.tx.update(entityTypeRuns).set({ status: 'completed', finished_at: new Date(), updated_at: new Date() }).where(eq(entityTypeRuns.id, runId));
    return false;
  }
  const found = rows.map((r) => {
    try {
      return { id: r.id, values: extract(r.raw, [type]) };
    } catch {
      return { id: r.id, values: [] };
    }
  });
  const ids = rows.map((r) => r.id);
  await ctx.tx.execute(sql`delete from signal_instance_entities sie using entities e
    where sie.organization_id = ${orgId} and e.organization_id = ${orgId} and e.id = sie.entity_id and e.entity_type_id = ${type.id}
      and sie.signal_instance_id in ${sql`(${sql.join(
        ids.map((i) => sql`${i}`),
        sql`, `,
      )})`}`);
  await linkFound(ctx, orgId, type, found);
  const matched = found.filter((f) => f.values.length).length;
  await ctx.tx
    .update(entityTypeRuns)
    .set({
      processed: sql`${entityTypeRuns.processed} + ${rows.length}`,
      matched: sql`${entityTypeRuns.matched} + ${matched}`,
      cursor: ids[ids.length - 1]!,
      updated_at: new Date(),
    })
    .where(eq(entityTypeRuns.id, runId));
  return true;
}

/** The values found: their entities made when new, and linked to the instances they were found in. */
async function linkFound(
  ctx: RequestContext,
  orgId: number,
  type: { id: number; project_id: number | null },
  found: { id: number; values: { value: string; normalized: string }[] }[],
) {
  const wanted = new Map<string, { value: string; normalized: string }>();
  for (const f of found) for (const v of f.values) wanted.set(v.normalized, v);
  if (!wanted.size) return;
  const sorted = [...wanted.values()].sort((a, b) => (a.normalized < b.normalized ? -1 : 1));
  await ctx.tx
    .insert(entities)
    .values(
      sorted.map((v) => ({
        organization_id: orgId,
        project_id: type.project_id,
        entity_type_id: type.id,
        value: v.value,
        normalized: v.normalized,
        source: 'signal',
      })),
    )
    .onConflictDoNothing();
  const rowsFound = await ctx.tx
    .select({ id: entities.id, normalized: entities.normalized })
    .from(entities)
    .where(
      and(
        eq(entities.organization_id, orgId),
        eq(entities.entity_type_id, type.id),
        inArray(
          entities.normalized,
          sorted.map((v) => v.normalized),
        ),
      ),
    );
  const idOf = new Map(rowsFound.map((e) => [e.normalized, e.id]));
  const links = found.flatMap((f) =>
    [...new Set(f.values.map((v) => idOf.get(v.normalized)!))].map((entity_id) => ({ organization_id: orgId, signal_instance_id: f.id, entity_id })),
  );
  if (links.length) await ctx.tx.insert(signalInstanceEntities).values(links).onConflictDoNothing();
}
