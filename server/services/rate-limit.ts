import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { rateLimits } from '../db/schema/index.js';
import { httpError } from '../errors.js';

/**
 * Fixed-window counters kept in the database, so every server process behind a load balancer
 * counts the same attempts. Throws 429 once any key passes `limit` within the window.
 */
export async function hitRateLimit(db: Db, limits: [key: string, limit: number][], windowSeconds: number) {
  const windowMs = windowSeconds * 1000;
  const start = new Date(Math.floor(Date.now() / windowMs) * windowMs);
  for (const [key, limit] of limits) {
    await db.delete(rateLimits).where(and(eq(rateLimits.key, key), lt(rateLimits.window_start, start)));
    const [row] = await db
      .insert(rateLimits)
      .values({ key, window_start: start, count: 1 })
      .onConflictDoUpdate({ target: [rateLimits.key, rateLimits.window_start], set: { count: sql`${rateLimits.count} + 1` } })
      .returning({ count: rateLimits.count });
    if (row!.count > limit) {
      const minutes = Math.max(1, Math.ceil((start.getTime() + windowMs - Date.now()) / 60000));
      throw httpError(429, `Too many attempts. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, 'rate_limited');
    }
  }
}
