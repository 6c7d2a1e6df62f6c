import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import argon2 from 'argon2';
import { eq, sql } from 'drizzle-orm';
import type { Db, Executor } from '../core/db/client.js';
import { memberships, organizations, settings, users } from '../core/db/tables.js';
import { seedOrganization } from '../core/seeds.js';

export const CODE_TTL_MS = 10 * 60 * 1000;
export const CODE_MAX_ATTEMPTS = 5;

export const hashPassword = (password: string) => argon2.hash(password, { type: argon2.argon2id });
export const verifyPassword = (hash: string, password: string) => argon2.verify(hash, password).catch(() => false);
/** A hash of nobody's password, verified when there is no real one so that sign-in takes as long either way. */
let dummyHash: Promise<string> | undefined;
export const dummyPasswordHash = () => (dummyHash ??= hashPassword(randomBytes(24).toString('base64url')));

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** Six-digit codes are guessable offline, so they are kept as an HMAC under the server secret. */
export const hashCode = (secret: string, email: string, code: string) => createHmac('sha256', secret).update(`${email}:${code}`).digest('hex');
export const newCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');
export function sameHash(a: string, b: string) {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The JWT secret: the configured one, else one generated on first start and kept in the database. */
export async function jwtSecret(db: Db, configured?: string): Promise<string> {
  if (configured) return configured;
  const fresh = randomBytes(48).toString('base64url');
  await db.insert(settings).values({ key: 'jwt_secret', value: fresh }).onConflictDoNothing();
  const [row] = await db.select().from(settings).where(eq(settings.key, 'jwt_secret'));
  return row!.value;
}

export function slugify(name: string) {
  return (
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'org'
  );
}

/** Creates an organization on the free trial and makes `ownerId` its Owner. */
export async function createOrganization(
  db: Executor,
  input: { name: string; description: string; slug?: string; allow_signup?: boolean } & Record<string, unknown>,
  ownerId: number | null,
  trialDays: number,
) {
  return db.transaction(async (tx) => {
    const base = input.slug ?? slugify(input.name);
    const taken = await tx
      .select({ slug: organizations.slug })
      .from(organizations)
      .where(sql`${organizations.slug} = ${base} or ${organizations.slug} like ${base + '-%'}`);
    const names = new Set(taken.map((t) => t.slug));
    let slug = base;
    for (let i = 2; names.has(slug); i++) slug = `${base}-${i}`;
    const now = new Date();
    const [org] = await tx
      .insert(organizations)
      .values({
        ...input,
        slug,
        plan: 'free',
        free_trial_start: now,
        free_trial_end: new Date(now.getTime() + trialDays * 86400_000),
      } as typeof organizations.$inferInsert)
      .returning();
    if (ownerId !== null) await tx.insert(memberships).values({ organization_id: org!.id, user_id: ownerId, role: 'Owner' });
    await seedOrganization(tx, org!.id);
    return org!;
  });
}

/** At start: organization `default` exists (open to sign-up) and the configured admin owns it. */
export async function ensureDefaults(db: Db, opts: { adminEmail?: string; adminPassword?: string; trialDays: number }) {
  let [org] = await db.select().from(organizations).where(eq(organizations.slug, 'default'));
  if (!org)
    org = await createOrganization(db, { name: 'Default', description: 'The default organization', slug: 'default', allow_signup: true }, null, opts.trialDays);
  // A database made before organizations were seeded gets the defaults once (never again after that).
  else await db.transaction((tx) => seedOrganization(tx, org!.id));
  if (!opts.adminEmail) return;
  const email = normalizeEmail(opts.adminEmail);
  const password_hash = opts.adminPassword ? await hashPassword(opts.adminPassword) : null;
  const [user] = await db
    .insert(users)
    .values({ email, password_hash })
    .onConflictDoUpdate({ target: users.email, set: password_hash ? { password_hash } : { email } })
    .returning();
  await db
    .insert(memberships)
    .values({ organization_id: org.id, user_id: user!.id, role: 'Owner' })
    .onConflictDoUpdate({ target: [memberships.organization_id, memberships.user_id], set: { role: 'Owner' } });
}
