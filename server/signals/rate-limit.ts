import { channel } from 'node:diagnostics_channel';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { systemActor } from '../core/context.js';
import { rowsOf } from '../core/db/client.js';
import { runInTenant } from '../core/tenancy.js';

/** Each reservation from a shared rate bucket ({start, end}), for the bench; published only while subscribed. */
export const reserveTimings = channel('firewatch.signals.reserve');

/** Events a source may send a minute when its definition sets no rate_limit_per_minute. */
export const DEFAULT_RATE_PER_MINUTE = 12_000;

type Org = { orgId: number; orgSlug: string };
/** A reservation from the shared bucket: the tokens granted to this process (at most `want`). */
export type Reserve = (org: Org, sourceId: number, perMinute: number, want: number) => Promise<number>;

interface Bucket {
  tokens: number;
  /** When the shared bucket last gave this process less than it asked for (it was empty then), and at which rate. */
  dryAt: number;
  dryRate: number;
  /** A background reservation in flight. */
  pending: Promise<void> | null;
  /** The tail of the queue of requests that need the shared bucket: they ask it one after another. */
  turn: Promise<void>;
}

/**
 * Per-source token buckets (a minute's worth of events, refilled continuously), shared by every app
 * process on the database (signal_rate_buckets). A process reserves tokens in chunks of a tenth of a
 * second's rate and spends them locally, so the hot path touches the bucket once per chunk, not per
 * request; N processes overshoot by at most one and a half chunks each, never N times the rate.
 *
 * A request is refused only when the shared bucket itself gave less than it lacked: requests that
 * must ask the bucket do so one at a time per source (so a smaller concurrent request cannot spend a
 * reservation made for a larger one), and one that lost local tokens to the fast path meanwhile asks
 * again. After a refusal the process answers from memory only while the bucket cannot have refilled
 * enough (at most one token was left in it then, and other processes only take). A request larger
 * than the whole bucket needs a full bucket (it could never be accepted otherwise).
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

  /** Takes `n` tokens, or returns the seconds until they could be there. */
  async take(org: Org, sourceId: number, perMinute: number, n: number): Promise<number> {
    const need = Math.min(n, perMinute);
    let b = this.local.get(sourceId);
    if (!b) this.local.set(sourceId, (b = { tokens: 0, dryAt: -Infinity, dryRate: 0, pending: null, turn: Promise.resolve() }));
    if (this.spend(org, sourceId, perMinute, need, b)) return 0;
    const before = b.turn;
    let release!: () => void;
    b.turn = new Promise<void>((r) => (release = r));
    await before;
    try {
      return await this.fromBucket(org, sourceId, perMinute, need, b);
    } finally {
      release();
    }
  }

  private spend(org: Org, sourceId: number, perMinute: number, need: number, b: Bucket) {
    if (need > b.tokens) return false;
    b.tokens -= need;
    this.ahead(org, sourceId, perMinute, b);
    return true;
  }

  private async fromBucket(org: Org, sourceId: number, perMinute: number, need: number, b: Bucket): Promise<number> {
    const rate = perMinute / 60_000;
    const wait = () => Math.max(1, Math.ceil((need - b.tokens) / rate / 1000));
    for (;;) {
      if (b.pending) await b.pending;
      if (this.spend(org, sourceId, perMinute, need, b)) return 0;
      // Known to be short: what the bucket can hold since it ran dry does not cover the request yet.
      if (b.dryRate === perMinute && b.tokens + 1 + (this.now() - b.dryAt) * rate < need) return wait();
      const want = Math.max(Math.ceil(need - b.tokens), RateLimiter.chunk(perMinute));
      const start = performance.now();
      const granted = await this.reserve(org, sourceId, perMinute, want);
      if (reserveTimings.hasSubscribers) reserveTimings.publish({ start, end: performance.now() });
      b.tokens += granted;
      if (this.spend(org, sourceId, perMinute, need, b)) return 0;
      if (granted < want) {
        b.dryAt = this.now();
        b.dryRate = perMinute;
        return wait();
      }
      // The bucket gave all it was asked, but requests of the fast path spent some meanwhile: ask again.
    }
  }

  /**
   * Reserves the next chunk in the background once fewer than half a chunk is left, so a steady stream
   * does not wait for the bucket's transaction (a commit) every chunk's worth of events.
   */
  private ahead(org: Org, sourceId: number, perMinute: number, b: Bucket) {
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
