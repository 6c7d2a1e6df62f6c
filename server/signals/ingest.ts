import { systemActor } from '../core/context.js';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { channel } from 'node:diagnostics_channel';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { unauthorized } from '../core/errors.js';
import { rowsOf, type Db } from '../core/db/client.js';
import { runInTenant } from '../core/tenancy.js';
import { listen } from '../core/jobs/wakeup.js';
import { answers, arrayOf, int, nullableStr, objectOf, str } from '../engine/answers.js';
import { EVENT_ACTIONS, signalInstances, signals, type SIGNAL_SOURCES } from './tables.js';
import { hashIngestKey } from './resources.js';
import { forgetSources, knownSources, SOURCE_TTL_MS, SOURCES_CHANNEL, type Source } from './sources.js';
import { PARTITIONS, PROCESS_BATCH, processPending } from './process.js';

const tags = ['Signal ingestion'];
const publicRoute = { access: 'public' as const };
/** What an accepted delivery answers (202: stored, processed later), for the OpenAPI document. */
const acceptedOne = answers(202, objectOf({ message: str, id: int, dedup_key: nullableStr }));
const acceptedMany = answers(202, objectOf({ message: str, ids: arrayOf(int) }));
/** PagerDuty's own answer, so its clients read it. */
const pagerDutyAccepted = answers(202, objectOf({ status: str, message: str, dedup_key: str }));

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
    if (e.event_action !== 'trigger' && !e.dedup_key)
      ctx.addIssue({ code: 'custom', message: `An ${e.event_action} event needs the dedup_key of its alert.`, path: ['dedup_key'] });
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
  const context = Object.fromEntries(
    Object.entries(group).filter(([k]) => ['receiver', 'groupKey', 'externalURL', 'groupLabels', 'orgId', 'title'].includes(k)),
  );
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
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected))
    throw unauthorized('The Grafana signature does not match this source.', 'bad_signature');
}

/** Each reservation from a shared rate bucket ({start, end}), for the bench; published only while subscribed. */
export const reserveTimings = channel('firewatch.signals.reserve');

/** Events a source may send a minute when its definition sets no rate_limit_per_minute. */
export const DEFAULT_RATE_PER_MINUTE = 12_000;

/** A reservation from the shared bucket: tokens granted to this process, and what the bucket held before. */
export type Reserve = (org: { orgId: number; orgSlug: string }, sourceId: number, perMinute: number, want: number) => Promise<number>;

/**
 * Per-source token buckets (a minute's worth of events, refilled continuously), shared by every app
 * process on the database (signal_rate_buckets). A process reserves tokens in chunks of a tenth of a
 * second's rate and spends them locally, so the hot path touches the bucket once per chunk, not per
 * request (the next chunk is reserved in the background before the last runs out); N processes
 * overshoot by at most one and a half chunks each, never N times the rate. A request that does not
 * fit gets a 429 before anything is stored, so it can be sent again as it was; nothing accepted is
 * ever dropped. After a refusal the process answers from memory until the next token is due.
 */
export class RateLimiter {
  private local = new Map<number, Bucket>();
  constructor(
    private readonly reserve: Reserve,
    private readonly now = () => Date.now(),
  ) {}

  static chunk(perMinute: number) {
    return Math.max(1, Math.min(500, Math.ceil(perMinute / 600)));
  }

  /** Takes `n` tokens, or returns the seconds until they would be there. */
  async take(org: { orgId: number; orgSlug: string }, sourceId: number, perMinute: number, n: number): Promise<number> {
    const rate = perMinute / 60_000;
    const b = this.local.get(sourceId) ?? { tokens: 0, dryUntil: 0, dryRate: 0, pending: null };
    this.local.set(sourceId, b);
    for (;;) {
      if (n <= b.tokens) {
        b.tokens -= n;
        this.ahead(org, sourceId, perMinute, b);
        return 0;
      }
      const wait = () => Math.max(1, Math.ceil((Math.min(n, perMinute) - b.tokens) / rate / 1000));
      // (A changed limit asks the bucket again at once.)
      if (this.now() < b.dryUntil && b.dryRate === perMinute) return wait();
      if (b.pending) {
        // Another request of this process is already reserving: share its chunk instead of asking again.
        await b.pending;
        continue;
      }
      const want = Math.max(Math.ceil(n - b.tokens), RateLimiter.chunk(perMinute));
      let granted = 0;
      const start = performance.now();
      b.pending = this.reserve(org, sourceId, perMinute, want).then((g) => {
        granted = g;
        if (reserveTimings.hasSubscribers) reserveTimings.publish({ start, end: performance.now() });
      });
      try {
        await b.pending;
      } finally {
        b.pending = null;
      }
      b.tokens += granted;
      if (n <= b.tokens) {
        b.tokens -= n;
        this.ahead(org, sourceId, perMinute, b);
        return 0;
      }
      b.dryUntil = this.now() + (Math.min(n, perMinute) - b.tokens) / rate;
      b.dryRate = perMinute;
      return wait();
    }
  }

  /**
   * Reserves the next chunk in the background once fewer than half a chunk is left, so a steady stream
   * does not wait for the bucket's transaction (a commit) every chunk's worth of events.
   */
  private ahead(org: { orgId: number; orgSlug: string }, sourceId: number, perMinute: number, b: Bucket) {
    const chunk = RateLimiter.chunk(perMinute);
    if (b.pending || b.tokens >= chunk / 2) return;
    b.pending = this.reserve(org, sourceId, perMinute, chunk)
      .then(
        (g) => void (b.tokens += g),
        // Nothing was granted: the next request that runs short reserves itself, and sees the error.
        () => undefined,
      )
      .finally(() => (b.pending = null));
  }
}
interface Bucket {
  tokens: number;
  dryUntil: number;
  dryRate: number;
  pending: Promise<void> | null;
}

/** Takes up to `want` tokens from the source's shared bucket in one transaction (the row lock orders processes). */
export function databaseReserve(app: Pick<FastifyInstance, 'db' | 'config'>): Reserve {
  return ({ orgId, orgSlug }, sourceId, perMinute, want) =>
    runInTenant(app.db, app.config, systemActor({ orgId, orgSlug }, 'Member'), async (ctx) => {
      await ctx.tx.execute(
        sql`insert into signal_rate_buckets (organization_id, signal_id, tokens) values (${orgId}, ${sourceId}, ${perMinute}) on conflict do nothing`,
      );
      const [row] = rowsOf<{ granted: number }>(
        await ctx.tx
          .execute(sql`with b as (select tokens, refilled_at, clock_timestamp() as at from signal_rate_buckets where organization_id = ${orgId} and signal_id = ${sourceId} for update),
            r as (select at, least(${perMinute}::float8, tokens + greatest(0, extract(epoch from at - refilled_at)) * ${perMinute / 60}::float8) as t from b)
          update signal_rate_buckets u set tokens = r.t - least(${want}::float8, floor(r.t)), refilled_at = r.at
          from r where u.organization_id = ${orgId} and u.signal_id = ${sourceId}
          returning least(${want}::float8, floor(r.t))::int as granted`),
      );
      return row?.granted ?? 0;
    });
}

/** How PagerDuty answers too many events (status and message), with the house `detail` beside them. */
function throttled(reply: FastifyReply, retryAfter: number) {
  const message = 'Requests for this service are arriving too quickly. Please retry later.';
  return reply
    .status(429)
    .header('retry-after', String(retryAfter))
    .send({ status: 'throttle event', message, detail: [{ msg: message, loc: [], type: 'rate_limited' }] });
}

interface Waiting {
  orgSlug: string;
  /** When it was queued (performance.now()). */
  at: number;
  rows: { project_id: number; signal_id: number; source: string; event_action: string; dedup_key: string | null; raw: Record<string, unknown> }[];
  resolve: (ids: number[]) => void;
  reject: (err: unknown) => void;
}

/** At most this many instances per insert, and this many inserts per organization in flight. */
const GROUP_MAX_ROWS = 2000;
const GROUP_IN_FLIGHT = 2;

/** Each group commit's timings, for the bench (bench/suites/signals.ts); nothing is built while nobody subscribes. */
export const groupCommitTimings = channel('firewatch.signals.group-commit');
export interface GroupCommitTiming {
  start: number;
  end: number;
  rows: number;
  requests: number;
  /** How long its oldest request waited in the queue before this insert went out. */
  waited: number;
}

/**
 * Group commit: requests that arrive while an organization's insert is in flight are inserted together
 * in the next one (one statement, one commit, one fsync), each answered once its rows committed. Under
 * light load every request is its own transaction; under heavy load commits carry hundreds of events.
 */
function groupCommitter(app: Pick<FastifyInstance, 'db' | 'config'>, onCommitted: (org: { orgId: number; orgSlug: string }) => void) {
  const waiting = new Map<number, Waiting[]>();
  const inFlight = new Map<number, number>();
  const flush = (orgId: number) => {
    const queue = waiting.get(orgId);
    if (!queue?.length || (inFlight.get(orgId) ?? 0) >= GROUP_IN_FLIGHT) return;
    const taken: Waiting[] = [];
    let rows = 0;
    while (queue.length && (rows === 0 || rows + queue[0]!.rows.length <= GROUP_MAX_ROWS)) {
      const w = queue.shift()!;
      rows += w.rows.length;
      taken.push(w);
    }
    inFlight.set(orgId, (inFlight.get(orgId) ?? 0) + 1);
    const org = { orgId, orgSlug: taken[0]!.orgSlug };
    const start = performance.now();
    const all = taken.flatMap((w) => w.rows);
    runInTenant(app.db, app.config, systemActor(org, 'Member'), async (ctx) =>
      // One parameter however many rows: no per-value query building, and one plan for every batch size.
      rowsOf<{ id: number }>(
        await ctx.tx.execute(sql`insert into signal_instances (organization_id, project_id, signal_id, source, event_action, dedup_key, raw)
          select ${orgId}, r.project_id, r.signal_id, r.source, r.event_action, r.dedup_key, r.raw
          from rows from (jsonb_to_recordset(${JSON.stringify(all)}::jsonb) as (project_id int, signal_id int, source text, event_action text, dedup_key text, raw jsonb))
            with ordinality as r(project_id, signal_id, source, event_action, dedup_key, raw, n)
          order by r.n returning id`),
      ).map((r) => r.id),
    )
      .then((ids) => {
        let at = 0;
        for (const w of taken) {
          w.resolve(ids.slice(at, at + w.rows.length));
          at += w.rows.length;
        }
        if (groupCommitTimings.hasSubscribers)
          groupCommitTimings.publish({ start, end: performance.now(), rows, requests: taken.length, waited: start - taken[0]!.at } satisfies GroupCommitTiming);
        onCommitted(org);
      })
      .catch((err) => taken.forEach((w) => w.reject(err)))
      .finally(() => {
        inFlight.set(orgId, inFlight.get(orgId)! - 1);
        flush(orgId);
      });
  };
  return (orgId: number, w: Waiting) => {
    const queue = waiting.get(orgId) ?? [];
    queue.push(w);
    waiting.set(orgId, queue);
    flush(orgId);
  };
}

/** Ingestion endpoints: the native API and the wire formats monitoring systems already speak. */
export function registerSignalIngest(scope: FastifyInstance) {
  const lookup = scope.db
    .select({
      id: signals.id,
      organization_id: signals.organization_id,
      project_id: signals.project_id,
      hmac_secret: signals.hmac_secret,
      rate_limit_per_minute: signals.rate_limit_per_minute,
      // When the key matched is the previous one, the end of its grace.
      previous_until:
        sql<Date | null>`case when ${signals.ingest_key_hash} = ${sql.placeholder('hash')} then null else ${signals.previous_key_expires_at} end`.mapWith(
          signals.previous_key_expires_at,
        ),
    })
    .from(signals)
    .where(
      sql`${signals.ingest_key_hash} = ${sql.placeholder('hash')} or (${signals.previous_ingest_key_hash} = ${sql.placeholder('hash')} and ${signals.previous_key_expires_at} > now())`,
    )
    .prepare('signals_ingest_key');
  const limiter = new RateLimiter(databaseReserve(scope));
  const submit = groupCommitter(scope, (org) => wakeProcessor(scope.db, org));
  let unlisten: (() => Promise<void>) | null = null;
  scope.addHook('onReady', async () => {
    unlisten = await listen(scope.database, SOURCES_CHANNEL, forgetSources);
  });
  scope.addHook('onClose', async () => {
    // The database may be closed already (by whoever opened it); nothing is left to stop then.
    await unlisten?.().catch(() => undefined);
  });

  /** The source a key opens, in this organization only: a key never ingests into another one. */
  const sourceOf = async (req: FastifyRequest, key: string | undefined): Promise<Source> => {
    if (!key) throw unauthorized('An ingest key is required (Authorization: Bearer <key>, or routing_key for PagerDuty events).', 'not_authenticated');
    const hash = hashIngestKey(key);
    let source = knownSources.get(hash);
    if (!source) {
      const [row] = await lookup.execute({ hash });
      if (!row) throw unauthorized('Invalid ingest key.');
      const { previous_until, ...found } = row;
      source = found;
      // A previous key that expires sooner is kept only until then.
      knownSources.set(hash, source, { ttl: previous_until ? Math.max(1, Math.min(SOURCE_TTL_MS, previous_until.getTime() - Date.now())) : SOURCE_TTL_MS });
    }
    if (source.organization_id !== req.org.id) throw unauthorized('Invalid ingest key.');
    return source;
  };

  /**
   * Commits the events before the caller gets its 2xx (processed later by the processor); null when
   * the source is over its rate, after the 429 was sent.
   */
  const accept = async (
    req: FastifyRequest,
    reply: FastifyReply,
    source: Source,
    kind: (typeof SIGNAL_SOURCES)[number],
    events: Event[],
  ): Promise<number[] | null> => {
    const wait = await limiter.take(
      { orgId: source.organization_id, orgSlug: req.org.slug },
      source.id,
      source.rate_limit_per_minute ?? DEFAULT_RATE_PER_MINUTE,
      events.length,
    );
    if (wait) {
      await throttled(reply, wait);
      return null;
    }
    return new Promise<number[]>((resolve, reject) =>
      submit(source.organization_id, {
        orgSlug: req.org.slug,
        at: performance.now(),
        rows: events.map((e) => ({
          project_id: source.project_id,
          signal_id: source.id,
          source: kind,
          event_action: e.event_action,
          dedup_key: e.dedup_key,
          raw: e.raw,
        })),
        resolve,
        reject,
      }),
    );
  };

  const app = scope.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/signals/instances',
    { config: publicRoute, schema: { tags, summary: 'Send one signal (ingest key as bearer)', body: nativeEvent, ...acceptedOne } },
    async (req, reply) => {
      const source = await sourceOf(req, bearer(req));
      const ids = await accept(req, reply, source, 'native', [
        { raw: req.body.raw, dedup_key: req.body.dedup_key ?? null, event_action: req.body.event_action ?? 'trigger' },
      ]);
      if (!ids) return reply;
      const [id] = ids;
      return reply.status(202).send({ message: 'Signal accepted.', id, dedup_key: req.body.dedup_key ?? null });
    },
  );

  app.post(
    '/signals/instances/batch',
    {
      config: publicRoute,
      schema: { tags, summary: 'Send up to 1,000 signals at once', body: z.strictObject({ items: z.array(nativeEvent).min(1).max(1000) }), ...acceptedMany },
    },
    async (req, reply) => {
      const source = await sourceOf(req, bearer(req));
      const ids = await accept(
        req,
        reply,
        source,
        'native',
        req.body.items.map((e) => ({ raw: e.raw, dedup_key: e.dedup_key ?? null, event_action: e.event_action ?? 'trigger' })),
      );
      if (!ids) return reply;
      return reply.status(202).send({ message: 'Signals accepted.', ids });
    },
  );

  app.post(
    '/signals/pagerduty/v2/enqueue',
    { config: publicRoute, schema: { tags, summary: 'PagerDuty Events API v2 (routing_key is the ingest key)', body: pagerDutyEvent, ...pagerDutyAccepted } },
    async (req, reply) => {
      const source = await sourceOf(req, req.body.routing_key);
      // PagerDuty makes up a key for a trigger without one and returns it, so later events can name the alert.
      const dedupKey = req.body.dedup_key ?? randomUUID();
      const { routing_key: _secret, ...raw } = req.body;
      if (
        !(await accept(req, reply, source, 'pagerduty', [{ raw: { ...raw, dedup_key: dedupKey }, dedup_key: dedupKey, event_action: req.body.event_action }]))
      )
        return reply;
      return reply.status(202).send({ status: 'success', message: 'Event processed', dedup_key: dedupKey });
    },
  );

  app.post(
    '/signals/alertmanager',
    { config: publicRoute, schema: { tags, summary: 'Prometheus Alertmanager webhook (ingest key as bearer)', body: alertGroup, ...acceptedMany } },
    async (req, reply) => {
      const source = await sourceOf(req, bearer(req));
      const ids = await accept(req, reply, source, 'alertmanager', groupEvents(req.body));
      if (!ids) return reply;
      return reply.status(202).send({ message: 'Alerts accepted.', ids });
    },
  );

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
      {
        config: publicRoute,
        schema: {
          tags,
          summary: 'Grafana alerting webhook (ingest key as bearer; HMAC checked when the signal has a secret)',
          body: alertGroup,
          ...acceptedMany,
        },
      },
      async (req, reply) => {
        const source = await sourceOf(req, bearer(req));
        if (source.hmac_secret) checkGrafanaSignature(req, source.hmac_secret);
        const ids = await accept(req, reply, source, 'grafana', groupEvents(req.body));
        if (!ids) return reply;
        return reply.status(202).send({ message: 'Alerts accepted.', ids });
      },
    );
  });
}

/** How often each process looks for instances nobody is processing (after a crash, or sent to another process). */
const SWEEP_MS = 2_000;
/**
 * How long a woken processor waits for more signals before it starts a batch, and between batches
 * that were not full: each processing transaction costs a dozen statements whatever its size, and two
 * loops running back to back on a few signals each used both cores at a few hundred signals a second.
 */
const GATHER_MS = 100;

interface Processor {
  wake(org: { orgId: number; orgSlug: string }): void;
}
const processors = new WeakMap<Db, Processor>();

function wakeProcessor(db: Db, org: { orgId: number; orgSlug: string }) {
  processors.get(db)?.wake(org);
}

/**
 * The processor: extraction, filters, dedup and cases run in batches (process.ts), woken when this
 * process commits new instances and every SWEEP_MS for any left unprocessed. An accepted instance is
 * its own durable record (processed_at null, indexed): no job row per request, and after a kill -9
 * the next sweep of any process takes up whatever was not finished.
 */
export function registerSignalProcessor(app: FastifyInstance) {
  // One loop per partition of an organization's instances (PARTITIONS, split by alert series): each
  // holds its partition's advisory lock per batch, so no two loops, in this process or another, wait
  // on each other's groups; while one inserts its batch the other extracts the next.
  const running = new Map<string, Promise<void>>();
  const again = new Set<string>();
  let closed = false;
  const runPartition = (org: { orgId: number; orgSlug: string }, partition: number) => {
    const key = `${org.orgId}:${partition}`;
    if (closed) return;
    if (running.has(key)) {
      again.add(key);
      return;
    }
    // A short wait first, so that under load a batch takes what several commits brought (fewer, larger
    // processing transactions) instead of one request's signals each.
    const done: Promise<void> = new Promise((r) => setTimeout(r, GATHER_MS))
      .then(() => processPending(app.db, app.config, org, PROCESS_BATCH, { partition, partitions: PARTITIONS }, () => closed, GATHER_MS))
      .then(() => undefined)
      .catch((err: unknown) => app.log.error({ err, orgId: org.orgId }, 'signal processing failed; the next sweep retries'))
      .finally(() => {
        running.delete(key);
        if (again.delete(key)) runPartition(org, partition);
      });
    running.set(key, done);
  };
  const run = (org: { orgId: number; orgSlug: string }) => {
    for (let p = 0; p < PARTITIONS; p++) runPartition(org, p);
  };
  const sweep = async () => {
    const pending = rowsOf<{ id: number; slug: string }>(
      await app.db.execute(
        sql`select o.id, o.slug from organizations o where exists (select 1 from signal_instances i where i.organization_id = o.id and i.processed_at is null)`,
      ),
    );
    for (const o of pending) run({ orgId: o.id, orgSlug: o.slug });
  };
  let timer: NodeJS.Timeout | null = null;
  const tick = () => {
    timer = setTimeout(
      () =>
        sweep()
          .catch((err: unknown) => app.log.warn({ err }, 'signal sweep failed'))
          .finally(() => !closed && tick()),
      SWEEP_MS,
    );
    timer.unref();
  };
  processors.set(app.db, { wake: run });
  app.addHook('onReady', async () => {
    await sweep();
    tick();
  });
  app.addHook('onClose', async () => {
    closed = true;
    if (timer) clearTimeout(timer);
    await Promise.allSettled([...running.values()]);
  });
}

/** Tests and the bench: resolves once no instance of the organization waits for processing. */
export async function drainSignals(app: FastifyInstance, orgId: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await app.db
      .select({ n: sql<number>`count(*)::int` })
      .from(signalInstances)
      .where(sql`${signalInstances.organization_id} = ${orgId} and ${signalInstances.processed_at} is null`);
    if (!row!.n) return;
    if (Date.now() > deadline) throw new Error(`${row!.n} signal instance(s) still unprocessed after ${timeoutMs} ms`);
    const [org] = rowsOf<{ slug: string }>(await app.db.execute(sql`select slug from organizations where id = ${orgId}`));
    wakeProcessor(app.db, { orgId, orgSlug: org!.slug });
    await new Promise((r) => setTimeout(r, 50));
  }
}
