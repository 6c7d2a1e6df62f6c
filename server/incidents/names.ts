import { sql } from 'drizzle-orm';
import { nameCounters } from './tables.js';
import type { RequestContext } from '../core/context.js';

/** Next number of a per-organization sequence (IAO-n, OCO-n); the row lock serializes concurrent creates. */
export async function nextNumber(ctx: RequestContext, kind: string): Promise<number> {
  const [row] = await ctx.tx
    .insert(nameCounters)
    .values({ organization_id: ctx.orgId, kind, value: 1 })
    .onConflictDoUpdate({ target: [nameCounters.organization_id, nameCounters.kind], set: { value: sql`${nameCounters.value} + 1` } })
    .returning({ value: nameCounters.value });
  return row!.value;
}
