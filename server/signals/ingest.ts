import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { unauthorized } from '../core/errors.js';
import { inTransaction } from '../core/jobs/queue.js';
import { runInTenant } from '../core/tenancy.js';
import { EVENT_ACTIONS, signalInstances, signals, type SIGNAL_SOURCES } from './tables.js';
import { hashIngestKey } from './resources.js';
import { processPending } from './process.js';

/** The queue whose jobs extract, filter, deduplicate and open cases for an organization's new instances. */
export const SIGNAL_QUEUE = 'signals-process';

const tags = ['Signal ingestion'];
const publicRoute = { access: 'public' as const };

interface Source {
  id: number;
  organization_id: number;
  project_id: number;
  hmac_secret: string | null;
}

interface Event {
  raw: Record<string, unknown>;
  dedup_key: string | null;
  event_action: (typeof EVENT_ACTIONS)[number];
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

const bearer = (req: FastifyRequest) => /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();

const nativeEvent = z.strictObject({
  raw: z.record(z.string(), z.unknown()),
  dedup_key: z.string().trim().min(1).max(255).optional(),
  event_action: z.enum(EVENT_ACTIONS).optional(),
});

const pagerDutyEvent = z
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
    if (e.event_action !== 'trigger' && !e.dedup_key) ctx.addIssue({ code: 'custom', message: `An ${e.event_action} event needs the dedup_key of its alert.`, path: ['dedup_key'] });
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

/** Alertmanager's webhook body (version 4); Grafana's adds orgId, title, state and message. */
const alertGroup = z.looseObject({
  version: z.string().optional(),
  groupKey: z.string().optional(),
  status: z.enum(['firing', 'resolved']),
  receiver: z.string().optional(),
  groupLabels: z.record(z.string(), z.string()).optional(),
  commonLabels: z.record(z.string(), z.string()).optional(),
  externalURL: z.string().optional(),
  alerts: z.array(amAlert).min(1).max(1000),
});

function groupEvents(body: z.infer<typeof alertGroup>): Event[] {
  const { alerts, ...group } = body;
  const context = Object.fromEntries(Object.entries(group).filter(([k]) => ['receiver', 'groupKey', 'externalURL', 'groupLabels', 'orgId', 'title'].includes(k)));
  return alerts.map((alert) => ({
    raw: { ...alert, ...context },
    dedup_key: alert.fingerprint ?? labelFingerprint(alert.labels),
    event_action: alert.status === 'resolved' ? 'resolve' : 'trigger',
  }));
}

/** Grafana's optional HMAC: hex SHA-256 over the body, or over `timestamp:body` when it sends a timestamp. */
function checkGrafanaSignature(req: FastifyRequest, secret: string) {
  const given = (req.headers['x-grafana-alerting-signature'] ?? req.headers['x-grafana-alert-signature']) as string | undefined;
  const timestamp = req.headers['x-grafana-alerting-signature-timestamp'] as string | undefined;
  const body = (req as FastifyRequest & { rawBody?: Buffer }).rawBody ?? Buffer.alloc(0);
  const mac = createHmac('sha256', secret);
  if (timestamp) mac.update(`${timestamp}:`);
  const expected = Buffer.from(mac.update(body).digest('hex'));
  const actual = Buffer.from(String(given ?? ''));
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) throw unauthorized('The Grafana signature does not match this source.', 'bad_signature');
}

/** Ingestion endpoints: the native API and the wire formats monitoring systems already speak. */
export function registerSignalIngest(scope: FastifyInstance) {
  const lookup = scope.db
    .select({ id: signals.id, organization_id: signals.organization_id, project_id: signals.project_id, hmac_secret: signals.hmac_secret })
    .from(signals)
    .where(eq(signals.ingest_key_hash, sql.placeholder('hash')))
    .prepare('signals_ingest_key');

  /** The source a key opens, in this organization only: a key never ingests into another one. */
  const sourceOf = async (req: FastifyRequest, key: string | undefined): Promise<Source> => {
    if (!key) throw unauthorized('An ingest key is required (Authorization: Bearer <key>, or routing_key for PagerDuty events).', 'not_authenticated');
    const [row] = await lookup.execute({ hash: hashIngestKey(key) });
    if (!row || row.organization_id !== req.org.id) throw unauthorized('Invalid ingest key.');
    return row;
  };

  /** Commits the events (and the job that processes them) before the caller gets its 2xx. */
  const accept = async (req: FastifyRequest, source: Source, kind: (typeof SIGNAL_SOURCES)[number], events: Event[]) => {
    const org = { orgId: source.organization_id, orgSlug: req.org.slug };
    const ids = await runInTenant(req.server.db, req.server.config, { ...org, userId: null, role: 'Member' }, async (ctx) => {
      const rows = await ctx.tx
        .insert(signalInstances)
        .values(events.map((e) => ({ organization_id: ctx.orgId, project_id: source.project_id, signal_id: source.id, source: kind, event_action: e.event_action, dedup_key: e.dedup_key, raw: e.raw })))
        .returning({ id: signalInstances.id });
      await ctx.asSystem((tx) => req.server.queue.enqueue(SIGNAL_QUEUE, org, { db: inTransaction(tx) }));
      return rows.map((r) => r.id);
    });
    req.server.queue.notify(SIGNAL_QUEUE);
    return ids;
  };

  const app = scope.withTypeProvider<ZodTypeProvider>();

  app.post('/signals/instances', { config: publicRoute, schema: { tags, summary: 'Send one signal (ingest key as bearer)', body: nativeEvent } }, async (req, reply) => {
    const source = await sourceOf(req, bearer(req));
    const [id] = await accept(req, source, 'native', [{ raw: req.body.raw, dedup_key: req.body.dedup_key ?? null, event_action: req.body.event_action ?? 'trigger' }]);
    return reply.status(202).send({ message: 'Signal accepted.', id, dedup_key: req.body.dedup_key ?? null });
  });

  app.post(
    '/signals/instances/batch',
    { config: publicRoute, schema: { tags, summary: 'Send up to 1,000 signals at once', body: z.strictObject({ items: z.array(nativeEvent).min(1).max(1000) }) } },
    async (req, reply) => {
      const source = await sourceOf(req, bearer(req));
      const ids = await accept(req, source, 'native', req.body.items.map((e) => ({ raw: e.raw, dedup_key: e.dedup_key ?? null, event_action: e.event_action ?? 'trigger' })));
      return reply.status(202).send({ message: 'Signals accepted.', ids });
    },
  );

  app.post('/signals/pagerduty/v2/enqueue', { config: publicRoute, schema: { tags, summary: 'PagerDuty Events API v2 (routing_key is the ingest key)', body: pagerDutyEvent } }, async (req, reply) => {
    const source = await sourceOf(req, req.body.routing_key);
    // PagerDuty makes up a key for a trigger without one and returns it, so later events can name the alert.
    const dedupKey = req.body.dedup_key ?? randomUUID();
    const { routing_key: _secret, ...raw } = req.body;
    await accept(req, source, 'pagerduty', [{ raw: { ...raw, dedup_key: dedupKey }, dedup_key: dedupKey, event_action: req.body.event_action }]);
    return reply.status(202).send({ status: 'success', message: 'Event processed', dedup_key: dedupKey });
  });

  app.post('/signals/alertmanager', { config: publicRoute, schema: { tags, summary: 'Prometheus Alertmanager webhook (ingest key as bearer)', body: alertGroup } }, async (req, reply) => {
    const source = await sourceOf(req, bearer(req));
    const ids = await accept(req, source, 'alertmanager', groupEvents(req.body));
    return reply.status(202).send({ message: 'Alerts accepted.', ids });
  });

  // Grafana's signature covers the exact bytes sent, so this route keeps the raw body beside the parsed one.
  scope.register(async (child) => {
    child.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
      (req as FastifyRequest & { rawBody?: Buffer }).rawBody = body as Buffer;
      try {
        done(null, JSON.parse((body as Buffer).toString('utf8')));
      } catch {
        done(Object.assign(new Error('invalid JSON'), { statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' }), undefined);
      }
    });
    child.withTypeProvider<ZodTypeProvider>().post(
      '/signals/grafana',
      { config: publicRoute, schema: { tags, summary: 'Grafana alerting webhook (ingest key as bearer; HMAC checked when the signal has a secret)', body: alertGroup } },
      async (req, reply) => {
        const source = await sourceOf(req, bearer(req));
        if (source.hmac_secret) checkGrafanaSignature(req, source.hmac_secret);
        const ids = await accept(req, source, 'grafana', groupEvents(req.body));
        return reply.status(202).send({ message: 'Alerts accepted.', ids });
      },
    );
  });
}

/** The worker that processes new instances, per organization, in batches (see process.ts). */
export async function registerSignalJobs(app: FastifyInstance) {
  await app.queue.work<{ orgId: number; orgSlug: string }>(SIGNAL_QUEUE, (d) => processPending(app.db, app.config, d).then(() => undefined), { concurrency: 2 });
}

/** Tests and the bench: resolves once no instance of the organization waits for processing. */
export async function drainSignals(app: FastifyInstance, orgId: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await app.db.select({ n: sql<number>`count(*)::int` }).from(signalInstances).where(sql`${signalInstances.organization_id} = ${orgId} and ${signalInstances.processed_at} is null`);
    if (!row!.n) return;
    if (Date.now() > deadline) throw new Error(`${row!.n} signal instance(s) still unprocessed after ${timeoutMs} ms`);
    app.queue.notify(SIGNAL_QUEUE);
    await new Promise((r) => setTimeout(r, 50));
  }
}
