import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { HttpError, unauthorized } from '../core/errors.js';
import { EVENT_ACTIONS, type INSTANCE_ACTIONS } from './tables.js';

/** One event as the group commit stores it. */
export interface Event {
  raw: Record<string, unknown>;
  dedup_key: string | null;
  event_action: (typeof INSTANCE_ACTIONS)[number];
}

/** Prometheus' label-set fingerprint (FNV-1a 64 over sorted `name 0xFF value 0xFF`), for alerts sent without one. */
export function labelFingerprint(labels: Record<string, string>): string {
  let h = 0xcbf29ce484222325n;
  const add = (bytes: Uint8Array) => {
    for (const b of bytes) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  };
  const enc = new TextEncoder();
  for (const name of Object.keys(labels).sort()) {
    add(enc.encode(name));
    add(Uint8Array.of(0xff));
    add(enc.encode(labels[name]!));
    add(Uint8Array.of(0xff));
  }
  return h.toString(16).padStart(16, '0');
}

export const bearer = (req: FastifyRequest) => /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();

/**
 * Parses a body after the caller's key was checked (an unauthenticated caller is not told the
 * schema), answering 422 in the API's shape.
 */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw new HttpError(
    422,
    parsed.error.issues.map((i) =>
      i.code === 'unrecognized_keys'
        ? { msg: `Unknown field '${i.keys.join("', '")}'.`, loc: ['body', ...i.path.map(String), ...i.keys], type: 'extra_forbidden' }
        : { msg: i.message, loc: ['body', ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))], type: i.code },
    ),
  );
}

export const nativeEvent = z.strictObject({
  raw: z.record(z.string(), z.unknown()),
  dedup_key: z.string().trim().min(1).max(255).optional(),
  event_action: z.enum(EVENT_ACTIONS).optional(),
});

/** Dispatch's SignalInstanceCreate: the project by name, the definition found by raw.externalId or raw.variant. */
export const dispatchEvent = z.looseObject({
  project: z.looseObject({ name: z.string().min(1).max(200) }),
  raw: z.looseObject({ externalId: z.string().max(500).optional(), variant: z.string().max(200).optional(), id: z.string().max(255).optional() }),
});

export const pagerDutyEvent = z
  .looseObject({
    routing_key: z.string().min(1).max(100),
    event_action: z.enum(EVENT_ACTIONS),
    dedup_key: z.string().min(1).max(255).optional(),
    payload: z
      .looseObject({
        summary: z.string().min(1).max(1024),
        source: z.string().min(1).max(255),
        severity: z.enum(['critical', 'error', 'warning', 'info']),
        timestamp: z.string().optional(),
        component: z.string().optional(),
        group: z.string().optional(),
        class: z.string().optional(),
        custom_details: z.unknown().optional(),
      })
      .optional(),
  })
  .superRefine((e, ctx) => {
    if (e.event_action === 'trigger' && !e.payload) ctx.addIssue({ code: 'custom', message: 'A trigger event needs a payload.', path: ['payload'] });
    if (e.event_action !== 'trigger' && !e.dedup_key)
      ctx.addIssue({ code: 'custom', message: `An ${e.event_action} event needs the dedup_key of its alert.`, path: ['dedup_key'] });
  });

/** PagerDuty's change event (Events API v2, /v2/change/enqueue). */
export const pagerDutyChange = z.looseObject({
  routing_key: z.string().min(1).max(100),
  payload: z.looseObject({
    summary: z.string().min(1).max(1024),
    timestamp: z.string().optional(),
    source: z.string().max(255).optional(),
    custom_details: z.unknown().optional(),
  }),
  links: z.array(z.looseObject({ href: z.string(), text: z.string().optional() })).optional(),
});

const amAlert = z.looseObject({
  status: z.enum(['firing', 'resolved']),
  labels: z.record(z.string(), z.string()),
  annotations: z.record(z.string(), z.string()).optional(),
  startsAt: z.string().optional(),
  endsAt: z.string().optional(),
  generatorURL: z.string().optional(),
  fingerprint: z.string().min(1).max(255).optional(),
});

/** Most alerts one Alertmanager or Grafana request may carry (Alertmanager sends a whole group at once). */
export const MAX_GROUP_ALERTS = 20_000;
/** Largest body the group routes take (their groups, not the API's BODY_LIMIT). */
export const GROUP_BODY_LIMIT = 32 * 1024 * 1024;

/** Alertmanager's webhook body (version 4); Grafana's adds orgId, title, state and message. */
export const alertGroup = z.looseObject({
  version: z.string().optional(),
  groupKey: z.string().optional(),
  status: z.enum(['firing', 'resolved']),
  receiver: z.string().optional(),
  groupLabels: z.record(z.string(), z.string()).optional(),
  commonLabels: z.record(z.string(), z.string()).optional(),
  externalURL: z.string().optional(),
  alerts: z.array(amAlert).min(1),
});

export function groupEvents(body: z.infer<typeof alertGroup>): Event[] {
  const { alerts, ...group } = body;
  const context = Object.fromEntries(
    Object.entries(group).filter(([k]) => ['receiver', 'groupKey', 'externalURL', 'groupLabels', 'orgId', 'title'].includes(k)),
  );
  return alerts.map((alert) => ({
    raw: { ...alert, ...context },
    dedup_key: alert.fingerprint ?? labelFingerprint(alert.labels),
    event_action: alert.status === 'resolved' ? 'resolve' : 'trigger',
  }));
}

/** How old (or how far ahead) a signed Grafana timestamp may be: a captured delivery cannot be replayed later. */
export const REPLAY_WINDOW_SECONDS = 300;

/**
 * Grafana's optional HMAC (grafana/alerting http/hmac.go): hex SHA-256 over the body, or over
 * `timestamp:body` when a timestamp header is configured. The header names are the source's, as
 * Grafana lets the user name both; without them, Grafana's default signature headers.
 */
export function checkGrafanaSignature(req: FastifyRequest, source: { hmac_secret: string; signature_header: string | null; timestamp_header: string | null }) {
  const header = (name: string) => req.headers[name.toLowerCase()] as string | undefined;
  const given = source.signature_header ? header(source.signature_header) : (header('x-grafana-alerting-signature') ?? header('x-grafana-alert-signature'));
  const timestamp = header(source.timestamp_header ?? 'x-grafana-alerting-signature-timestamp');
  if (source.timestamp_header && !timestamp) throw unauthorized(`The ${source.timestamp_header} header is missing.`, 'bad_signature');
  const body = (req as FastifyRequest & { rawBody?: Buffer }).rawBody ?? Buffer.alloc(0);
  const mac = createHmac('sha256', source.hmac_secret);
  if (timestamp) mac.update(`${timestamp}:`);
  const expected = Buffer.from(mac.update(body).digest('hex'));
  const actual = Buffer.from(String(given ?? ''));
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected))
    throw unauthorized('The Grafana signature does not match this source.', 'bad_signature');
  if (timestamp) {
    const at = Number(timestamp) * (timestamp.length > 11 ? 1 : 1000);
    if (!Number.isFinite(at) || Math.abs(Date.now() - at) > REPLAY_WINDOW_SECONDS * 1000)
      throw unauthorized(`The signed timestamp is more than ${REPLAY_WINDOW_SECONDS / 60} minutes away from now.`, 'stale_signature');
  }
}

/** Seconds a sender is asked to wait before it sends again (503 and 429 answers). */
export const RETRY_AFTER_SECONDS = 5;

/**
 * Alertmanager and Grafana drop an alert group on any 4xx and retry 5xx: on their routes a refusal
 * the group is not at fault for (too large, over the rate, shutting down) becomes 503 with Retry-After.
 */
export function retryableRefusals(scope: FastifyInstance) {
  scope.addHook('onSend', async (_req, reply, payload) => {
    const status = reply.statusCode;
    if (status === 413 || status === 429) reply.status(503);
    if (reply.statusCode === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    return payload;
  });
}

/**
 * PagerDuty's error shape on its routes (`400 {status, message, errors}`), so its client libraries
 * read it; the API's `detail` stays beside it.
 */
export function pagerDutyErrors(scope: FastifyInstance) {
  scope.addHook('onSend', async (_req, reply, payload) => {
    const status = reply.statusCode;
    if (![400, 413, 415, 422].includes(status) || typeof payload !== 'string') return payload;
    try {
      const body = JSON.parse(payload) as { detail?: { msg: string; loc: unknown[] }[]; status?: string };
      if (!body.detail || body.status) return payload;
      reply.status(400);
      const errors = body.detail.map((d) => (d.loc.length > 1 ? `${d.loc.slice(1).join('.')}: ${d.msg}` : d.msg));
      return JSON.stringify({ status: 'invalid event', message: 'Event object is invalid', errors, detail: body.detail });
    } catch {
      return payload;
    }
  });
}
