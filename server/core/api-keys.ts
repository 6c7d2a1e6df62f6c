import { createHash, randomBytes } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import type { Db, Executor } from './db/client.js';
import { API_KEY_PREFIX } from './context.js';
import { apiKeys } from './db/projects.js';
import { announce } from './sessions.js';

/** API keys are long random secrets, so a plain SHA-256 is enough to store and look them up. */
export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** The API key behind a bearer secret, if it belongs to this organization. */
export async function findApiKey(db: Db, orgId: number, secret: string) {
  const [key] = await db
    .update(apiKeys)
    .set({ last_used_at: new Date() })
    .where(and(eq(apiKeys.organization_id, orgId), eq(apiKeys.key_hash, hashApiKey(secret))))
    .returning({ id: apiKeys.id, project_id: apiKeys.project_id });
  return key ?? null;
}

/**
 * Announces, at the commit of the caller's transaction, that these keys are revoked (deleted): every app
 * process closes the sockets they opened (server/live/session-sockets.ts). Call it in the deleting transaction.
 */
export async function announceRevokedApiKeys(db: Executor, ids: number[]) {
  if (ids.length) await announce(db, { apiKeyIds: ids });
}

/** The keys of this project (to announce them when the project, and with it its keys, is deleted). */
export async function apiKeysOfProject(db: Executor, projectId: number): Promise<number[]> {
  return (await db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.project_id, projectId))).map((r) => r.id);
}

/** Of these keys, the ones that still exist (one statement, for the sockets' periodic check). */
export async function existingApiKeys(db: Executor, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  return new Set((await db.select({ id: apiKeys.id }).from(apiKeys).where(inArray(apiKeys.id, ids))).map((r) => r.id));
}

/** A new API key: the secret shown once, its prefix and the hash that is kept. */
export function newApiKey() {
  const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, prefix: key.slice(0, 10), hash: hashApiKey(key) };
}
