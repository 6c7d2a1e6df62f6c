import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgPolicy, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { currentOrgId, currentUserId, id, timestamps } from './columns.js';

export const ROLES = ['Owner', 'Manager', 'Admin', 'Member'] as const;
export type Role = (typeof ROLES)[number];
export const PLANS = ['free', 'pro', 'team_pro'] as const;

/** Shared table: organizations are listed through memberships, never by organization_id. */
export const organizations = pgTable('organizations', {
  id: id(),
  name: text().notNull(),
  description: text().notNull(),
  slug: text().notNull().unique(),
  banner_text: text(),
  banner_color: text().notNull().default('#1565C0'),
  banner_enabled: boolean().notNull().default(false),
  storycurve_logging_enabled: boolean().notNull().default(false),
  custom_plan: boolean().notNull().default(false),
  plan: text({ enum: PLANS }).notNull().default('free'),
  free_trial_start: timestamp({ withTimezone: true }),
  free_trial_end: timestamp({ withTimezone: true }),
  allow_signup: boolean().notNull().default(false),
  /** When set, sign-in through Google (or the OIDC provider) accepts only accounts of this domain (Google's `hd` claim). */
  sso_domain: text(),
  /** The landing page: visitors may start anonymous sessions and write through them. */
  anonymous_access: boolean().notNull().default(true),
  /** Domains a workflow's e-mail steps may write to besides the organization's members (example.com also covers its subdomains). */
  mail_allowed_domains: jsonb().$type<string[]>().notNull().default([]),
  ...timestamps(),
});

/** Shared table: a person, who may belong to many organizations. */
export const users = pgTable('users', {
  id: id(),
  email: text().notNull().unique(),
  display_name: text(),
  password_hash: text(),
  ...timestamps(),
});

/**
 * A user's role in an organization. Visible inside the organization's scope, and to the user
 * themself (so they can list the organizations they belong to).
 */
export const memberships = pgTable(
  'memberships',
  {
    organization_id: integer()
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    user_id: integer()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text({ enum: ROLES }).notNull().default('Member'),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organization_id, t.user_id] }),
    // The one index not led by organization_id: "which organizations am I in" crosses tenants.
    index('memberships_user_idx').on(t.user_id),
    check('memberships_role_check', sql`${t.role} in ('Owner', 'Manager', 'Admin', 'Member')`),
    pgPolicy('memberships_tenant_or_self', {
      for: 'all',
      using: sql`organization_id = ${currentOrgId} or user_id = ${currentUserId}`,
      withCheck: sql`organization_id = ${currentOrgId}`,
    }),
  ],
);

/** Server-wide settings (the generated JWT secret). Never reachable by the application role. */
export const settings = pgTable('settings', {
  key: text().primaryKey(),
  value: text().notNull(),
});

/** One-time sign-in codes, stored as HMACs. */
export const loginCodes = pgTable(
  'login_codes',
  {
    id: id(),
    organization_id: integer()
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    email: text().notNull(),
    code_hash: text().notNull(),
    attempts: integer().notNull().default(0),
    expires_at: timestamp({ withTimezone: true }).notNull(),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('login_codes_lookup_idx').on(t.organization_id, t.email)],
);

/** Sign-in rate limits: one row per attempt (or attempts in the same microsecond), counted over a sliding window. */
export const rateLimits = pgTable(
  'rate_limits',
  {
    key: text().notNull(),
    window_start: timestamp({ withTimezone: true }).notNull(),
    count: integer().notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.key, t.window_start] })],
);

/**
 * Signed-in sessions: every session token names one in its `sid` claim, and a token whose row is gone
 * (signed out, password changed) or expired is refused. Shared like users; the application role never reads it.
 */
export const sessions = pgTable(
  'sessions',
  {
    id: text().primaryKey(),
    user_id: integer()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expires_at: timestamp({ withTimezone: true }).notNull(),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('sessions_user_idx').on(t.user_id)],
);

/** Single-use tickets (about a minute) that open the live socket, so no session token goes into a URL. Stored hashed. */
export const socketTickets = pgTable(
  'socket_tickets',
  {
    ticket_hash: text().primaryKey(),
    session_id: text()
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    organization_id: integer()
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    user_id: integer()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expires_at: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [index('socket_tickets_expires_idx').on(t.expires_at)],
);

/** Addresses an e-mail has signed in from: the per-e-mail ceiling of sign-in attempts never applies there. */
export const signInAddresses = pgTable(
  'sign_in_addresses',
  {
    email: text().notNull(),
    address: text().notNull(),
    last_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.email, t.address] }), index('sign_in_addresses_last_idx').on(t.last_at)],
);
