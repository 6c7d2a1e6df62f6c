import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import postgres from 'postgres';
import tap, { type Test } from 'tap';
import { buildApp } from '../server/app.js';
import { loadConfig, type Config } from '../server/core/config.js';
import { openDatabase, rowsOf, type Database } from '../server/core/db/client.js';

export { rowsOf };
import type { Mail } from '../server/core/mail.js';

/**
 * Migrating is most of what a fresh database costs, so it happens once and is cloned: a PGlite
 * data-folder snapshot (kept on disk, see snapshotFile), or a PostgreSQL template database per test
 * process (dropped after the run, see adminConnection).
 */
let pgliteSnapshot: Promise<Blob> | undefined;
let postgresTemplate: Promise<string> | undefined;

/**
 * The snapshot is also kept on disk for the other test processes: PGlite's initdb and the migrations
 * take about 5 s, which each of the suite's files paid again. The file is named by what makes the
 * snapshot (PGlite's version, the migrations, the code that opens the database), so a change to any
 * of them makes a new one.
 */
function snapshotFile(): string {
  const root = join(import.meta.dirname, '..');
  const hash = createHash('sha256');
  const migrations = join(root, 'migrations');
  for (const name of readdirSync(migrations, { recursive: true, encoding: 'utf8' }).sort()) {
    if (name.endsWith('.sql') || name.endsWith('.json')) hash.update(name).update(readFileSync(join(migrations, name)));
  }
  hash.update(readFileSync(join(root, 'node_modules', '@electric-sql', 'pglite', 'package.json')));
  hash.update(readFileSync(join(root, 'server', 'core', 'db', 'client.ts')));
  return join(root, 'node_modules', '.cache', 'firewatch', `pglite-${hash.digest('hex').slice(0, 16)}.tar`);
}

function migratedPglite(): Promise<Blob> {
  pgliteSnapshot ??= (async () => {
    const file = snapshotFile();
    const kept = await readFile(file).catch(() => undefined);
    if (kept) return new Blob([kept]);
    const database = await openDatabase({ dataDir: 'memory://' });
    const blob = await database.dump!();
    await database.close();
    // Written aside and renamed: a process starting meanwhile reads a whole file or none.
    const partial = `${file}.${process.pid}`;
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(partial, new Uint8Array(await blob.arrayBuffer()));
    await rename(partial, file);
    return blob;
  })();
  return pgliteSnapshot;
}

/**
 * Fills `dir` with a migrated embedded database (from the suite's snapshot) for a server process a
 * test starts: it opens the folder at once instead of setting it up (initdb and every migration),
 * which took over a minute per process on two loaded cores. A fresh folder's own set-up stays covered
 * by restart.test.ts and the browser suite's servers.
 */
export async function migratedDataDir(dir: string): Promise<string> {
  const database = await openDatabase({ dataDir: dir, snapshot: await migratedPglite() });
  await database.close();
  return dir;
}

/** The database settings for a server process a test starts: a fresh PostgreSQL database when the run has DATABASE_URL, else a migrated folder in `dir`. */
export async function spawnedServerDatabase(t: Test, dir: string): Promise<Record<string, string>> {
  return process.env.DATABASE_URL ? { DATABASE_URL: (await freshDatabase(t)).url! } : { DATABASE_URL: '', DATA_DIR: await migratedDataDir(dir) };
}

/** The URL of another database on the same PostgreSQL server. */
export const databaseUrl = (base: string, name: string) => {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
};

/**
 * This process's connection for creating databases. DROP DATABASE waits for a checkpoint on PostgreSQL
 * 15, which writes out what the other test process has written meanwhile: dropping each file's
 * databases when it ended cost every file seconds. Under the tap
 * runner they are therefore dropped once, after the whole run, by tests/drop-databases.mjs (.taprc's
 * `after`); their names start with the runner's pid, which that script shares. A file run otherwise
 * drops its own databases (side by side, sharing checkpoints) when it ends.
 */
let postgresAdmin: postgres.Sql | undefined;
const dropAtEnd: string[] = [];
const databasePrefix = `fw_t${process.ppid}_`;
const droppedAfterRun = process.env.TAP_AFTER?.endsWith('drop-databases.mjs') ?? false;

function adminConnection(base: string): postgres.Sql {
  if (!postgresAdmin) {
    const admin = (postgresAdmin = postgres(base, { max: 4, onnotice: () => {} }));
    tap.teardown(async () => {
      await Promise.all(dropAtEnd.map((name) => (droppedAfterRun ? shutOut(admin, name) : admin.unsafe(`drop database if exists ${name} with (force)`))));
      await admin.end();
    });
  }
  return postgresAdmin;
}

/**
 * What the drop with (force) did at a file's end, without its checkpoint: no connection to the database
 * outlives the file. A connection the code under test left open would otherwise keep the file running
 * (one did, once, in ops.test.ts, whose readiness test cuts the app's connections under it).
 */
async function shutOut(admin: postgres.Sql, name: string) {
  await admin.unsafe(`alter database ${name} allow_connections false`);
  await admin.unsafe(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}'`);
}

function migratedTemplate(base: string, admin: postgres.Sql): Promise<string> {
  postgresTemplate ??= (async () => {
    const name = `${databasePrefix}tpl_${randomBytes(6).toString('hex')}`;
    await admin.unsafe(`create database ${name}`);
    dropAtEnd.push(name);
    const database = await openDatabase({ url: databaseUrl(base, name), dataDir: '', max: 1 });
    await database.close();
    return name;
  })();
  return postgresTemplate;
}

/**
 * A fresh, migrated database for one test: in-memory PGlite by default, or, with DATABASE_URL set, a
 * new PostgreSQL database created next to the given one, closed when the test ends and dropped after
 * the run (see adminConnection).
 */
export async function freshDatabase(t: Test): Promise<{ database: Database; url?: string }> {
  const base = process.env.DATABASE_URL;
  if (!base) {
    const database = await openDatabase({ dataDir: 'memory://', snapshot: await migratedPglite() });
    t.teardown(() => database.close());
    return { database };
  }
  const name = `${databasePrefix}${randomBytes(6).toString('hex')}`;
  const admin = adminConnection(base);
  await admin.unsafe(`create database ${name} template ${await migratedTemplate(base, admin)}`);
  dropAtEnd.push(name);
  const url = databaseUrl(base, name);
  const database = await openDatabase({ url, dataDir: '', max: 4 });
  t.teardown(() => database.close());
  return { database, url };
}

export interface TestApp {
  app: FastifyInstance;
  database: Database;
  /** PostgreSQL only: the test database's URL, for a connection outside the app's pool. */
  url?: string;
  config: Config;
  /** Mail the app sent (sign-in codes, reports), newest last. */
  outbox: Mail[];
  /** Injects a request; `token` adds the bearer header, objects are sent as JSON. */
  request(opts: InjectOptions & { token?: string }): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  /** Signs in (creating the user and membership if needed) and returns a bearer token. */
  login(email: string, opts?: { org?: string; role?: 'Owner' | 'Manager' | 'Admin' | 'Member' }): Promise<string>;
  /** Creates an organization owned by `ownerEmail`; returns its slug and the owner's token there. */
  organization(slug: string, ownerEmail?: string): Promise<{ slug: string; id: number; token: string }>;
  /** A single-use socket ticket for a signed-in token (POST /auth/ws-ticket), for `…/ws?ticket=`. */
  ticket(token: string, org?: string): Promise<string>;
}

/**
 * Spread into a test app's environment by a test whose stand-ins (a Slack webhook, a workflow engine, a
 * webhook receiver, a model) listen on loopback: the server's outbound policy refuses loopback unless
 * the operator allows it, and by default tests keep that default.
 */
export const LOOPBACK_STAND_INS = { OUTBOUND_ALLOW: '127.0.0.0/8' } as const;

export async function testApp(t: Test, env: Record<string, string> = {}): Promise<TestApp> {
  const { database, url } = await freshDatabase(t);
  const config = loadConfig({ LOG_LEVEL: 'silent', JWT_SECRET: 'test-secret-test-secret-test-secret-42', ADMIN_DIST: 'dist/no-admin-in-tests', ...env });
  const outbox: Mail[] = [];
  // With SMTP_URL set the app's own SMTP mailer runs (tests start a real SMTP server); else mail lands in `outbox`.
  const mailer = env.SMTP_URL ? undefined : async (m: Mail) => void outbox.push(m);
  const app = await buildApp({ config, database, logger: false, mailer });
  t.teardown(() => app.close());
  const { memberships, organizations, users } = await import('../server/schema.js');
  const { eq, and } = await import('drizzle-orm');
  const { createOrganization } = await import('../server/accounts/service.js');
  const { startSession } = await import('../server/core/sessions.js');

  const request: TestApp['request'] = async ({ token, headers, ...opts }) => {
    const res = await app.inject({ ...opts, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } } as InjectOptions);
    let body: unknown = res.body;
    try {
      body = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.statusCode, body, headers: res.headers };
  };

  const login: TestApp['login'] = async (email, opts = {}) => {
    const slug = opts.org ?? 'default';
    const db = database.db;
    const [org] = await db.select().from(organizations).where(eq(organizations.slug, slug));
    const [user] = await db.insert(users).values({ email }).onConflictDoUpdate({ target: users.email, set: { email } }).returning();
    const [existing] = await db
      .select()
      .from(memberships)
      .where(and(eq(memberships.organization_id, org!.id), eq(memberships.user_id, user!.id)));
    if (!existing) await db.insert(memberships).values({ organization_id: org!.id, user_id: user!.id, role: opts.role ?? 'Owner' });
    else if (opts.role)
      await db
        .update(memberships)
        .set({ role: opts.role })
        .where(and(eq(memberships.organization_id, org!.id), eq(memberships.user_id, user!.id)));
    return startSession(app, { id: user!.id, email }, '1h');
  };

  const organization: TestApp['organization'] = async (slug, ownerEmail = `owner@${slug}.test`) => {
    const [user] = await database.db
      .insert(users)
      .values({ email: ownerEmail })
      .onConflictDoUpdate({ target: users.email, set: { email: ownerEmail } })
      .returning();
    const org = await createOrganization(database.db, { name: slug, description: `${slug} org`, slug }, user!.id, config.TRIAL_DAYS);
    return { slug: org.slug, id: org.id, token: await startSession(app, { id: user!.id, email: ownerEmail }, '1h') };
  };

  const ticket: TestApp['ticket'] = async (token, org = 'default') => {
    const res = await request({ method: 'POST', url: `/api/v1/${org}/auth/ws-ticket`, token });
    if (res.status !== 200) throw new Error(`ws-ticket answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.ticket as string;
  };

  return { app, database, url, config, outbox, request, login, organization, ticket };
}
