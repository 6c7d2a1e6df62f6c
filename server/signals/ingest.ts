import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { httpError } from '../core/errors.js';
import { answers, arrayOf, int, nullableStr, objectOf, str } from '../engine/answers.js';
import { createIntake, type Intake } from './intake.js';
import { dispatchSource } from './dispatch.js';
import { registerOpsgenie } from './opsgenie.js';
import {
  alertGroup,
  bearer,
  checkGrafanaSignature,
  dispatchEvent,
  GROUP_BODY_LIMIT,
  groupEvents,
  MAX_GROUP_ALERTS,
  nativeEvent,
  pagerDutyChange,
  pagerDutyErrors,
  pagerDutyEvent,
  parseBody,
  retryableRefusals,
} from './wire.js';

export { registerSignalProcessor, drainSignals } from './processor.js';
export { groupCommitTimings, type GroupCommitTiming } from './commit.js';
export { reserveTimings, RateLimiter, DEFAULT_RATE_PER_MINUTE } from './rate-limit.js';
export { labelFingerprint } from './wire.js';

const tags = ['Signal ingestion'];
const publicRoute = { access: 'public' as const };
/** What an accepted delivery answers (202: stored, processed later), for the OpenAPI document. */
const acceptedOne = answers(202, objectOf({ message: str, id: int, dedup_key: nullableStr }));
const acceptedMany = answers(202, objectOf({ message: str, ids: arrayOf(int) }));
/** PagerDuty's own answer, so its clients read it. */
const pagerDutyAccepted = answers(202, objectOf({ status: str, message: str, dedup_key: str }));
/** Bodies are checked after the key (parseBody): an unauthenticated caller is not told the schema. */
const anyBody = z.record(z.string(), z.unknown());

/** Ingestion endpoints: the native API and the wire formats monitoring systems already speak. */
export function registerSignalIngest(scope: FastifyInstance) {
  const intake = createIntake(scope);
  registerNative(scope, intake);
  scope.register(async (child) => registerPagerDuty(child, intake));
  scope.register(async (child) => registerGroups(child, intake));
  scope.register(async (child) => registerOpsgenie(child, intake));
}

function registerNative(scope: FastifyInstance, intake: Intake) {
  scope.post(
    '/signals/instances',
    {
      config: publicRoute,
      schema: {
        tags,
        summary:
          "Send one signal: {raw, dedup_key?, event_action?} with the ingest key as bearer, or Dispatch's {project: {name}, raw} with a user's or API key's",
        body: anyBody,
        ...acceptedOne,
      },
    },
    async (req, reply) => {
      const body = req.body as Record<string, unknown>;
      if ('project' in body) {
        const dispatch = parseBody(dispatchEvent, body);
        const source = await dispatchSource(req, intake, dispatch);
        const ids = await intake.accept(req, reply, source, 'native', [{ raw: dispatch.raw, dedup_key: null, event_action: 'trigger' }]);
        if (!ids) return reply;
        return reply.status(202).send({ message: 'Signal accepted.', id: ids[0], dedup_key: null });
      }
      const source = await intake.sourceOf(req, bearer(req));
      const e = parseBody(nativeEvent, body);
      const ids = await intake.accept(req, reply, source, 'native', [
        { raw: e.raw, dedup_key: e.dedup_key ?? null, event_action: e.event_action ?? 'trigger' },
      ]);
      if (!ids) return reply;
      return reply.status(202).send({ message: 'Signal accepted.', id: ids[0], dedup_key: e.dedup_key ?? null });
    },
  );

  scope.post(
    '/signals/instances/batch',
    { config: publicRoute, schema: { tags, summary: 'Send up to 1,000 signals at once', body: anyBody, ...acceptedMany } },
    async (req, reply) => {
      const source = await intake.sourceOf(req, bearer(req));
      const { items } = parseBody(z.strictObject({ items: z.array(nativeEvent).min(1).max(1000) }), req.body);
      const ids = await intake.accept(
        req,
        reply,
        source,
        'native',
        items.map((e) => ({ raw: e.raw, dedup_key: e.dedup_key ?? null, event_action: e.event_action ?? 'trigger' })),
      );
      if (!ids) return reply;
      return reply.status(202).send({ message: 'Signals accepted.', ids });
    },
  );
}

/** PagerDuty's Events API v2: alert events and change events, its error shape and its 429. */
function registerPagerDuty(scope: FastifyInstance, intake: Intake) {
  pagerDutyErrors(scope);
  const routingKey = (body: unknown) => {
    const key = (body as { routing_key?: unknown }).routing_key;
    return typeof key === 'string' ? key : undefined;
  };
  scope.post(
    '/signals/pagerduty/v2/enqueue',
    { config: publicRoute, schema: { tags, summary: 'PagerDuty Events API v2 (routing_key is the ingest key)', body: anyBody, ...pagerDutyAccepted } },
    async (req, reply) => {
      const source = await intake.sourceOf(req, routingKey(req.body));
      const event = parseBody(pagerDutyEvent, req.body);
      // PagerDuty makes up a key for a trigger without one and returns it, so later events can name the alert.
      const dedupKey = event.dedup_key ?? randomUUID();
      const { routing_key: _secret, ...raw } = event;
      if (
        !(await intake.accept(req, reply, source, 'pagerduty', [
          { raw: { ...raw, dedup_key: dedupKey }, dedup_key: dedupKey, event_action: event.event_action },
        ]))
      )
        return reply;
      return reply.status(202).send({ status: 'success', message: 'Event processed', dedup_key: dedupKey });
    },
  );
  scope.post(
    '/signals/pagerduty/v2/change/enqueue',
    {
      config: publicRoute,
      schema: {
        tags,
        summary: "PagerDuty change events: onto the timelines of the open cases and incidents of the source's service",
        body: anyBody,
        ...answers(202, objectOf({ status: str, message: str })),
      },
    },
    async (req, reply) => {
      const source = await intake.sourceOf(req, routingKey(req.body));
      const { routing_key: _secret, ...raw } = parseBody(pagerDutyChange, req.body);
      if (!(await intake.accept(req, reply, source, 'pagerduty', [{ raw, dedup_key: null, event_action: 'change' }]))) return reply;
      return reply.status(202).send({ status: 'success', message: 'Change event processed' });
    },
  );
}

/** Alertmanager's and Grafana's group webhooks: whole groups, and refusals they retry. */
function registerGroups(scope: FastifyInstance, intake: Intake) {
  retryableRefusals(scope);
  // Grafana's signature covers the exact bytes sent, so these routes keep the raw body beside the parsed one.
  scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: GROUP_BODY_LIMIT }, (req, body, done) => {
    (req as FastifyRequest & { rawBody?: Buffer }).rawBody = body as Buffer;
    try {
      done(null, JSON.parse((body as Buffer).toString('utf8')));
    } catch {
      done(Object.assign(new Error('invalid JSON'), { statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' }), undefined);
    }
  });
  const events = (body: unknown) => {
    const alerts = (body as { alerts?: unknown }).alerts;
    if (Array.isArray(alerts) && alerts.length > MAX_GROUP_ALERTS)
      throw httpError(503, `A group of more than ${MAX_GROUP_ALERTS} alerts is not taken at once; send it again in smaller groups.`, 'too_many_alerts');
    return groupEvents(parseBody(alertGroup, body));
  };
  const options = (summary: string) => ({ config: publicRoute, bodyLimit: GROUP_BODY_LIMIT, schema: { tags, summary, body: anyBody, ...acceptedMany } });
  scope.post('/signals/alertmanager', options('Prometheus Alertmanager webhook (ingest key as bearer)'), async (req, reply) => {
    const source = await intake.sourceOf(req, bearer(req));
    const ids = await intake.accept(req, reply, source, 'alertmanager', events(req.body));
    if (!ids) return reply;
    return reply.status(202).send({ message: 'Alerts accepted.', ids });
  });
  // Grafana's webhook contact point may use POST or PUT.
  scope.route({
    method: ['POST', 'PUT'],
    url: '/signals/grafana',
    ...options('Grafana alerting webhook (ingest key as bearer; HMAC checked when the signal has a secret)'),
    handler: async (req, reply) => {
      const source = await intake.sourceOf(req, bearer(req));
      if (source.hmac_secret) checkGrafanaSignature(req, { ...source, hmac_secret: source.hmac_secret });
      const ids = await intake.accept(req, reply, source, 'grafana', events(req.body));
      if (!ids) return reply;
      return reply.status(202).send({ message: 'Alerts accepted.', ids });
    },
  });
}
