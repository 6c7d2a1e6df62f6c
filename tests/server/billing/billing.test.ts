import t, { type Test } from 'tap';
import { sql } from 'drizzle-orm';
import type Stripe from 'stripe';
import { rowsOf, testApp } from '../../helpers.js';
import { startStripeStandin, type StripeStandin } from './stripe-standin.js';

const WEBHOOK_SECRET = 'whsec_test_firewatch_billing';
const PRICES = { pro: 'price_pro_monthly', team_pro: 'price_team_pro_monthly' };

async function setup(t: Test) {
  const stripe = await startStripeStandin({ webhookSecret: WEBHOOK_SECRET });
  t.teardown(() => stripe.close());
  const base = await testApp(t, {
    STRIPE_SECRET_KEY: 'sk_test_firewatch',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_PRICE_PRO: PRICES.pro,
    STRIPE_PRICE_TEAM_PRO: PRICES.team_pro,
    STRIPE_API_BASE: stripe.url,
    PUBLIC_URL: 'http://firewatch.test',
  });
  const org = await base.organization('acme');
  const api = (method: string, path: string, payload?: unknown, token = org.token) =>
    base.request({ method: method as 'GET', url: `/api/v1/acme${path}`, token, ...(payload !== undefined ? { payload: payload as object } : {}) });
  const webhook = (event: Stripe.Event, opts: { secret?: string; timestamp?: number; tamper?: (payload: string) => string } = {}) => {
    const { payload, signature } = stripe.signed(event, opts.secret, opts.timestamp);
    return base.request({
      method: 'POST',
      url: '/api/v1/stripe/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      payload: opts.tamper ? opts.tamper(payload) : payload,
    });
  };
  const me = async () => (await api('GET', '/auth/me')).body;
  const orgRow = async () => (await api('GET', `/organizations/${org.id}`)).body;
  const eventCount = async () => Number((rowsOf(await base.database.db.execute(sql`select count(*)::int as n from stripe_events`))[0] as { n: number }).n);

  /** Owner clicks upgrade, pays on the (stand-in) Checkout page, and Stripe's events arrive. */
  async function subscribe(plan: 'pro' | 'team_pro') {
    const res = await api('POST', plan === 'pro' ? '/stripe/upgrade-to-pro' : '/stripe/upgrade-to-team-pro');
    t.equal(res.status, 200, `upgrade to ${plan} answers`);
    const sessionId = /\/checkout\/([^/]+)$/.exec(res.body.checkout_url)![1]!;
    const events = stripe.completeCheckout(sessionId);
    for (const event of events) t.equal((await webhook(event)).status, 200, `${event.type} accepted`);
    return { sessionId, subscription: stripe.subscriptions.get(stripe.sessions.get(sessionId)!.subscription)!, events };
  }
  return { ...base, stripe, org, api, webhook, me, orgRow, eventCount, subscribe };
}

const banner = { banner_text: 'Major incident drill today', banner_enabled: true, banner_color: '#AA0000' };

t.test('upgrade to team pro: Checkout session, then only the verified webhook unlocks the banner settings', async (t) => {
  const { api, stripe, me, orgRow, webhook, org, login } = await setup(t);
  const before = await me();
  t.match(before, { is_pro: false, is_pro_team: false, subscription_status: 'trialing' });
  t.ok(before.subscription_end_date, 'a free organization shows when its trial ends');

  const refused = await api('PUT', `/organizations/${org.id}`, banner);
  t.equal(refused.status, 403, 'a free organization cannot set its banner through the API');
  t.same(refused.body.detail[0].loc, ['body', 'banner_text']);
  t.equal((await orgRow()).banner_text, null, 'and nothing changed');
  t.equal(
    (await api('PUT', `/organizations/${org.id}`, { description: 'Still free', banner_color: '#1565C0', banner_enabled: false })).status,
    200,
    'a form repeating the stored values still saves',
  );

  const created = await api('POST', '/organizations', { name: 'Side project', description: 'Another one', banner_enabled: true });
  t.equal(created.status, 403, 'nor create one with its banner on');
  t.same(created.body.detail[0].loc, ['body', 'banner_enabled']);

  const admin = await login('admin@acme.test', { org: 'acme', role: 'Admin' });
  t.equal((await api('POST', '/stripe/upgrade-to-team-pro', undefined, admin)).status, 403, 'only the Owner starts a subscription');

  const res = await api('POST', '/stripe/upgrade-to-team-pro');
  t.equal(res.status, 200);
  t.match(res.body.checkout_url, new RegExp(`^${stripe.url}/checkout/cs_test_`));
  const [customerCall, sessionCall] = stripe.calls;
  t.match(customerCall, { method: 'POST', path: '/v1/customers', form: { metadata: { organization_id: String(org.id) } } });
  t.ok(customerCall!.idempotencyKey, 'the customer is created with an idempotency key');
  t.match(sessionCall, {
    path: '/v1/checkout/sessions',
    form: {
      mode: 'subscription',
      customer: customerCall && stripe.customers.keys().next().value,
      line_items: { 0: { price: PRICES.team_pro, quantity: '1' } },
      client_reference_id: String(org.id),
    },
  });
  t.match(sessionCall!.form.success_url, /^http:\/\/firewatch\.test\/acme\/upgrade\?plan=team_pro&session_id=\{CHECKOUT_SESSION_ID\}$/);
  t.match(await me(), { is_pro_team: false }, 'a checkout started is not a plan bought');

  const sessionId = /\/checkout\/([^/]+)$/.exec(res.body.checkout_url)![1]!;
  for (const event of stripe.completeCheckout(sessionId)) {
    const delivered = await webhook(event);
    t.equal(delivered.status, 200);
    t.equal(delivered.body.outcome, 'applied', `${event.type} applied`);
  }
  const after = await me();
  t.match(after, { is_pro: true, is_pro_team: true, subscription_status: 'active' });
  t.ok(new Date(after.subscription_end_date).getTime() > Date.now() + 25 * 86_400_000, 'the paid period ends about a month from now');

  const saved = await api('PUT', `/organizations/${org.id}`, banner);
  t.equal(saved.status, 200, 'team pro sets the banner');
  t.match(await orgRow(), { plan: 'team_pro', custom_plan: true, ...banner });
  const billing = (await api('GET', '/billing')).body;
  t.match(billing, { enabled: true, plan: 'team_pro' });
  t.same(
    billing.plans.map((p: any) => [p.plan, p.custom_settings]),
    [
      ['free', false],
      ['pro', false],
      ['team_pro', true],
    ],
  );
  t.ok(billing.plans[2].messages_per_day > billing.plans[0].messages_per_day, 'the plan table carries the AI limits');

  const again = await api('POST', '/stripe/upgrade-to-team-pro');
  t.equal(again.status, 409, 'no second subscription to the same plan');
});

t.test('pro, then team pro: the existing subscription changes price instead of a second checkout', async (t) => {
  const { api, stripe, me, webhook, subscribe } = await setup(t);
  const { subscription } = await subscribe('pro');
  t.match(await me(), { is_pro: true, is_pro_team: false });
  const res = await api('POST', '/stripe/upgrade-to-team-pro');
  t.same(res.body, { status: 'success', message: 'Successfully upgraded to Team Pro.', plan: 'team_pro' });
  t.equal(subscription.items.data[0].price.id, PRICES.team_pro, 'the subscription item now has the team pro price');
  t.equal(stripe.sessions.size, 1, 'no second checkout session');
  t.match(await me(), { is_pro_team: false }, 'still pro until Stripe says so');
  t.equal((await webhook(stripe.event('customer.subscription.updated', subscription))).body.outcome, 'applied');
  t.match(await me(), { is_pro: true, is_pro_team: true });
});

t.test('cancel ends the subscription at the period end; the deleted event returns the organization to free', async (t) => {
  const { api, stripe, me, orgRow, webhook, subscribe, org } = await setup(t);
  const { subscription } = await subscribe('team_pro');
  t.equal((await api('PUT', `/organizations/${org.id}`, banner)).status, 200);

  const cancelled = await api('POST', '/stripe/cancel-subscription');
  t.equal(cancelled.status, 200);
  t.match(cancelled.body, { status: 'success', message: 'Subscription cancelled successfully.' });
  t.equal(new Date(cancelled.body.subscription_end_date).getTime(), subscription.items.data[0].current_period_end * 1000);
  t.equal(subscription.cancel_at_period_end, true, 'Stripe was asked to cancel at the period end, not now');
  t.match(stripe.calls.at(-1), { method: 'POST', path: `/v1/subscriptions/${subscription.id}`, form: { cancel_at_period_end: 'true' } });

  await webhook(stripe.event('customer.subscription.updated', subscription));
  t.match((await api('GET', '/billing')).body, { plan: 'team_pro', cancel_at_period_end: true }, 'paid until the period ends');
  t.match(await me(), { is_pro_team: true });

  // The period ends: Stripe deletes the subscription.
  Object.assign(subscription, { status: 'canceled', canceled_at: Math.floor(Date.now() / 1000) });
  t.equal((await webhook(stripe.event('customer.subscription.deleted', subscription))).body.outcome, 'applied');
  t.match(await me(), { is_pro: false, is_pro_team: false, subscription_status: 'canceled' });
  t.match(await orgRow(), { plan: 'free', banner_enabled: false, banner_text: banner.banner_text }, 'the banner is switched off, its text kept');
  t.equal((await api('PUT', `/organizations/${org.id}`, { banner_enabled: true })).status, 403, 'and cannot be switched on again');
  t.equal((await api('POST', '/stripe/cancel-subscription')).status, 409, 'nothing left to cancel');
});

t.test('a failed payment keeps the plan while Stripe retries; an unpaid subscription ends it', async (t) => {
  const { stripe, me, webhook, subscribe } = await setup(t);
  const { subscription } = await subscribe('pro');
  subscription.status = 'past_due';
  const invoice = {
    id: 'in_1',
    object: 'invoice',
    customer: subscription.customer,
    status: 'open',
    parent: { type: 'subscription_details', subscription_details: { subscription: subscription.id } },
  };
  t.equal((await webhook(stripe.event('invoice.payment_failed', invoice))).body.outcome, 'applied');
  t.match(await me(), { is_pro: true, subscription_status: 'past_due' });

  subscription.status = 'unpaid';
  await webhook(stripe.event('customer.subscription.updated', subscription));
  t.match(await me(), { is_pro: false, subscription_status: 'unpaid' });

  subscription.status = 'active';
  await webhook(stripe.event('invoice.paid', { ...invoice, status: 'paid' }));
  t.match(await me(), { is_pro: true, subscription_status: 'active' }, 'a later payment restores it');
});

t.test('a replayed event changes nothing and is not fetched again', async (t) => {
  const { stripe, me, webhook, subscribe, eventCount } = await setup(t);
  const { subscription, events } = await subscribe('team_pro');
  const counted = await eventCount();
  t.equal(counted, 2);
  Object.assign(subscription, { status: 'canceled' });
  const deleted = stripe.event('customer.subscription.deleted', subscription);
  t.equal((await webhook(deleted)).body.outcome, 'applied');
  // Stripe redelivers the original checkout event and the deletion.
  const fetches = stripe.calls.filter((c) => c.method === 'GET').length;
  t.equal((await webhook(events[1]!)).body.outcome, 'duplicate');
  t.equal((await webhook(deleted)).body.outcome, 'duplicate');
  t.equal(stripe.calls.filter((c) => c.method === 'GET').length, fetches, 'a known event id is answered without asking Stripe');
  t.equal(await eventCount(), 3);
  t.match(await me(), { is_pro: false, subscription_status: 'canceled' });
});

t.test('events out of order: an older event arriving late, and a stale event body, do not undo the newer state', async (t) => {
  const { stripe, me, webhook, subscribe } = await setup(t);
  const { subscription } = await subscribe('team_pro');
  const t0 = Math.floor(Date.now() / 1000);
  // Stripe sent "updated (still active)" at t0+10 and "deleted" at t0+20; the deletion arrives first.
  const updated = stripe.event('customer.subscription.updated', { ...subscription }, t0 + 10);
  Object.assign(subscription, { status: 'canceled' });
  const deleted = stripe.event('customer.subscription.deleted', subscription, t0 + 20);
  t.equal((await webhook(deleted)).body.outcome, 'applied');
  t.equal((await webhook(updated)).body.outcome, 'stale');
  t.match(await me(), { is_pro: false, subscription_status: 'canceled' });

  // A newer event whose body still says active: the subscription's own state (fetched) decides.
  const paid = stripe.event(
    'invoice.paid',
    { id: 'in_2', object: 'invoice', customer: subscription.customer, subscription: subscription.id, status: 'paid' },
    t0 + 30,
  );
  t.equal((await webhook(paid)).body.outcome, 'applied');
  t.match(await me(), { is_pro: false, subscription_status: 'canceled' }, 'a canceled subscription stays canceled');
});

t.test('a bad signature, a changed body or an old signature is refused with 400 and changes nothing', async (t) => {
  const { stripe, me, webhook, request, api, eventCount } = await setup(t);
  const res = await api('POST', '/stripe/upgrade-to-team-pro');
  const sessionId = /\/checkout\/([^/]+)$/.exec(res.body.checkout_url)![1]!;
  const [created] = stripe.completeCheckout(sessionId);

  const wrongSecret = await webhook(created!, { secret: 'whsec_someone_else' });
  t.equal(wrongSecret.status, 400);
  t.match(wrongSecret.body.detail[0], { type: 'invalid_signature', loc: ['header', 'stripe-signature'] });
  t.equal((await webhook(created!, { tamper: (p) => p.replace('"active"', '"trialing"') })).status, 400, 'a changed body');
  t.equal((await webhook(created!, { timestamp: Math.floor(Date.now() / 1000) - 301 })).status, 400, 'signed more than 300 s ago');
  const unsigned = await request({
    method: 'POST',
    url: '/api/v1/stripe/webhook',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(created),
  });
  t.equal(unsigned.status, 400, 'no signature');
  t.equal(await eventCount(), 0);
  t.match(await me(), { is_pro: false, is_pro_team: false, subscription_status: 'trialing' });
  t.equal((await webhook(created!)).status, 200, 'the same event, properly signed, is accepted');
  t.match(await me(), { is_pro_team: true });
});

t.test('a signature dated ahead, and a signed event without an id, are refused with 400 in the detail shape', async (t) => {
  const { stripe, me, webhook, api, eventCount } = await setup(t);
  const res = await api('POST', '/stripe/upgrade-to-team-pro');
  const sessionId = /\/checkout\/([^/]+)$/.exec(res.body.checkout_url)![1]!;
  const [created] = stripe.completeCheckout(sessionId);
  const future = await webhook(created!, { timestamp: Math.floor(Date.now() / 1000) + 600 });
  t.same(
    { status: future.status, type: future.body.detail?.[0]?.type, loc: future.body.detail?.[0]?.loc },
    { status: 400, type: 'invalid_signature', loc: ['header', 'stripe-signature'] },
    'signed 600 s in the future',
  );
  t.equal((await webhook(created!, { timestamp: Math.floor(Date.now() / 1000) + 60 })).status, 200, 'a minute ahead (clock skew) is accepted');
  t.match(await me(), { is_pro_team: true });
  for (const [what, body] of [
    ['no id', { a: '\u0000' }],
    ['an id that is a number', { ...created, id: 42 }],
    ['an empty id', { ...created, id: '' }],
  ] as const) {
    const answer = await webhook(body as unknown as Stripe.Event);
    t.same({ status: answer.status, loc: answer.body.detail?.[0]?.loc }, { status: 400, loc: ['body', 'id'] }, `a signed event with ${what}`);
  }
  t.equal(await eventCount(), 1, 'only the accepted event was recorded');
});

t.test('a Stripe failure answers 502 with the spec message; an unknown customer is ignored', async (t) => {
  const { api, stripe, webhook, me, subscribe } = await setup(t);
  stripe.failNext('/v1/checkout/sessions');
  const res = await api('POST', '/stripe/upgrade-to-pro');
  t.equal(res.status, 502);
  t.equal(res.body.detail[0].msg, 'Failed to process subscription request');
  // Another Stripe account's customer (or a deleted organization's): recorded, nothing changes.
  const stranger: StripeStandin['subscriptions'] extends Map<string, infer O> ? O : never = {
    id: 'sub_stranger',
    object: 'subscription',
    customer: 'cus_stranger',
    status: 'active',
    cancel_at_period_end: false,
    items: { object: 'list', data: [{ id: 'si_x', price: { id: PRICES.team_pro }, current_period_end: 0 }] },
  };
  stripe.subscriptions.set(stranger.id, stranger);
  t.equal((await webhook(stripe.event('customer.subscription.created', stranger))).body.outcome, 'ignored');
  t.match(await me(), { is_pro: false });

  // Stripe cannot be reached while the event is applied: 502, not recorded, so Stripe's retry applies it.
  const { subscription } = await subscribe('pro');
  stripe.failNext(`/v1/subscriptions/${subscription.id}`);
  subscription.status = 'canceled';
  const deleted = stripe.event('customer.subscription.deleted', subscription);
  t.equal((await webhook(deleted)).status, 502);
  t.match(await me(), { is_pro: true }, 'nothing changed');
  t.equal((await webhook(deleted)).body.outcome, 'applied', 'the redelivery applies it');
  t.match(await me(), { is_pro: false });
});

t.test('without the Stripe settings billing is off and every organization keeps its plan', async (t) => {
  const { request, organization, database } = await testApp(t);
  const org = await organization('plain');
  await database.db.execute(sql`update organizations set plan = 'team_pro' where slug = 'plain'`);
  const post = (path: string) => request({ method: 'POST', url: `/api/v1/plain${path}`, token: org.token });
  const res = await post('/stripe/upgrade-to-pro');
  t.equal(res.status, 409);
  t.equal(res.body.detail[0].type, 'billing_disabled');
  t.equal((await post('/stripe/cancel-subscription')).status, 409);
  t.equal((await request({ method: 'POST', url: '/api/v1/stripe/webhook', headers: { 'content-type': 'application/json' }, payload: '{}' })).status, 404);
  t.match((await request({ method: 'GET', url: '/api/v1/plain/auth/me', token: org.token })).body, {
    is_pro: true,
    is_pro_team: true,
    subscription_status: 'active',
    subscription_end_date: null,
  });
  t.match((await request({ method: 'GET', url: '/api/v1/plain/billing', token: org.token })).body, { enabled: false, plan: 'team_pro' });
  t.equal(
    (await request({ method: 'PUT', url: `/api/v1/plain/organizations/${org.id}`, token: org.token, payload: banner })).status,
    200,
    'a plan set by the operator is honoured',
  );
});
