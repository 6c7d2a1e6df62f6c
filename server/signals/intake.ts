import { sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { unauthorized } from '../core/errors.js';
import { listen } from '../core/jobs/wakeup.js';
import { signals, type SIGNAL_SOURCES } from './tables.js';
import { hashIngestKey } from './resources.js';
import { forgetSources, knownSources, SOURCE_TTL_MS, SOURCES_CHANNEL, type Source } from './sources.js';
import { DEFAULT_RATE_PER_MINUTE, databaseReserve, RateLimiter } from './rate-limit.js';
import { groupCommitter, serializeRows } from './commit.js';
import { wakeProcessor } from './processor.js';
import type { Event } from './wire.js';

/** How PagerDuty answers too many events (status and message), with the house `detail` beside them. */
export function throttled(reply: FastifyReply, retryAfter: number) {
  const message = 'Requests for this service are arriving too quickly. Please retry later.';
  return reply
    .status(429)
    .header('retry-after', String(retryAfter))
    .send({ status: 'throttle event', message, detail: [{ msg: message, loc: [], type: 'rate_limited' }] });
}

const sourceColumns = {
  id: signals.id,
  organization_id: signals.organization_id,
  project_id: signals.project_id,
  hmac_secret: signals.hmac_secret,
  signature_header: signals.signature_header,
  timestamp_header: signals.timestamp_header,
  rate_limit_per_minute: signals.rate_limit_per_minute,
};

export type Intake = ReturnType<typeof createIntake>;

/** What every ingest route shares: the source a key opens, and storing its events (rate, checks, group commit). */
export function createIntake(scope: FastifyInstance) {
  const lookup = scope.db
    .select({
      ...sourceColumns,
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
   * the source is over its rate, after the 429 was sent. The events are serialized and checked first,
   * on their own, so a payload that cannot be stored is refused alone and never fails a batch.
   */
  const accept = async (
    req: FastifyRequest,
    reply: FastifyReply,
    source: Source,
    kind: (typeof SIGNAL_SOURCES)[number],
    events: Event[],
  ): Promise<number[] | null> => {
    const json = serializeRows(
      events.map((e) => ({
        project_id: source.project_id,
        signal_id: source.id,
        source: kind,
        event_action: e.event_action,
        dedup_key: e.dedup_key,
        raw: e.raw,
      })),
    );
    const org = { orgId: source.organization_id, orgSlug: req.org.slug };
    const wait = await limiter.take(org, source.id, source.rate_limit_per_minute ?? DEFAULT_RATE_PER_MINUTE, events.length);
    if (wait) {
      await throttled(reply, wait);
      return null;
    }
    return new Promise<number[]>((resolve, reject) =>
      submit(source.organization_id, { orgSlug: req.org.slug, at: performance.now(), count: events.length, json, resolve, reject }),
    );
  };

  return { sourceOf, accept, sourceColumns };
}
