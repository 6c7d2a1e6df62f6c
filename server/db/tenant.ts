import { sql } from 'drizzle-orm';
import type { Db, Tx } from './client.js';

export interface TenantScope {
  orgId: number;
  /** The signed-in user; null for API keys and anonymous sessions. */
  userId: number | null;
}

/**
 * Runs `fn` in a transaction as the unprivileged application role with the organization set, so
 * row level security hides every other organization's rows even where a query forgets its condition.
 */
export function withTenant<T>(db: Db, scope: TenantScope, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(
      sql`select set_config('role', 'firewatch_app', true), set_config('app.org_id', ${String(scope.orgId)}, true), set_config('app.user_id', ${scope.userId === null ? '' : String(scope.userId)}, true)`,
    );
    return fn(tx);
  });
}

/** Inside a tenant transaction: lift the role for `fn` (row level security off), then drop it again. */
export async function asSystem<T>(tx: Tx, fn: (tx: Tx) => Promise<T>): Promise<T> {
  await tx.execute(sql`select set_config('role', 'none', true)`);
  try {
    return await fn(tx);
  } finally {
    await tx.execute(sql`select set_config('role', 'firewatch_app', true)`);
  }
}
