import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks (standardwebhooks.com): a secret is `whsec_` + base64 key bytes; a message is
 * signed as base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)) and sent in the webhook-id,
 * webhook-timestamp and webhook-signature (`v1,<signature>`) headers.
 */
export const newSigningSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

const keyOf = (secret: string) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');

export function sign(secret: string, id: string, timestamp: number, body: string) {
  return createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
}

export function signedHeaders(secret: string, body: string, id = `msg_${randomUUID()}`, now = new Date()) {
  const timestamp = Math.floor(now.getTime() / 1000);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${sign(secret, id, timestamp, body)}` };
}

/** Checks a signed request (5 minutes of clock tolerance, as the specification suggests). */
export function verifySigned(secret: string, headers: Record<string, unknown>, body: string, now = Date.now()) {
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  const given = String(headers['webhook-signature'] ?? '');
  if (typeof id !== 'string' || !Number.isFinite(timestamp) || Math.abs(now / 1000 - timestamp) > 300) return false;
  const expected = Buffer.from(sign(secret, id, timestamp, body));
  return given.split(' ').some((part) => {
    const [version, sig] = part.split(',');
    const b = Buffer.from(sig ?? '');
    return version === 'v1' && b.length === expected.length && timingSafeEqual(b, expected);
  });
}
