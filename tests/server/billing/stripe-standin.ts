import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/**
 * A local stand-in for the part of Stripe's API Firewatch calls, speaking its protocol: form-encoded
 * requests (`a[b][0][c]=v`), JSON objects with `object` and `id`, `{error: {...}}` failures, and a
 * Checkout page that, when paid, creates the subscription and posts the signed events Stripe would
 * (signed by the SDK's own `webhooks.generateTestHeaderString`). State is kept, unlike stripe-mock.
 */

type Obj = Record<string, any>;

export interface Call {
  method: string;
  path: string;
  form: Obj;
  idempotencyKey?: string;
}

/** Stripe's bracket notation into nested objects; `items[0][price]` becomes `{items: {0: {price}}}`. */
export function parseForm(body: string): Obj {
  const out: Obj = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[');
    let at = out;
    for (const part of path.slice(0, -1)) at = at[part] ??= {};
    at[path.at(-1)!] = value;
  }
  return out;
}
const list = (o: Obj | undefined): Obj[] => (o ? Object.values(o) : []);

export interface StripeStandin {
  url: string;
  calls: Call[];
  customers: Map<string, Obj>;
  sessions: Map<string, Obj>;
  subscriptions: Map<string, Obj>;
  /** Where paid checkouts post their events (the e2e server); tap tests inject events themselves. */
  webhookUrl?: string;
  /** Makes the next call to this path (e.g. `/v1/subscriptions/sub_1`) fail as Stripe does. */
  failNext(path: string): void;
  /** Pays a checkout session: the subscription is created and the events Stripe would send are returned. */
  completeCheckout(sessionId: string): Stripe.Event[];
  /** An event about the current state of a stored object, `created` (seconds) given or now. */
  event(type: string, object: Obj, created?: number): Stripe.Event;
  /** The body and Stripe-Signature header of an event, signed with `secret` (default the stand-in's). */
  signed(event: Stripe.Event, secret?: string, timestamp?: number): { payload: string; signature: string };
  /** Posts events to webhookUrl, signed, one after the other. */
  deliver(events: Stripe.Event[]): Promise<void>;
  close(): Promise<void>;
}

const now = () => Math.floor(Date.now() / 1000);
const MONTH = 30 * 86_400;

export async function startStripeStandin(opts: { webhookSecret: string; webhookUrl?: string; port?: number }): Promise<StripeStandin> {
  const stripe = new Stripe('sk_test_standin');
  const tag = randomBytes(3).toString('hex');
  let seq = 0;
  const newId = (prefix: string) => `${prefix}_${tag}${++seq}`;
  const calls: Call[] = [];
  const customers = new Map<string, Obj>();
  const sessions = new Map<string, Obj>();
  const subscriptions = new Map<string, Obj>();
  const failing = new Set<string>();
  const idempotent = new Map<string, Obj>();

  const send = (res: ServerResponse, status: number, body: unknown, type = 'application/json') => {
    res.writeHead(status, { 'content-type': type, 'request-id': newId('req') });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const missing = (res: ServerResponse, kind: string, id: string) =>
    send(res, 404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${kind}: '${id}'`, param: 'id' } });

  const subscriptionItem = (price: string, start: number) => ({
    id: newId('si'),
    object: 'subscription_item',
    price: { id: price, object: 'price', recurring: { interval: 'month' } },
    quantity: 1,
    current_period_start: start,
    current_period_end: start + MONTH,
  });

  function completeCheckout(sessionId: string): Stripe.Event[] {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`no checkout session ${sessionId}`);
    const created = now();
    const sub = {
      id: newId('sub'),
      object: 'subscription',
      customer: session.customer,
      status: 'active',
      cancel_at_period_end: false,
      canceled_at: null,
      created,
      metadata: session.subscription_data?.metadata ?? {},
      items: { object: 'list', data: list(session.line_items).map((l) => subscriptionItem(l.price, created)), has_more: false },
    };
    subscriptions.set(sub.id, sub);
    Object.assign(session, { status: 'complete', payment_status: 'paid', subscription: sub.id });
    return [standin.event('customer.subscription.created', sub), standin.event('checkout.session.completed', session)];
  }

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string) {
    const url = new URL(req.url ?? '/', 'http://standin');
    const path = url.pathname;
    const form = req.method === 'GET' ? parseForm(url.search.slice(1)) : parseForm(raw);

    // The hosted Checkout page: what a person sees after Firewatch redirects them.
    const page = /^\/checkout\/([^/]+)(\/pay)?$/.exec(path);
    if (page) {
      const session = sessions.get(page[1]!);
      if (!session) return send(res, 404, 'No such checkout session', 'text/plain');
      if (req.method === 'GET') {
        const price = list(session.line_items)[0]?.price;
        return send(
          res,
          200,
          `<!doctype html><title>Stripe Checkout (local)</title><h1>Subscribe</h1><p>Price ${price}</p><form method="post" action="/checkout/${session.id}/pay"><button type="submit">Pay and subscribe</button></form>`,
          'text/html',
        );
      }
      const events = completeCheckout(session.id);
      await standin.deliver(events);
      res.writeHead(303, { location: String(session.success_url).replace('{CHECKOUT_SESSION_ID}', session.id) });
      return res.end();
    }

    calls.push({ method: req.method!, path, form, idempotencyKey: req.headers['idempotency-key'] as string | undefined });
    if (!String(req.headers.authorization ?? '').startsWith('Bearer sk_'))
      return send(res, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
    if (failing.delete(path)) return send(res, 402, { error: { type: 'card_error', code: 'card_declined', message: 'Your card was declined.' } });
    const key = req.headers['idempotency-key'];
    if (typeof key === 'string' && idempotent.has(key)) return send(res, 200, idempotent.get(key));
    const remember = (body: Obj) => {
      if (typeof key === 'string') idempotent.set(key, body);
      return send(res, 200, body);
    };

    if (req.method === 'POST' && path === '/v1/customers') {
      const customer = {
        id: newId('cus'),
        object: 'customer',
        name: form.name ?? null,
        email: form.email ?? null,
        metadata: form.metadata ?? {},
        created: now(),
      };
      customers.set(customer.id, customer);
      return remember(customer);
    }
    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      if (form.mode !== 'subscription' || !customers.has(form.customer))
        return send(res, 400, { error: { type: 'invalid_request_error', message: 'mode subscription and an existing customer are required here' } });
      const id = newId('cs_test');
      const session = {
        ...form,
        id,
        object: 'checkout.session',
        status: 'open',
        payment_status: 'unpaid',
        subscription: null,
        url: `http://${req.headers.host}/checkout/${id}`,
      };
      sessions.set(id, session);
      return remember(session);
    }
    if (req.method === 'POST' && path === '/v1/billing_portal/sessions') {
      if (!customers.has(form.customer)) return missing(res, 'customer', form.customer);
      return remember({
        id: newId('bps'),
        object: 'billing_portal.session',
        customer: form.customer,
        return_url: form.return_url,
        url: `http://${req.headers.host}/portal/${form.customer}`,
      });
    }
    const subMatch = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
    if (subMatch) {
      const sub = subscriptions.get(subMatch[1]!);
      if (!sub) return missing(res, 'subscription', subMatch[1]!);
      if (req.method === 'GET') return send(res, 200, sub);
      if (req.method === 'DELETE') {
        Object.assign(sub, { status: 'canceled', canceled_at: now() });
        return send(res, 200, sub);
      }
      if ('cancel_at_period_end' in form) sub.cancel_at_period_end = form.cancel_at_period_end === 'true';
      for (const item of list(form.items)) {
        const existing = sub.items.data.find((i: Obj) => i.id === item.id);
        if (existing && item.price) existing.price = { ...existing.price, id: item.price };
      }
      // Stripe follows a change with customer.subscription.updated; delivered before answering, so a
      // browser walk sees the change as soon as its request returns.
      await standin.deliver([standin.event('customer.subscription.updated', sub)]);
      return send(res, 200, sub);
    }
    return send(res, 404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path}).` } });
  }

  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => void handle(req, res, raw).catch((err: unknown) => send(res, 500, { error: { type: 'api_error', message: String(err) } })));
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const standin: StripeStandin = {
    url: `http://127.0.0.1:${port}`,
    calls,
    customers,
    sessions,
    subscriptions,
    webhookUrl: opts.webhookUrl,
    failNext: (path) => void failing.add(path),
    completeCheckout,
    event: (type, object, created = now()) =>
      ({
        id: newId('evt'),
        object: 'event',
        api_version: '2026-10-28.endive',
        created,
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type,
        data: { object: structuredClone(object) },
      }) as unknown as Stripe.Event,
    signed(event, secret = opts.webhookSecret, timestamp) {
      const payload = JSON.stringify(event, null, 2);
      return { payload, signature: stripe.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp ? { timestamp } : {}) }) };
    },
    async deliver(events) {
      if (!standin.webhookUrl) return;
      for (const event of events) {
        const { payload, signature } = standin.signed(event);
        const res = await fetch(standin.webhookUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'stripe-signature': signature },
          body: payload,
        });
        if (!res.ok) throw new Error(`webhook answered ${res.status}: ${await res.text()}`);
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return standin;
}
