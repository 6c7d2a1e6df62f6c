import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { Config } from '../config.js';
import { ALLOW_HINT, allowedRanges, refusal, type Allowed } from './address-policy.js';

/**
 * The one way the server calls a URL a user configured (webhooks, plugin URLs, workflow steps and
 * engines, organizations' model endpoints). The address is judged where the socket is made: the
 * resolved addresses of a name (so a name re-pointed at 127.0.0.1 between checks is still refused),
 * IP literals, and every redirect's target. Node's http is used rather than fetch because Node 20's
 * fetch has no hook on the address it connects to without the undici package.
 */
export class OutboundRefused extends Error {}

type Policy = Pick<Config, 'OUTBOUND_ALLOW'>;
const MAX_REDIRECTS = 5;
const NULL_BODY = new Set([101, 204, 205, 304]);

const cache = new Map<string, Allowed>();
const allowedOf = (policy: Policy) => {
  const key = policy.OUTBOUND_ALLOW ?? '';
  let found = cache.get(key);
  if (!found) cache.set(key, (found = allowedRanges(key)));
  return found;
};

const refused = (what: string) => new OutboundRefused(`refused: ${what}; ${ALLOW_HINT}`);

/** The scheme, host and port of a URL, without its path (which may hold a secret, as a Slack webhook's does). */
export const originOf = (url: string | URL) => {
  try {
    return new URL(url).origin;
  } catch {
    return 'the URL';
  }
};

/**
 * Why the server may not call `url` as far as can be told without the network (its scheme, an IP
 * literal, `localhost`), for a check when the URL is saved; null if nothing is wrong yet. Names are
 * judged again by what they resolve to when the call is made.
 */
export function outboundUrlProblem(policy: Policy, url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'Must be a URL.';
  }
  if (!['http:', 'https:'].includes(parsed.protocol)) return 'Must be an http or https URL.';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const name = host.toLowerCase().replace(/\.$/, '');
  const address = isIP(host) ? host : name === 'localhost' || name.endsWith('.localhost') ? '127.0.0.1' : null;
  const why = address && refusal(address, allowedOf(policy));
  if (!why) return null;
  return `The server may not call this address: ${address === host ? why : `${host} is a loopback name`}; ${ALLOW_HINT}.`;
}

/** dns.lookup, refusing a name any of whose addresses is refused (the socket would pick one of them). */
const guardedLookup =
  (allowed: Allowed): LookupFunction =>
  (hostname, options: LookupOptions, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const bad = addresses.map((a) => refusal(a.address, allowed)).find(Boolean);
      if (bad) return callback(refused(`${hostname} resolves to ${bad.replace(/ is /, ', ')}`), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };

interface Hop {
  url: URL;
  method: string;
  headers: Headers;
  body: Buffer | undefined;
  signal?: AbortSignal;
}

/** One request, no redirect followed; the agent is this request's own, so no socket made for another caller is reused. */
function send(hop: Hop, allowed: Allowed): Promise<IncomingMessage> {
  const host = hop.url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const why = refusal(host, allowed);
    if (why) return Promise.reject(refused(why));
  }
  const client = hop.url.protocol === 'https:' ? https : http;
  if (hop.url.protocol !== 'https:' && hop.url.protocol !== 'http:')
    return Promise.reject(new OutboundRefused(`refused: ${hop.url.protocol} is not http or https`));
  const headers = Object.fromEntries(hop.headers);
  if (hop.body) headers['content-length'] = String(hop.body.length);
  return new Promise((resolve, reject) => {
    const req = client.request(hop.url, { method: hop.method, headers, agent: false, lookup: guardedLookup(allowed), signal: hop.signal }, resolve);
    req.on('error', reject);
    req.end(hop.body);
  });
}

/** The answer as a fetch Response, its body streamed and decompressed as fetch would. */
function toResponse(res: IncomingMessage): Response {
  const headers = new Headers();
  for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) {
    res.destroy();
    throw new Error(`answered with status ${status}`);
  }
  if (NULL_BODY.has(status)) {
    res.resume();
    return new Response(null, { status, statusText: res.statusMessage, headers });
  }
  const encoding = (headers.get('content-encoding') ?? '').trim().toLowerCase();
  const decoder = { gzip: zlib.createGunzip, 'x-gzip': zlib.createGunzip, deflate: zlib.createInflate, br: zlib.createBrotliDecompress }[encoding];
  let body: Readable = res;
  if (decoder) {
    body = res.pipe(decoder());
    res.on('error', (e) => body.destroy(e));
    headers.delete('content-encoding');
    headers.delete('content-length');
  }
  return new Response(Readable.toWeb(body) as ReadableStream, { status, statusText: res.statusMessage, headers });
}

/**
 * fetch's shape (so a client library can take it), through the address policy. Redirects are followed
 * (at most 5, each target judged) unless `redirect: 'manual'`.
 */
export async function outboundFetch(policy: Policy, input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const allowed = allowedOf(policy);
  const request = input instanceof Request ? input : null;
  const headers = new Headers(init.headers ?? request?.headers);
  const given = init.body ?? (request?.body ? await request.arrayBuffer() : null);
  const body = given === null || given === undefined ? undefined : Buffer.from(await new Response(given).arrayBuffer());
  let hop: Hop = {
    url: new URL(request?.url ?? String(input)),
    method: (init.method ?? request?.method ?? 'GET').toUpperCase(),
    headers,
    body,
    signal: init.signal ?? undefined,
  };
  for (let redirects = 0; ; redirects++) {
    const res = await send(hop, allowed);
    const location = res.headers.location;
    if (!location || ![301, 302, 303, 307, 308].includes(res.statusCode ?? 0) || init.redirect === 'manual') return toResponse(res);
    res.resume();
    if (init.redirect === 'error') throw new Error(`${originOf(hop.url)} redirected`);
    if (redirects >= MAX_REDIRECTS) throw new OutboundRefused(`refused: more than ${MAX_REDIRECTS} redirects`);
    const url = new URL(location, hop.url);
    // fetch's rules: 303 (and 301/302 after a POST) become a GET without a body; credentials stay with their origin.
    const toGet = res.statusCode === 303 ? hop.method !== 'HEAD' : [301, 302].includes(res.statusCode!) && hop.method === 'POST';
    const next = new Headers(hop.headers);
    if (url.origin !== hop.url.origin) ['authorization', 'cookie', 'proxy-authorization'].forEach((h) => next.delete(h));
    if (toGet) ['content-type', 'content-length'].forEach((h) => next.delete(h));
    hop = { ...hop, url, headers: next, ...(toGet ? { method: 'GET', body: undefined } : {}) };
  }
}

/** What a user may read about a failed call: the refusal's rule, a timeout, or the network's error code; never a remote body. */
export function outboundFailure(err: unknown): string {
  if (err instanceof OutboundRefused) return err.message;
  const e = err as { name?: string; code?: string; cause?: { code?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'no answer in time';
  const code = e?.code ?? e?.cause?.code;
  return code ? `could not connect (${code})` : 'could not connect';
}

/**
 * A service asked to be called later (429, or its own equivalent) and the wait was not spent in
 * place: the caller gives `retryAfterSeconds` to its job queue (`startAfterSeconds`) or to the user.
 */
export class RateLimited extends Error {
  constructor(
    readonly service: string,
    readonly retryAfterSeconds: number,
  ) {
    super(`${service} asked to slow down (429); trying again in ${retryAfterSeconds} s.`);
  }
}

/** The longest wait any caller is told to honour: a Retry-After of a day is clipped to an hour. */
export const MAX_RETRY_AFTER_SECONDS = 3600;

/**
 * A rate-limited answer's wait in whole seconds, between 1 and `cap`: Retry-After as seconds or as an
 * HTTP date, else GitHub's x-ratelimit-reset (epoch seconds), else `fallback`. `get` reads a header by
 * its lower-case name (Headers#get, or a client library's plain header object).
 */
export function retryAfterSeconds(
  get: (name: string) => string | null | undefined,
  { cap = MAX_RETRY_AFTER_SECONDS, fallback = 60, now = Date.now() }: { cap?: number; fallback?: number; now?: number } = {},
): number {
  const raw = get('retry-after')?.trim();
  let seconds = raw ? (/^\d+$/.test(raw) ? Number(raw) : Math.ceil((Date.parse(raw) - now) / 1000)) : NaN;
  const reset = get('x-ratelimit-reset');
  if (!Number.isFinite(seconds) && reset) seconds = Number(reset) - Math.floor(now / 1000);
  return Math.min(cap, Math.max(1, Number.isFinite(seconds) ? seconds : fallback));
}

export interface RateLimits {
  /** Named in RateLimited's message ("Jira", "Statuspage"). */
  service: string;
  /** A wait at most this long (seconds) is slept here and the call made again; longer ones throw. Default 0: never sleep. */
  waitInPlaceUpTo?: number;
  /** Calls in all while waiting in place (default 3). */
  attempts?: number;
  /** The longest wait reported (default MAX_RETRY_AFTER_SECONDS). */
  cap?: number;
  /** Statuses that mean "later" (default [429]; Statuspage also answers 420). */
  limitedStatuses?: number[];
  /** Each call's own timeout (default 15 s). */
  timeoutMs?: number;
}

const sleep = (seconds: number) => new Promise((r) => setTimeout(r, seconds * 1000));

/**
 * outboundFetch that honours rate limits: a 429 (or `limitedStatuses`) with a wait of at most
 * `waitInPlaceUpTo` is slept and retried (up to `attempts` calls); otherwise it throws RateLimited with
 * the service's wait, capped. Any other answer is returned for the caller to read. `policy` null is
 * only for a URL the operator typed (plain fetch, no address policy).
 */
export async function rateLimitedFetch(policy: Policy | null, input: string | URL, init: RequestInit, limits: RateLimits): Promise<Response> {
  const { service, waitInPlaceUpTo = 0, attempts = 3, cap = MAX_RETRY_AFTER_SECONDS, limitedStatuses = [429], timeoutMs = 15_000 } = limits;
  for (let attempt = 1; ; attempt++) {
    const call = { signal: AbortSignal.timeout(timeoutMs), ...init };
    const res = await (policy ? outboundFetch(policy, input, call) : fetch(input, call));
    if (!limitedStatuses.includes(res.status)) return res;
    await res.arrayBuffer().catch(() => undefined);
    const wait = retryAfterSeconds((n) => res.headers.get(n), { cap });
    if (wait > waitInPlaceUpTo || attempt >= attempts) throw new RateLimited(service, wait);
    await sleep(wait);
  }
}
