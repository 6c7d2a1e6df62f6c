import { eq } from 'drizzle-orm';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import { organizations } from '../core/db/tables.js';
import { httpError } from '../core/errors.js';
import { hitRateLimit } from '../accounts/rate-limit.js';

export const LANDING_OFF = 'This organization does not accept anonymous visitors.';

/** What a visitor does that adds rows: starting a session, or writing through one (projects, uploads, chat messages). */
export type AnonymousAction = 'session' | 'write';

/** An organization takes this many times an address's allowance: many visitors, but not without end. */
export const ORGANIZATION_FACTOR = 10;

/** 403 when the organization has switched its landing page (anonymous access) off. */
export async function requireAnonymousAccess(db: Db, orgId: number) {
  const [org] = await db.select({ on: organizations.anonymous_access }).from(organizations).where(eq(organizations.id, orgId));
  if (!org?.on) throw httpError(403, LANDING_OFF, 'anonymous_access_off');
}

/**
 * Counts one anonymous action against the visitor's address and against the organization; 429 past
 * ANONYMOUS_RATE_LIMIT per address (ten times that per organization) within the window.
 */
export function hitAnonymousLimit(db: Db, config: Config, action: AnonymousAction, orgId: number, address: string) {
  const limit = config.ANONYMOUS_RATE_LIMIT;
  return hitRateLimit(
    db,
    [
      [`anonymous:${action}:address:${address}`, limit],
      [`anonymous:${action}:org:${orgId}`, limit * ORGANIZATION_FACTOR],
    ],
    config.ANONYMOUS_RATE_WINDOW_SECONDS,
  );
}
