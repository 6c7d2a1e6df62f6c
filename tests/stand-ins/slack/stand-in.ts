import { createServer, type IncomingMessage, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import { freePort } from '../../free-port.js';
import { methods } from './methods.js';
import { SlackTiers } from './tiers.js';
import { signBody } from '../../../server/slack/signature.js';

/**
 * A local Slack on 127.0.0.1, speaking its protocol: Web API methods as `POST /api/<method>` with a
 * Bearer token, form or JSON bodies, HTTP 200 with `{ok:false,error}` for refusals and 429 with
 * Retry-After for rate limits; OAuth v2's token exchange; response URLs; and a Socket Mode server
 * (apps.connections.open hands out a WebSocket URL that says hello and takes acks). It records every
 * call, so a test reads what Slack was asked, in order.
 */
export interface Channel {
  id: string;
  name: string;
  is_private: boolean;
  is_archived: boolean;
  topic: string;
  members: Set<string>;
  messages: { ts: string; text: string; user: string; blocks?: unknown[] }[];
  pins: string[];
  bookmarks: { title: string; link: string }[];
}
export interface SlackUser {
  id: string;
  email: string;
  name: string;
}
export interface Call {
  method: string;
  args: Record<string, any>;
  token: string | null;
  at: number;
}

export interface SlackStandIn {
  url: string;
  apiUrl: string;
  authorizeUrl: string;
  calls: Call[];
  channels: Map<string, Channel>;
  users: SlackUser[];
  team: { id: string; name: string };
  client: { id: string; secret: string };
  botUserId: string;
  /** Codes oauth.v2.access accepts once (the authorize page would hand one out). */
  issueCode(): string;
  /** Tokens issued, by kind. */
  tokens: { bot: Set<string>; app: Set<string> };
  /** The next call of `method` answers `{ok:false, error}`. */
  failNext(method: string, error: string): void;
  /** The next call of `method` answers 429 with Retry-After. */
  rateLimitNext(method: string, retryAfterSeconds: number): void;
  /**
   * The next call of `method` reaches Slack `ms` late (a slow way there): it is counted, recorded and
   * answered then. Resolves when the call set out.
   */
  delayNext(method: string, ms: number): Promise<void>;
  /**
   * The next call of `method` waits on its way until the test lets it go: `setOut` resolves when the
   * call set out, `release()` lets it reach Slack (counted, recorded and answered then).
   */
  holdNext(method: string): { setOut: Promise<void>; release: () => void };
  /** Just before the next call of `method`, another process of the app had made `calls` of them, `agoMs` before it. */
  spendBeforeNext(method: string, o: { calls: number; agoMs: number }): void;
  /** Every 429 answered, scripted or over a tier's limit. */
  limited: { method: string; retryAfter: number; at: number }[];
  /** What was posted to response URLs, in order. */
  responses: { path: string; body: any }[];
  responseUrl(): string;
  /** Socket Mode: sends an envelope to every open connection (or one), resolves with the acks received. */
  sockets: WebSocket[];
  sendEnvelope(envelope: Record<string, unknown>, to?: WebSocket[]): void;
  acks: { envelope_id: string; payload?: unknown }[];
  triggers: Set<string>;
  issueTrigger(): string;
  close(): Promise<void>;
}

const parseBody = (raw: string, type: string | undefined): Record<string, any> => {
  if (type?.includes('application/json')) return raw ? JSON.parse(raw) : {};
  const out: Record<string, any> = {};
  for (const [k, v] of new URLSearchParams(raw)) out[k] = /^[[{]/.test(v) ? JSON.parse(v) : v;
  return out;
};

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => resolve(data));
  });

export async function startSlackStandIn(): Promise<SlackStandIn> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const failures = new Map<string, string[]>();
  const limits = new Map<string, number[]>();
  const delays = new Map<string, { wait: () => Promise<unknown>; setOut: () => void }[]>();
  const delay = (m: string, wait: () => Promise<unknown>) => new Promise<void>((setOut) => delays.set(m, [...(delays.get(m) ?? []), { wait, setOut }]));
  const codes = new Set<string>();
  let counter = 0;
  const s: SlackStandIn = {
    url,
    apiUrl: `${url}/api/`,
    authorizeUrl: `${url}/oauth/v2/authorize`,
    calls: [],
    channels: new Map(),
    users: [],
    team: { id: 'T0STANDIN', name: 'Stand-in Workspace' },
    client: { id: '1111.2222', secret: 'client-secret-of-the-stand-in' },
    botUserId: 'UBOT',
    tokens: { bot: new Set(), app: new Set() },
    issueCode: () => {
      const code = `code-${++counter}`;
      codes.add(code);
      return code;
    },
    failNext: (m, e) => failures.set(m, [...(failures.get(m) ?? []), e]),
    rateLimitNext: (m, secs) => limits.set(m, [...(limits.get(m) ?? []), secs]),
    delayNext: (m, ms) => delay(m, () => new Promise((r) => setTimeout(r, ms))),
    holdNext: (m) => {
      let release = () => {};
      const released = new Promise<void>((r) => (release = r));
      return { setOut: delay(m, () => released), release };
    },
    spendBeforeNext: (m, o) => tiers.spendBeforeNext(m, o),
    limited: [],
    responses: [],
    responseUrl: () => `${url}/hooks/${++counter}`,
    sockets: [],
    acks: [],
    sendEnvelope: (envelope, to = s.sockets) => {
      for (const ws of to) ws.send(JSON.stringify(envelope));
    },
    triggers: new Set(),
    issueTrigger: () => {
      const id = `trigger-${++counter}.${randomBytes(4).toString('hex')}`;
      s.triggers.add(id);
      return id;
    },
    close: async () => {
      for (const ws of s.sockets) ws.terminate();
      wss.close();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const api = methods(s, codes);
  const tiers = new SlackTiers();

  const server: Server = createServer(async (req, res) => {
    const raw = await read(req);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const full = new URL(req.url ?? '/', url);
    const path = full.pathname;
    // The consent page, already agreed to: back to the app's redirect URI with a code and its state.
    if (path === '/oauth/v2/authorize') {
      const back = new URL(full.searchParams.get('redirect_uri') ?? '');
      if (full.searchParams.get('client_id') !== s.client.id) return send(400, { ok: false, error: 'invalid_client_id' });
      back.searchParams.set('code', s.issueCode());
      back.searchParams.set('state', full.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (path.startsWith('/hooks/')) {
      s.responses.push({ path, body: JSON.parse(raw || '{}') });
      return send(200, { ok: true });
    }
    const method = path.replace(/^\/api\//, '');
    const delayed = delays.get(method)?.shift();
    if (delayed) {
      delayed.setOut();
      await delayed.wait();
    }
    const args = parseBody(raw, req.headers['content-type']);
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? (typeof args.token === 'string' ? args.token : null);
    s.calls.push({ method, args, token: auth, at: Date.now() });
    const rateLimited = (retryAfter: number) => {
      s.limited.push({ method, retryAfter, at: Date.now() });
      return send(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(retryAfter) });
    };
    const scripted = limits.get(method)?.shift();
    if (scripted !== undefined) return rateLimited(scripted);
    const over = auth ? tiers.take(auth, method, args) : null;
    if (over !== null) return rateLimited(over);
    const failed = failures.get(method)?.shift();
    if (failed) return send(200, { ok: false, error: failed });
    const handler = api[method];
    if (!handler) return send(404, { ok: false, error: 'unknown_method' });
    if (method !== 'oauth.v2.access') {
      const ok = method === 'apps.connections.open' ? s.tokens.app.has(auth ?? '') : s.tokens.bot.has(auth ?? '');
      if (!auth) return send(200, { ok: false, error: 'not_authed' });
      if (!ok) return send(200, { ok: false, error: 'invalid_auth' });
    }
    const answer = handler(args, req.headers.authorization);
    send(200, 'error' in answer ? { ok: false, ...answer } : { ok: true, ...answer });
  });
  const wss = new WebSocketServer({ server, path: '/socket' });
  wss.on('connection', (ws) => {
    s.sockets.push(ws);
    ws.on('message', (data) => s.acks.push(JSON.parse(String(data))));
    ws.on('close', () => s.sockets.splice(s.sockets.indexOf(ws), 1));
    ws.send(JSON.stringify({ type: 'hello', num_connections: s.sockets.length, connection_info: { app_id: 'A0STANDIN' } }));
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return s;
}

/** The headers Slack signs a delivery with (v0), for a body, at `at` seconds (now by default). */
export function slackSigned(secret: string, body: string, at = Math.floor(Date.now() / 1000)) {
  return { 'x-slack-request-timestamp': String(at), 'x-slack-signature': signBody(secret, String(at), body) };
}

/** Slack delivering to a running server over HTTP: an event (JSON) or a form (command, interaction), signed. */
export async function deliver(url: string, secret: string, body: string, type: 'application/json' | 'application/x-www-form-urlencoded') {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': type, ...slackSigned(secret, body) }, body });
  return { status: res.status, text: await res.text() };
}
