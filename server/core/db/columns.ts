import { sql } from 'drizzle-orm';
import { integer, pgPolicy, timestamp } from 'drizzle-orm/pg-core';

/** The organization the current transaction is scoped to (set by withTenant). */
export const currentOrgId = sql`nullif(current_setting('app.org_id', true), '')::integer`;
export const currentUserId = sql`nullif(current_setting('app.user_id', true), '')::integer`;

export const id = () => integer().primaryKey().generatedAlwaysAsIdentity();
export const organizationId = () => integer().notNull();
export const timestamps = () => ({
  created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updated_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

/**
 * The second wall of tenancy: rows are visible and writable only inside a transaction scoped to
 * their organization. The application role is neither owner nor superuser, so this always applies.
 */
export const tenantPolicy = (table: string) =>
  pgPolicy(`${table}_tenant_isolation`, {
    for: 'all',
    using: sql`organization_id = ${currentOrgId}`,
    withCheck: sql`organization_id = ${currentOrgId}`,
  });
