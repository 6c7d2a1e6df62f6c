import type { WebAPICallResult, WebClient } from '@slack/web-api';
import { limitOf, RateLimiter } from './rate-limits.js';

/**
 * Every call Firewatch makes to Slack goes through here: the Web API (WebClient), response URLs and
 * the OAuth token exchange. One place, so the outbound address policy (an http dispatcher) is plugged
 * in once: `slackFetch` is what every client here fetches with.
 */
export const slackFetch: typeof fetch = (input, init) => fetch(input, init);

/**
 * Long enough for a slow Slack (a create that timed out here may still have been done there, and its
 * retry would make a second channel), short enough that a hung call frees its worker.
 */
const TIMEOUT_MS = 30_000;

// Loaded on the first call: @slack/web-api is a large module that a server with no Slack app never needs.
let webApi: Promise<typeof import('@slack/web-api')> | undefined;
const loadWebApi = () => (webApi ??= import('@slack/web-api'));

/** A token's Web API client, made at its first call (callSlack). */
export interface SlackClient {
  readonly slackApiUrl: string;
  readonly token?: string;
  web(): Promise<WebClient>;
}

/**
 * A Web API client for a token. A 429 is not waited out inside the call (rejectRateLimitedCalls): it
 * throws SlackRateLimited, and the job queue runs the work again after Retry-After, so no worker
 * sleeps and no transaction stays open meanwhile.
 */
export function slackClient(apiUrl: string, token?: string): SlackClient {
  let web: Promise<WebClient> | undefined;
  return {
    slackApiUrl: apiUrl,
    token,
    web: () =>
      (web ??= loadWebApi().then(
        ({ WebClient }) =>
          new WebClient(token, {
            slackApiUrl: apiUrl,
            fetch: slackFetch as never,
            timeout: TIMEOUT_MS,
            rejectRateLimitedCalls: true,
            // Transport failures are retried by the job queue too, not inside the call.
            retryConfig: { retries: 0 },
            // A method name can never send the token anywhere but apiUrl.
            allowAbsoluteUrls: false,
          }),
      )),
  };
}

/** Slack answered 429: the work runs again after `retryAfter` seconds. */
export class SlackRateLimited extends Error {
  constructor(
    readonly method: string,
    readonly retryAfter: number,
  ) {
    super(`Slack rate-limited ${method}; retry after ${retryAfter} s`);
  }
}

/** Slack answered `ok:false`. */
export class SlackApiError extends Error {
  constructor(
    readonly method: string,
    readonly error: string,
  ) {
    super(`Slack ${method}: ${error}. ${hintFor(error)}`);
  }
}

/** What to do about an `ok:false`, in words, for the installation's health in Settings. */
const HINTS: Record<string, string> = {
  invalid_auth: 'The bot token is no longer valid: install the app again with "Add to Slack".',
  token_revoked: 'The bot token was revoked: install the app again with "Add to Slack".',
  account_inactive: 'The app was removed from the workspace: install it again with "Add to Slack".',
  missing_scope: 'The app lacks a scope: update it from the manifest on this page, then install it again.',
  not_in_channel: 'The bot is not in that channel: invite it there (/invite @Firewatch).',
  channel_not_found: 'That channel does not exist or the bot cannot see it: check the name, or invite the bot.',
  is_archived: 'The channel is archived: unarchive it or choose another one.',
  users_not_found: 'No Slack account has that e-mail address (or the workspace hides e-mail addresses).',
  name_taken: 'A channel of that name exists already.',
  expired_trigger_id: 'Slack gave up waiting for the dialog; run the command again.',
  restricted_action: 'A workspace setting forbids this to apps: ask a Slack admin.',
  ratelimited: 'Slack is rate-limiting the app; the work is retried later.',
};
export const hintFor = (error: string) => HINTS[error] ?? 'See https://api.slack.com/methods for what this error means.';

/** This process's count of calls per workspace (bot token, at its API) and method. */
const limiter = new RateLimiter();
/** A wait this short is slept here (no transaction is open during Slack calls); a longer one re-queues the job. */
export const WAIT_INLINE_MS = 5_000;

/**
 * Calls a Web API method within its tier's limit; ok:false and 429 become the errors above. A call
 * over the limit waits up to `maxWaitMs`, else throws SlackRateLimited as a 429 would.
 */
export async function callSlack<T extends object = WebAPICallResult>(
  client: SlackClient,
  method: string,
  args: Record<string, unknown>,
  { maxWaitMs = WAIT_INLINE_MS }: { maxWaitMs?: number } = {},
): Promise<T> {
  const slot = client.token ? limiter.reserve(`${client.slackApiUrl}|${client.token}`, limitOf(method, args), maxWaitMs) : null;
  if (slot) {
    if (slot.wait > maxWaitMs) throw new SlackRateLimited(method, Math.ceil(slot.wait / 1000));
    if (slot.wait > 0) await new Promise((r) => setTimeout(r, slot.wait));
  }
  try {
    return (await (await client.web()).apiCall(method, args)) as unknown as T;
  } catch (err) {
    const { ErrorCode } = await loadWebApi();
    const e = err as { code?: string; retryAfter?: number; data?: { error?: string } };
    if (e.code === ErrorCode.RateLimitedError) throw new SlackRateLimited(method, e.retryAfter ?? 1);
    if (e.code === ErrorCode.PlatformError) throw new SlackApiError(method, e.data?.error ?? 'unknown_error');
    throw err;
  } finally {
    slot?.answered();
  }
}

/**
 * Posts to a command's or interaction's response_url (an ephemeral answer to the person who asked):
 * only to Slack's hooks host or the configured API's host, whatever a payload says.
 */
export async function respond(apiUrl: string, url: string, body: { text: string; response_type?: 'ephemeral' | 'in_channel'; replace_original?: boolean }) {
  const origin = new URL(url).origin;
  if (origin !== 'https://hooks.slack.com' && origin !== new URL(apiUrl).origin) throw new Error(`A response_url outside Slack (${origin}) is not called.`);
  const res = await slackFetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ response_type: 'ephemeral', ...body }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (res.status === 429) throw new SlackRateLimited('response_url', Number(res.headers.get('retry-after') ?? 1));
  if (!res.ok) throw new Error(`Slack's response_url answered ${res.status}`);
}
