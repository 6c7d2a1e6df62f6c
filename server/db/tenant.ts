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
