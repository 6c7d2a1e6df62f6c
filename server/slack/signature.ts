import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack refuses nothing older, and neither do we (slack_sdk's SignatureVerifier: 5 minutes). */
export const REPLAY_WINDOW_SECONDS = 300;

export const signBody = (secret: string, timestamp: string, body: string) =>
  `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;

/**
 * Slack's request signing (v0): HMAC-SHA256 of `v0:<timestamp>:<raw body>` with the app's signing
 * secret, compared in constant time; a timestamp more than 5 minutes away is a replay.
 */
export function verifySignature(secret: string, headers: { timestamp?: string; signature?: string }, body: string, now = Date.now()): 'ok' | 'stale' | 'bad' {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature || !/^\d+$/.test(timestamp)) return 'bad';
  const expected = Buffer.from(signBody(secret, timestamp, body));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad';
  return Math.abs(now / 1000 - Number(timestamp)) > REPLAY_WINDOW_SECONDS ? 'stale' : 'ok';
}
