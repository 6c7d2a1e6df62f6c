import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../core/db/client.js';
import { anonymousSessions } from './tables.js';
import { withTenant } from '../core/db/tenant.js';
import { httpError } from '../core/errors.js';
import { ANONYMOUS_KEY_PREFIX } from '../core/context.js';

export const NO_SESSION = 'No authentication or temporary session found';

const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

export interface AnonymousSession {
  id: number;
  orgId: number;
  expires_at: Date;
  created_at: Date;
}

/** A new visitor key for the organization; only its hash is stored. */
export async function createAnonymousSession(db: Db, orgId: number, days: number): Promise<{ key: string; session: AnonymousSession }> {
  const key = ANONYMOUS_KEY_PREFIX + randomBytes(24).toString('base64url');
  const expires = new Date(Date.now() + days * 86400_000);
  const [row] = await withTenant(db, { orgId, userId: null }, (tx) =>
    tx
      .insert(anonymousSessions)
      .values({ organization_id: orgId, key_hash: hashKey(key), expires_at: expires })
      .returning(),
  );
  return { key, session: { id: row!.id, orgId, expires_at: row!.expires_at, created_at: row!.created_at } };
}

/** The live session for a key in this organization, or null (unknown, expired, other organization, landing page switched off). */
export async function findAnonymousSession(db: Db, orgId: number, key: string | undefined | null): Promise<AnonymousSession | null> {
  if (!key || !key.startsWith(ANONYMOUS_KEY_PREFIX) || key.length > 100) return null;
  return withTenant(db, { orgId, userId: null }, async (tx) => {
    const [row] = await tx
      .update(anonymousSessions)
      .set({ last_seen_at: new Date() })
      .where(
        and(
          eq(anonymousSessions.organization_id, orgId),
          eq(anonymousSessions.key_hash, hashKey(key)),
          gt(anonymousSessions.expires_at, new Date()),
          sql`exists (select 1 from organizations o where o.id = ${orgId} and o.anonymous_access)`,
        ),
      )
      .returning();
    return row ? { id: row.id, orgId, expires_at: row.expires_at, created_at: row.created_at } : null;
  });
}

/** Like findAnonymousSession, but refuses with the client's own wording. */
export async function requireAnonymousSession(db: Db, orgId: number, key: string | undefined | null): Promise<AnonymousSession> {
  const session = await findAnonymousSession(db, orgId, key);
  if (!session) throw httpError(401, NO_SESSION, 'no_session');
  return session;
}
