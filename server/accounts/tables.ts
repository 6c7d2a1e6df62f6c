import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { id, tenantPolicy, timestamps } from '../core/db/columns.js';
import { organizations, users } from '../core/db/tables.js';

/**
 * An invitation to join an organization with a role. `users` is shared by organizations, so an Owner
 * or Admin never adds a person directly: the person accepts (the e-mailed link's token, or signing in
 * to the organization with the e-mail code). One pending invitation per e-mail and organization; the
 * token is kept as a SHA-256 (a long random secret, like an API key).
 */
export const invitations = pgTable(
  'invitations',
  {
    id: id(),
    organization_id: integer().notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    email: text().notNull(),
    role: text({ enum: ['Owner', 'Manager', 'Admin', 'Member'] }).notNull().default('Member'),
    /** The name a person new to Firewatch starts with; an existing user keeps their own. */
    display_name: text(),
    token_hash: text().notNull().unique(),
    invited_by: integer().references(() => users.id, { onDelete: 'set null' }),
    expires_at: timestamp({ withTimezone: true }).notNull(),
    ...timestamps(),
  },
  (t) => [
    unique('invitations_org_email_unique').on(t.organization_id, t.email),
    index('invitations_org_created_idx').on(t.organization_id, t.created_at),
    check('invitations_role_check', sql`${t.role} in ('Owner', 'Manager', 'Admin', 'Member')`),
    tenantPolicy('invitations'),
  ],
);
