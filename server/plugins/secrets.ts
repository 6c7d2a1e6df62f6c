import fp from 'fastify-plugin';
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '../core/db/client.js';
import { settings } from '../core/db/tables.js';

/**
 * Plugin and webhook secrets are encrypted at rest with AES-256-GCM. The key is SECRETS_KEY (any
 * text, hashed to 32 bytes), else one generated on first start and kept in the settings table (which
 * the application role cannot read), like the JWT secret. Ciphertexts name their key by a short
 * fingerprint, so a value written under a previous key (SECRETS_KEY_PREVIOUS) still opens while
 * everything is re-encrypted on its next write: that is the rotation.
 */
const keys = new WeakMap<Db, Buffer[]>();

const derive = (text: string) => createHash('sha256').update(text).digest();
const fingerprint = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8);

export async function loadSecretKeys(db: Db, configured?: string, previous?: string) {
  let current = configured;
  if (!current) {
    await db
      .insert(settings)
      .values({ key: 'secrets_key', value: randomBytes(32).toString('base64url') })
      .onConflictDoNothing();
    const [row] = await db.select().from(settings).where(eq(settings.key, 'secrets_key'));
    current = row!.value;
  }
  keys.set(db, [derive(current), ...(previous ? [derive(previous)] : [])]);
}

function keysOf(db: Db) {
  const list = keys.get(db);
  if (!list) throw new Error('Secret keys are not loaded for this database (loadSecretKeys).');
  return list;
}

export function encryptSecret(db: Db, plain: string): string {
  const key = keysOf(db)[0]!;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', fingerprint(key), iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join(':');
}

export function decryptSecret(db: Db, sealed: string): string {
  const [version, print, iv, tag, body] = sealed.split(':');
  const key = keysOf(db).find((k) => fingerprint(k) === print);
  if (version !== 'v1' || !key || !iv || !tag || body === undefined) throw new Error('A stored secret cannot be opened with the configured SECRETS_KEY.');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

/** What the API shows in place of a secret. */
export const SECRET_MASK = '********';

/** The keys that encrypt plugin, webhook and model secrets, loaded before any route or job reads one. */
export const secretsPlugin = fp(async (app) => loadSecretKeys(app.db, app.config.SECRETS_KEY, app.config.SECRETS_KEY_PREVIOUS), {
  name: 'firewatch-secrets',
  fastify: '5.x',
});
