import { sql } from 'drizzle-orm';
import { bigint, boolean, integer, pgPolicy, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { tenantPolicy, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';

/**
 * An organization's Stripe customer and the subscription last heard of. Written only by the billing
 * code on the privileged connection: the plan it grants is copied into `organizations.plan`, which
 * everything else reads.
 */
export const billingAccounts = pgTable(
  'billing_accounts',
  {
    organization_id: integer()
      .primaryKey()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    stripe_customer_id: text().notNull().unique(),
    stripe_subscription_id: text(),
    price_id: text(),
    /** Stripe's subscription status (active, past_due, canceled, ...); null before the first checkout. */
    status: text(),
    cancel_at_period_end: boolean().notNull().default(false),
    current_period_end: timestamp({ withTimezone: true }),
    /** `created` of the newest event applied (seconds): an older one arriving late changes nothing. */
    last_event_created: bigint({ mode: 'number' }),
    ...timestamps(),
  },
  () => [tenantPolicy('billing_accounts')],
);

/** Stripe event ids already applied: Stripe delivers at least once, so a replay is answered and ignored. */
export const stripeEvents = pgTable(
  'stripe_events',
  {
    id: text().primaryKey(),
    type: text().notNull(),
    received_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  // No tenant reads these: the request role sees none of them.
  () => [pgPolicy('stripe_events_no_tenant', { for: 'all', using: sql`false`, withCheck: sql`false` })],
);
