import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Db } from './db/client.js';
import { apiKeys } from './db/projects.js';

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
