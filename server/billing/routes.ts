import { eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type Stripe from 'stripe';
import { organizations, users } from '../core/db/tables.js';
import { forbidden, httpError } from '../core/errors.js';
import { planLabel, planTable, type Plan } from './plans.js';
import { answers, arrayOf, bool, int, nullableStr, objectOf, str, type JsonSchema } from '../engine/answers.js';
import {
  accountOf,
  applyEvent,
  billingFrom,
  customerFor,
  isEntitled,
  subscriptionAnswer,
  subscriptionSummary,
  WEBHOOK_TOLERANCE_SECONDS,
  type Billing,
} from './stripe.js';

const tags = ['Billing'];

const billingAnswer = objectOf({
  enabled: bool,
  plans: arrayOf(objectOf({ plan: str, label: str, custom_settings: bool, paid: bool, max_file_bytes: int, files_per_project: int, messages_per_day: int })),
  support_email: str,
  ...subscriptionAnswer,
});
const upgradeAnswer: JsonSchema = {
  oneOf: [
    objectOf({ checkout_url: str }, 'Pay in Stripe Checkout, then come back'),
    objectOf({ status: str, message: str, plan: str }, 'The existing subscription changed price'),
  ],
};

const disabled = () => httpError(409, 'Payments are not set up on this server: the organization keeps its plan.', 'billing_disabled');

/** A Stripe failure is the provider's, not the caller's: 502, with the cause in the log. */
async function provider<T>(req: FastifyRequest, billing: Billing, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof billing.stripe.errors.StripeError)) throw err;
    req.log.warn({ err: { type: err.type, code: err.code, message: err.message, statusCode: err.statusCode } }, 'stripe call failed');
    throw httpError(502, 'Failed to process subscription request', 'payment_provider_error');
  }
}

function supportEmail(config: FastifyInstance['config']) {
  return config.SUPPORT_EMAIL ?? /<([^>]+)>/.exec(config.MAIL_FROM)?.[1] ?? config.MAIL_FROM;
}

/** Only an Owner changes what the organization pays for. */
function owner(req: FastifyRequest) {
  if (req.caller.userId === null || req.caller.role !== 'Owner') throw forbidden('Only an Owner may change the subscription.');
}

/** Org-scoped: the plans, the subscription, and what an Owner does with it. */
export async function registerBillingRoutes(scope: FastifyInstance) {
  const billing = await billingFrom(scope.config);
  registerPlanRoutes(scope, billing);
  registerUpgradeRoutes(scope, billing);
  registerSubscriptionRoutes(scope, billing);
}

function registerPlanRoutes(scope: FastifyInstance, billing: Billing | null) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { db, config } = scope;
  app.get(
    '/billing',
    { schema: { tags, summary: 'Plans, what each allows, and the organization’s subscription', ...answers(200, billingAnswer) } },
    async (req) => ({
      enabled: billing !== null,
      plans: planTable(config),
      support_email: supportEmail(config),
      ...(await subscriptionSummary(db, req.caller.orgId)),
    }),
  );
}

/** Upgrading to a paid plan: a price change for a paying organization, otherwise Stripe Checkout. */
function registerUpgradeRoutes(scope: FastifyInstance, billing: Billing | null) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { db, config } = scope;
  const upgrade = (target: Exclude<Plan, 'free'>) => async (req: FastifyRequest) => {
    owner(req);
    if (!billing) throw disabled();
    const orgId = req.caller.orgId;
    const [org] = await db
      .select({ id: organizations.id, slug: organizations.slug, name: organizations.name, plan: organizations.plan })
      .from(organizations)
      .where(eq(organizations.id, orgId));
    if (org!.plan === target) throw httpError(409, `This organization is already on ${planLabel(target)}.`, 'already_subscribed');
    const account = await accountOf(db, orgId);
    // A paying organization changes the price of its subscription (prorated) rather than buying a second one.
    if (account?.stripe_subscription_id && isEntitled(account.status)) {
      await provider(req, billing, async () => {
        const sub = await billing.stripe.subscriptions.retrieve(account.stripe_subscription_id!);
        const item = sub.items.data[0]!;
        await billing.stripe.subscriptions.update(sub.id, {
          items: [{ id: item.id, price: billing.prices[target] }],
          cancel_at_period_end: false,
          proration_behavior: 'create_prorations',
        });
      });
      return { status: 'success', message: `Successfully upgraded to ${planLabel(target)}.`, plan: target };
    }
    const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, req.caller.userId!));
    const back = `${config.PUBLIC_URL.replace(/\/$/, '')}/${org!.slug}/upgrade`;
    const session = await provider(req, billing, async () => {
      const customer = await customerFor(db, billing, org!, user?.email ?? null);
      return billing.stripe.checkout.sessions.create({
        mode: 'subscription',
        customer,
        client_reference_id: String(orgId),
        line_items: [{ price: billing.prices[target], quantity: 1 }],
        success_url: `${back}?plan=${target}&session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${back}?cancelled=1`,
        subscription_data: { metadata: { organization_id: String(orgId), plan: target } },
      });
    });
    if (!session.url) throw httpError(502, 'Failed to process subscription request', 'payment_provider_error');
    return { checkout_url: session.url };
  };
  const upgradeSchema = (label: string) => ({
    tags,
    summary: `Start a ${label} subscription: answers checkout_url (Stripe Checkout), or success when an existing subscription changed price`,
    ...answers(200, upgradeAnswer),
  });
  app.post('/stripe/upgrade-to-pro', { schema: upgradeSchema('Pro') }, upgrade('pro'));
  app.post('/stripe/upgrade-to-team-pro', { schema: upgradeSchema('Team Pro') }, upgrade('team_pro'));
}

/** Cancelling, and the link to Stripe's portal, for an organization that has subscribed. */
function registerSubscriptionRoutes(scope: FastifyInstance, billing: Billing | null) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { db, config } = scope;
  app.post(
    '/stripe/cancel-subscription',
    {
      schema: {
        tags,
        summary: 'Cancel the subscription at the end of the paid period',
        ...answers(200, objectOf({ status: str, message: str, subscription_end_date: nullableStr })),
      },
    },
    async (req) => {
      owner(req);
      if (!billing) throw disabled();
      const account = await accountOf(db, req.caller.orgId);
      if (!account?.stripe_subscription_id || !isEntitled(account.status))
        throw httpError(409, 'This organization has no subscription to cancel.', 'no_subscription');
      const sub = await provider(req, billing, () => billing.stripe.subscriptions.update(account.stripe_subscription_id!, { cancel_at_period_end: true }));
      const end = sub.items.data[0]?.current_period_end;
      // The plan itself changes when Stripe's webhook says the subscription ended.
      return { status: 'success', message: 'Subscription cancelled successfully.', subscription_end_date: end ? new Date(end * 1000).toISOString() : null };
    },
  );

  app.post(
    '/stripe/portal',
    { schema: { tags, summary: "A link to Stripe's customer portal (cards, invoices)", ...answers(200, objectOf({ url: str })) } },
    async (req) => {
      owner(req);
      if (!billing) throw disabled();
      const account = await accountOf(db, req.caller.orgId);
      if (!account) throw httpError(409, 'This organization has not subscribed yet.', 'no_subscription');
      const portal = await provider(req, billing, () =>
        billing.stripe.billingPortal.sessions.create({
          customer: account.stripe_customer_id,
          return_url: `${config.PUBLIC_URL.replace(/\/$/, '')}/${req.caller.orgSlug}/upgrade`,
        }),
      );
      return { url: portal.url };
    },
  );
}

/**
 * Stripe's webhook, one per server (outside the organization prefix): the signature covers the exact
 * bytes sent, so this route keeps the raw body. Only events it verifies change a plan.
 */
export async function registerStripeWebhook(app: FastifyInstance) {
  const billing: Billing | null = await billingFrom(app.config);
  if (!billing) return;
  await app.register(async (child) => {
    // Kept as the text received (a string is also cheap for the app's NUL check, unlike a Buffer).
    child.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    child.post(
      '/api/v1/stripe/webhook',
      { schema: { tags, summary: 'Stripe events (signed with STRIPE_WEBHOOK_SECRET)', ...answers(200, objectOf({ received: bool, outcome: str })) } },
      async (req, reply) => {
        const signature = req.headers['stripe-signature'];
        if (typeof req.body !== 'string' || typeof signature !== 'string')
          throw httpError(400, 'A Stripe event needs its JSON body and Stripe-Signature header.', 'invalid_signature', ['header', 'stripe-signature']);
        let event: Stripe.Event;
        try {
          event = billing.stripe.webhooks.constructEvent(req.body, signature, billing.webhookSecret, WEBHOOK_TOLERANCE_SECONDS);
        } catch {
          throw httpError(400, 'The Stripe signature does not match this body, or is older than 5 minutes.', 'invalid_signature', [
            'header',
            'stripe-signature',
          ]);
        }
        // constructEvent bounds a signature's age only: one dated ahead would stay valid until then.
        const signedAt = Number(/(?:^|,)\s*t=(\d+)/.exec(signature)?.[1]);
        if (!(signedAt <= Date.now() / 1000 + WEBHOOK_TOLERANCE_SECONDS))
          throw httpError(400, 'The Stripe signature is dated more than 5 minutes in the future.', 'invalid_signature', ['header', 'stripe-signature']);
        if (typeof event.id !== 'string' || !event.id || typeof event.type !== 'string')
          throw httpError(400, 'A Stripe event needs its id and type (text).', 'invalid_event', [
            'body',
            typeof event.id !== 'string' || !event.id ? 'id' : 'type',
          ]);
        // Stripe unreachable while fetching the subscription: 502, and Stripe delivers the event again later.
        const outcome = await provider(req, billing, () => applyEvent(app.db, billing, event, req.log));
        return reply.send({ received: true, outcome });
      },
    );
  });
}
