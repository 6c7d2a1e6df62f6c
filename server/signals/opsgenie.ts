import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { systemActor } from '../core/context.js';
import { runInTenant } from '../core/tenancy.js';
import { addEvent } from '../timeline/events.js';
import { signalGroups, signalInstances } from './tables.js';
import type { Intake } from './intake.js';
import type { Source } from './sources.js';
import { parseBody } from './wire.js';
import { answers, bool, nullableStr, num, objectOf, str } from '../engine/answers.js';

/** Opsgenie's answer to a request it queues. */
const queued = answers(202, objectOf({ result: str, took: num, requestId: str }));
/** Opsgenie's answer about a request's outcome. */
const requestOutcome = answers(
  200,
  objectOf({
    data: objectOf({
      success: bool,
      isSuccess: bool,
      action: str,
      processedAt: { type: 'string', format: 'date-time', nullable: true },
      integrationId: str,
      status: str,
      alertId: str,
      alias: nullableStr,
    }),
    took: num,
    requestId: str,
  }),
);

/**
 * Opsgenie's Alert API (v2), so that what pages through Opsgenie today (Alertmanager's
 * opsgenie_configs, Grafana's Opsgenie contact point, Zabbix, Datadog) moves by changing its API URL
 * to /api/v1/{organization}/signals/opsgenie/. `Authorization: GenieKey <ingest key>`; the alias is
 * the dedup key; an alert's id (and tiny id) is its Firewatch alert series (signal group) id.
 */
// Opsgenie cuts a long message or description to its limits rather than refusing the alert (an
// Alertmanager group's description lists every alert in it).
const cut = (n: number) => (s: string) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const createAlert = z.looseObject({
  message: z.string().trim().min(1).max(100_000).transform(cut(130)),
  alias: z.string().min(1).max(512).optional(),
  description: z.string().max(1_000_000).transform(cut(15_000)).optional(),
  responders: z.array(z.looseObject({})).optional(),
  visibleTo: z.array(z.looseObject({})).optional(),
  actions: z.array(z.string()).max(10).optional(),
  tags: z.array(z.string()).max(20).optional(),
  details: z.record(z.string(), z.unknown()).optional(),
  entity: z.string().max(512).optional(),
  source: z.string().max(100).optional(),
  priority: z.enum(['P1', 'P2', 'P3', 'P4', 'P5']).optional(),
  user: z.string().max(100).optional(),
  note: z.string().max(25_000).optional(),
});
const actionBody = z.looseObject({ user: z.string().max(100).optional(), source: z.string().max(100).optional(), note: z.string().max(25_000).optional() });
const noteBody = actionBody.extend({ note: z.string().min(1).max(25_000) });
const identified = {
  params: z.object({ identifier: z.string().min(1).max(512) }),
  querystring: z.object({ identifierType: z.enum(['id', 'alias', 'tiny']).default('id') }),
};

/** A request id names the instance it stored (UUID-shaped, as Opsgenie's are): its status needs no table of its own. */
const requestIdOf = (instanceId: number) => `00000000-0000-4000-8000-${instanceId.toString(16).padStart(12, '0')}`;
const instanceOf = (requestId: string) => {
  const m = /^00000000-0000-4000-8000-([0-9a-f]{12})$/.exec(requestId);
  const id = m ? parseInt(m[1]!, 16) : NaN;
  return Number.isSafeInteger(id) && id > 0 && id < 2 ** 31 ? id : null;
};
const took = (reply: FastifyReply) => Math.round(reply.elapsedTime) / 1000;
const genieKey = (req: FastifyRequest) => /^GenieKey\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();

export function registerOpsgenie(scope: FastifyInstance, intake: Intake) {
  scope.addHook('onSend', withOpsgenieMessage);
  scope.post(base, { config, schema: { tags, summary: 'Opsgenie: create an alert (GenieKey <ingest key>)', ...queued } }, (req, reply) =>
    createAlertRequest(intake, req, reply),
  );
  for (const [action, eventAction] of [
    ['close', 'resolve'],
    ['acknowledge', 'acknowledge'],
  ] as const) {
    scope.post(`${base}/:identifier/${action}`, { config, schema: { tags, summary: `Opsgenie: ${action} an alert`, ...identified, ...queued } }, (req, reply) =>
      alertAction(intake, req, reply, action, eventAction),
    );
  }
  scope.post(
    `${base}/:identifier/notes`,
    { config, schema: { tags, summary: "Opsgenie: add a note (onto the alert's case timeline)", ...identified, ...queued } },
    (req, reply) => addNote(intake, req, reply),
  );
  scope.get(
    `${base}/requests/:requestId`,
    {
      config,
      schema: {
        tags,
        summary: 'Opsgenie: the outcome of a create, close or acknowledge request',
        params: z.object({ requestId: z.string().max(100) }),
        ...requestOutcome,
      },
    },
    (req, reply) => requestOutcomeOf(intake, req, reply),
  );
}

const base = '/signals/opsgenie/v2/alerts';
const config = { access: 'public' as const };
const tags = ['Signal ingestion'];

/** Opsgenie's clients read `message` (and `took`, `requestId`) on errors; the API's `detail` stays beside them. */
async function withOpsgenieMessage(_req: FastifyRequest, reply: FastifyReply, payload: unknown) {
  if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
  try {
    const body = JSON.parse(payload) as { detail?: { msg: string }[]; message?: string };
    if (!body.detail || body.message) return payload;
    return JSON.stringify({ message: body.detail.map((d) => d.msg).join(' '), took: took(reply), requestId: randomUUID(), ...body });
  } catch {
    return payload;
  }
}

const tenant = <T>(req: FastifyRequest, fn: Parameters<typeof runInTenant<T>>[3]) =>
  runInTenant(req.server.db, req.server.config, systemActor({ orgId: req.org.id, orgSlug: req.org.slug }, 'Member'), fn);

/** The open or last alert series an identifier names: its alias (dedup key) and case. */
const series = async (req: FastifyRequest, source: Source, identifier: string, type: 'id' | 'alias' | 'tiny') => {
  const id = Number(identifier);
  if (type === 'alias') return { alias: identifier, found: true };
  if (!Number.isSafeInteger(id) || id <= 0 || id >= 2 ** 31) return { alias: null, found: false };
  const [group] = await tenant(req, (ctx) =>
    ctx.tx
      .select({ key: signalGroups.group_key })
      .from(signalGroups)
      .where(and(eq(signalGroups.organization_id, ctx.orgId), eq(signalGroups.signal_id, source.id), eq(signalGroups.id, id))),
  );
  return group?.key.startsWith('k:') ? { alias: group.key.slice(2), found: true } : { alias: null, found: false };
};

const accepted = (req: FastifyRequest, reply: FastifyReply, instanceId: number) =>
  reply.status(202).send({ result: 'Request will be processed', took: took(reply), requestId: requestIdOf(instanceId) });
const missing = (req: FastifyRequest, reply: FastifyReply) =>
  reply.status(404).send({
    message: 'Alert does not exist',
    took: took(reply),
    requestId: randomUUID(),
    detail: [{ msg: 'Alert does not exist', loc: ['path', 'identifier'], type: 'not_found' }],
  });

/** The ingest key's source, the body (checked after the key), and the alias of the alert series the path's identifier names (null when none). */
async function identifiedAlias<T extends z.ZodType>(intake: Intake, req: FastifyRequest, schema: T) {
  const source = await intake.sourceOf(req, genieKey(req));
  const body = parseBody(schema, req.body ?? {});
  const { params, query } = req as unknown as { params: { identifier: string }; query: { identifierType: 'id' | 'alias' | 'tiny' } };
  const { alias } = await series(req, source, params.identifier, query.identifierType);
  return { source, body, alias };
}

/** POST …/alerts: an alert created (a trigger of its alias, or of a series of its own without one). */
async function createAlertRequest(intake: Intake, req: FastifyRequest, reply: FastifyReply) {
  const source = await intake.sourceOf(req, genieKey(req));
  const alert = parseBody(createAlert, req.body);
  // Without an alias every create is an alert of its own, as in Opsgenie.
  const alias = alert.alias ?? randomUUID();
  const ids = await intake.accept(req, reply, source, 'opsgenie', [{ raw: { ...alert, alias }, dedup_key: alias, event_action: 'trigger' }]);
  return ids ? accepted(req, reply, ids[0]!) : reply;
}

/** POST …/alerts/{identifier}/close or /acknowledge: the alert's series resolved or acknowledged. */
async function alertAction(intake: Intake, req: FastifyRequest, reply: FastifyReply, action: 'close' | 'acknowledge', eventAction: 'resolve' | 'acknowledge') {
  const { source, body, alias } = await identifiedAlias(intake, req, actionBody);
  if (!alias) return missing(req, reply);
  const ids = await intake.accept(req, reply, source, 'opsgenie', [{ raw: { ...body, alias, action }, dedup_key: alias, event_action: eventAction }]);
  return ids ? accepted(req, reply, ids[0]!) : reply;
}

/** POST …/alerts/{identifier}/notes: the note added onto the alert's case timeline. */
async function addNote(intake: Intake, req: FastifyRequest, reply: FastifyReply) {
  const { source, body, alias } = await identifiedAlias(intake, req, noteBody);
  if (!alias) return missing(req, reply);
  const added = await tenant(req, async (ctx) => {
    const [group] = await ctx.tx
      .select({ case_id: signalGroups.case_id })
      .from(signalGroups)
      .where(and(eq(signalGroups.organization_id, ctx.orgId), eq(signalGroups.signal_id, source.id), eq(signalGroups.group_key, `k:${alias}`)))
      .orderBy(signalGroups.id)
      .limit(1);
    if (!group?.case_id) return false;
    await addEvent(ctx, {
      case_id: group.case_id,
      type: 'Other',
      source: 'Opsgenie',
      description: `Note from ${body.user ?? 'Opsgenie'}: ${body.note}`,
      details: { alias },
    });
    return true;
  });
  if (!added) return missing(req, reply);
  return reply.status(202).send({ result: 'Request will be processed', took: took(reply), requestId: randomUUID() });
}

/** GET …/alerts/requests/{requestId}: whether the instance a request made was processed. */
async function requestOutcomeOf(intake: Intake, req: FastifyRequest, reply: FastifyReply) {
  const source = await intake.sourceOf(req, genieKey(req));
  const id = instanceOf((req.params as { requestId: string }).requestId);
  const [row] = id
    ? await tenant(req, (ctx) =>
        ctx.tx
          .select()
          .from(signalInstances)
          .where(and(eq(signalInstances.organization_id, ctx.orgId), eq(signalInstances.signal_id, source.id), eq(signalInstances.id, id))),
      )
    : [];
  if (!row) return reply.status(404).send({ message: 'Request does not exist', took: took(reply), requestId: randomUUID() });
  const action = row.event_action === 'trigger' ? 'Create' : row.event_action === 'resolve' ? 'Close' : 'Acknowledge';
  const done = row.processed_at !== null;
  return {
    data: {
      success: done,
      isSuccess: done,
      action,
      processedAt: row.processed_at,
      integrationId: String(source.id),
      status: done ? `${action === 'Create' ? 'Created' : action === 'Close' ? 'Closed' : 'Acknowledged'} alert` : 'Request is being processed',
      alertId: row.group_id ? String(row.group_id) : '',
      alias: row.dedup_key,
    },
    took: took(reply),
    requestId: (req.params as { requestId: string }).requestId,
  };
}
