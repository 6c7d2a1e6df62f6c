import { eq, sql } from 'drizzle-orm';
import type Stripe from 'stripe';
import type { Config } from '../core/config.js';
import type { Db, Executor } from '../core/db/client.js';
import { organizations } from '../core/db/tables.js';
import type { Plan } from './plans.js';
import { billingAccounts, stripeEvents } from './tables.js';
import { bool, nullableStr, str, type JsonSchema } from '../engine/answers.js';

/** Stripe's own signature tolerance: a delivery signed more than 5 minutes ago is refused (replay). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export interface Billing {
  stripe: Stripe;
  webhookSecret: string;
  prices: Record<Exclude<Plan, 'free'>, string>;
}

/**
 * Billing is on when the four Stripe settings are set (loadConfig refuses some without the others).
 * The SDK is imported only then: it costs about half a second of CPU to load, which a server (or a
 * test) without billing need not pay.
 */
export async function billingFrom(config: Config): Promise<Billing | null> {
  const { STRIPE_SECRET_KEY: key, STRIPE_WEBHOOK_SECRET: webhookSecret, STRIPE_PRICE_PRO: pro, STRIPE_PRICE_TEAM_PRO: teamPro } = config;
  if (!key || !webhookSecret || !pro || !teamPro) return null;
  const { default: Stripe } = await import('stripe');
  const base = config.STRIPE_API_BASE ? new URL(config.STRIPE_API_BASE) : undefined;
  const protocol = base?.protocol === 'http:' ? 'http' : 'https';
  const stripe = new Stripe(key, {
    ...(base ? { host: base.hostname, port: base.port || (protocol === 'http' ? 80 : 443), protocol } : {}),
    maxNetworkRetries: 2,
    timeout: 20_000,
    appInfo: { name: 'Firewatch' },
  });
  return { stripe, webhookSecret, prices: { pro, team_pro: teamPro } };
}

/** Past due keeps the plan while Stripe retries the card; an unpaid, paused or ended subscription does not. */
const ENTITLED = new Set<string>(['active', 'trialing', 'past_due']);
export const isEntitled = (status: string | null | undefined) => !!status && ENTITLED.has(status);

export const idOf = (ref: string | { id: string } | null | undefined) => (typeof ref === 'string' ? ref : (ref?.id ?? null));

export function planOf(billing: Billing, sub: Stripe.Subscription): Plan {
  if (!isEntitled(sub.status)) return 'free';
  const price = sub.items.data[0]?.price.id;
  return price === billing.prices.team_pro ? 'team_pro' : price === billing.prices.pro ? 'pro' : 'free';
}

/** When the paid period ends: on the items since API version 2025-03-31, on the subscription before. */
function periodEnd(sub: Stripe.Subscription): Date | null {
  const seconds = sub.items.data[0]?.current_period_end ?? (sub as unknown as { current_period_end?: number }).current_period_end;
  return typeof seconds === 'number' ? new Date(seconds * 1000) : null;
}

/** The subscription an event is about, if it is one Firewatch acts on. */
export function subscriptionOfEvent(event: Stripe.Event): string | null {
  switch (event.type) {
    case 'checkout.session.completed':
      return event.data.object.mode === 'subscription' ? idOf(event.data.object.subscription) : null;
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
    case 'customer.subscription.paused':
    case 'customer.subscription.resumed':
      return event.data.object.id;
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const invoice = event.data.object as Stripe.Invoice & { subscription?: string | { id: string } | null };
      return idOf(invoice.parent?.subscription_details?.subscription ?? invoice.subscription);
    }
    default:
      return null;
  }
}

export type EventOutcome = 'applied' | 'duplicate' | 'stale' | 'ignored';

/**
 * Applies one verified event. Stripe delivers at least once and in no particular order, so the event
 * only says which subscription to look at: its state is fetched from Stripe and written as it is now.
 * The event id is recorded in the same transaction as the change, so a replay (or a second delivery
 * racing the first) changes nothing, and a failure leaves it for Stripe's retry.
 */
export async function applyEvent(db: Db, billing: Billing, event: Stripe.Event, log: { warn(obj: object, msg: string): void }): Promise<EventOutcome> {
  const [seen] = await db.select({ id: stripeEvents.id }).from(stripeEvents).where(eq(stripeEvents.id, event.id));
  if (seen) return 'duplicate';
  const subscriptionId = subscriptionOfEvent(event);
  const sub = subscriptionId ? await billing.stripe.subscriptions.retrieve(subscriptionId) : null;
  return db.transaction(async (tx) => {
    const [recorded] = await tx.insert(stripeEvents).values({ id: event.id, type: event.type }).onConflictDoNothing().returning({ id: stripeEvents.id });
    if (!recorded) return 'duplicate';
    if (!sub) return 'ignored';
    const customerId = idOf(sub.customer);
    const [account] = customerId ? await tx.select().from(billingAccounts).where(eq(billingAccounts.stripe_customer_id, customerId)).for('update') : [];
    if (!account) {
      log.warn({ event: event.id, customer: customerId }, 'stripe event for a customer no organization has');
      return 'ignored';
    }
    if (account.last_event_created !== null && event.created < account.last_event_created) return 'stale';
    // An old subscription ending (say, one replaced after a cancellation) does not end the current one.
    if (account.stripe_subscription_id && account.stripe_subscription_id !== sub.id && !isEntitled(sub.status)) return 'stale';
    await writeSubscription(tx, billing, account.organization_id, sub, event.created);
    return 'applied';
  });
}

async function writeSubscription(tx: Executor, billing: Billing, orgId: number, sub: Stripe.Subscription, eventCreated: number) {
  const plan = planOf(billing, sub);
  await tx
    .update(billingAccounts)
    .set({
      stripe_subscription_id: sub.id,
      price_id: sub.items.data[0]?.price.id ?? null,
      status: sub.status,
      cancel_at_period_end: sub.cancel_at_period_end,
      current_period_end: periodEnd(sub),
      last_event_created: sql`greatest(${billingAccounts.last_event_created}, ${eventCreated})`,
      updated_at: sql`now()`,
    })
    .where(eq(billingAccounts.organization_id, orgId));
  // Leaving team pro switches the Custom Plan settings off; their text and colour stay for a return.
  const customOff = plan === 'team_pro' ? {} : { banner_enabled: false, storycurve_logging_enabled: false };
  await tx
    .update(organizations)
    .set({ plan, custom_plan: plan === 'team_pro', ...customOff, updated_at: sql`now()` })
    .where(eq(organizations.id, orgId));
}

/** The organization's Stripe customer, created on its first checkout (one per organization, even when two checkouts race). */
export async function customerFor(db: Db, billing: Billing, org: { id: number; slug: string; name: string }, email: string | null): Promise<string> {
  const [account] = await db.select({ customer: billingAccounts.stripe_customer_id }).from(billingAccounts).where(eq(billingAccounts.organization_id, org.id));
  if (account) return account.customer;
  const customer = await billing.stripe.customers.create(
    { name: org.name, ...(email ? { email } : {}), metadata: { organization_id: String(org.id), organization_slug: org.slug } },
    { idempotencyKey: `firewatch-customer-${org.id}` },
  );
  await db.insert(billingAccounts).values({ organization_id: org.id, stripe_customer_id: customer.id }).onConflictDoNothing();
  const [stored] = await db.select({ customer: billingAccounts.stripe_customer_id }).from(billingAccounts).where(eq(billingAccounts.organization_id, org.id));
  return stored!.customer;
}

export async function accountOf(db: Executor, orgId: number) {
  const [account] = await db.select().from(billingAccounts).where(eq(billingAccounts.organization_id, orgId));
  return account;
}

export interface SubscriptionSummary {
  plan: Plan;
  is_pro: boolean;
  is_pro_team: boolean;
  /** Stripe's status of the subscription; without one, `trialing` or `trial_expired` on the free plan and `active` on a plan set by hand. */
  subscription_status: string;
  /** The end of the paid period (or of the trial); null when neither applies. */
  subscription_end_date: string | null;
  cancel_at_period_end: boolean;
  free_trial_end: string | null;
}

/** SubscriptionSummary as the OpenAPI document describes it. */
export const subscriptionAnswer: Record<keyof SubscriptionSummary, JsonSchema> = {
  plan: str,
  is_pro: bool,
  is_pro_team: bool,
  subscription_status: str,
  subscription_end_date: nullableStr,
  cancel_at_period_end: bool,
  free_trial_end: nullableStr,
};

export async function subscriptionSummary(db: Executor, orgId: number, now = new Date()): Promise<SubscriptionSummary> {
  const [row] = await db
    .select({
      plan: organizations.plan,
      free_trial_end: organizations.free_trial_end,
      status: billingAccounts.status,
      period_end: billingAccounts.current_period_end,
      cancel_at_period_end: billingAccounts.cancel_at_period_end,
    })
    .from(organizations)
    .leftJoin(billingAccounts, eq(billingAccounts.organization_id, organizations.id))
    .where(eq(organizations.id, orgId));
  const plan = row?.plan ?? 'free';
  const trialEnd = row?.free_trial_end ?? null;
  const fromStripe = row?.status ?? null;
  const status = fromStripe ?? (plan !== 'free' ? 'active' : trialEnd && trialEnd <= now ? 'trial_expired' : 'trialing');
  const end = fromStripe ? (row?.period_end ?? null) : plan === 'free' ? trialEnd : null;
  return {
    plan,
    is_pro: plan === 'pro' || plan === 'team_pro',
    is_pro_team: plan === 'team_pro',
    subscription_status: status,
    subscription_end_date: end ? end.toISOString() : null,
    cancel_at_period_end: row?.cancel_at_period_end ?? false,
    free_trial_end: trialEnd ? trialEnd.toISOString() : null,
  };
}
