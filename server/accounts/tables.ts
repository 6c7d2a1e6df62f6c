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
    organization_id: integer()
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    email: text().notNull(),
    role: text({ enum: ['Owner', 'Manager', 'Admin', 'Member'] })
      .notNull()
      .default('Member'),
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

/**
 * A sign-in started at an OpenID Connect provider (Google, or the OIDC_ISSUER one): its state (kept as
 * a SHA-256, it travels in URLs) and nonce. `used_at` is set once, when the provider sends the browser
 * back, so a replayed state is refused; the row stays a day so that the refusal can name the organization.
 */
export const oidcLogins = pgTable(
  'oidc_logins',
  {
    state_hash: text().primaryKey(),
    organization_id: integer()
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    provider: text({ enum: ['google', 'oidc'] }).notNull(),
    nonce: text().notNull(),
    expires_at: timestamp({ withTimezone: true }).notNull(),
    used_at: timestamp({ withTimezone: true }),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('oidc_logins_created_idx').on(t.created_at)],
);

/**
 * The outcome of a provider sign-in, handed to the browser as a single-use ticket (60 s) in the
 * post-oauth-login page's URL fragment: the page exchanges it (POST /auth/postoauthlogin) for a session,
 * or for the refusal's message. The session token itself never appears in a URL.
 */
export const oidcTickets = pgTable('oidc_tickets', {
  ticket_hash: text().primaryKey(),
  organization_id: integer()
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  user_id: integer().references(() => users.id, { onDelete: 'cascade' }),
  /** Why the sign-in was refused (then user_id is null), and the HTTP status the exchange answers. */
  error: text(),
  status: integer(),
  expires_at: timestamp({ withTimezone: true }).notNull(),
});
