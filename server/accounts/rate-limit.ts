import { and, eq, lte, sql } from 'drizzle-orm';
import type { Db } from '../core/db/client.js';
import { rateLimits } from '../core/db/tables.js';
import { httpError } from '../core/errors.js';

/**
 * Sliding-window limits kept in the database, so every server process behind a load balancer counts
 * the same attempts. Each attempt is a row stamped with its time; a key allows `limit` attempts within
 * any `windowSeconds`, wherever the window falls on the clock. A refused attempt is not recorded, so the
 * caller gets in again once its oldest attempt leaves the window. Throws 429 (counting nothing) once any
 * key is full.
 *
 * The attempt is counted before the caller checks anything, so attempts sent at once cannot all find
 * room. What it returns takes the attempt back: a sign-in that succeeded is no failure, so it refunds
 * its attempt and may clear other keys' attempts (that e-mail's failures from that address).
 */
export async function hitRateLimit(db: Db, limits: [key: string, limit: number][], windowSeconds: number): Promise<(clear?: string[]) => Promise<void>> {
  const windowMs = windowSeconds * 1000;
  // Keys locked in one order, so two requests sharing keys never wait on each other in a circle.
  const sorted = [...limits].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const now = new Date();
  await db.transaction(async (tx) => {
    const since = new Date(now.getTime() - windowMs);
    for (const [key, limit] of sorted) {
      // Concurrent attempts on a key take turns, so they cannot all see room for one more.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
      await tx.delete(rateLimits).where(and(eq(rateLimits.key, key), lte(rateLimits.window_start, since)));
      const [row] = await tx
        .select({
          count: sql`coalesce(sum(${rateLimits.count}), 0)`.mapWith(Number),
          oldest: sql`extract(epoch from min(${rateLimits.window_start})) * 1000`.mapWith(Number),
        })
        .from(rateLimits)
        .where(eq(rateLimits.key, key));
      if (row!.count >= limit) {
        const minutes = Math.max(1, Math.ceil((row!.oldest + windowMs - now.getTime()) / 60000));
        throw httpError(429, `Too many attempts. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, 'rate_limited');
      }
    }
    for (const [key] of sorted) {
      await tx
        .insert(rateLimits)
        .values({ key, window_start: now, count: 1 })
        .onConflictDoUpdate({ target: [rateLimits.key, rateLimits.window_start], set: { count: sql`${rateLimits.count} + 1` } });
    }
  });
  return (clear = []) =>
    db.transaction(async (tx) => {
      for (const [key] of sorted)
        await tx
          .update(rateLimits)
          .set({ count: sql`${rateLimits.count} - 1` })
          .where(and(eq(rateLimits.key, key), eq(rateLimits.window_start, now)));
      for (const key of [...sorted.map(([k]) => k), ...clear])
        await tx.delete(rateLimits).where(and(eq(rateLimits.key, key), clear.includes(key) ? sql`true` : lte(rateLimits.count, 0)));
    });
}
