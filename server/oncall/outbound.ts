import type { Config } from '../core/config.js';
import { rateLimitedFetch } from '../core/http/outbound.js';
/**
 * Every call the on-call domain makes to another service (ntfy, Twilio, PagerDuty, Opsgenie, people's
 * webhooks) goes out through `oncallFetch`, which is core's `rateLimitedFetch` (the outbound address
 * policy; a 429's Retry-After waited out in place up to 10 s, else `RateLimited`) plus the body read
 * and a non-2xx answer turned into an error that names the service and its status.
 */

const TIMEOUT_MS = 10_000;
/** The longest Retry-After waited for in place; a longer one is left to the job queue's retry. */
const MAX_WAIT_S = 10;

export class OutboundError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export interface OutboundAnswer {
  status: number;
  headers: Headers;
  text: string;
  json<T = unknown>(): T;
}

export interface OutboundRequest {
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string;
  /** Calls in all at a 429 answer, waiting its Retry-After between them (default 3). */
  attempts?: number;
  /** Answers with this status come back instead of throwing (e.g. a 400 that means "already open"). */
  accept?: number[];
}

const redact = (url: string) => url.replace(/\/\/[^@/]*@/, '//').split('?')[0]!;

/**
 * `policy` is the organization's address policy (a plugin's `outbound`, the app's config); null only for
 * a URL the operator typed (the Opsgenie import's command line).
 */
export async function oncallFetch(policy: Pick<Config, 'OUTBOUND_ALLOW'> | null, url: string, req: OutboundRequest = {}): Promise<OutboundAnswer> {
  const init: RequestInit = { method: req.method ?? 'GET', headers: req.headers, body: req.body, redirect: 'error' };
  const res = await rateLimitedFetch(policy, url, init, {
    service: new URL(url).host,
    waitInPlaceUpTo: MAX_WAIT_S,
    attempts: req.attempts ?? 3,
    timeoutMs: TIMEOUT_MS,
  });
  const text = await res.text();
  if (!res.ok && !req.accept?.includes(res.status)) throw new OutboundError(`${redact(url)} answered ${res.status}: ${text.slice(0, 300)}`, res.status);
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}
