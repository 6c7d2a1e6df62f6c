import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import postgres from 'postgres';

// No relational schema: Firewatch uses only the SQL-like builders, so the client knows no tables.
type NoSchema = Record<string, never>;
export type Db = PgDatabase<PgQueryResultHKT, NoSchema>;
export type Tx = PgTransaction<PgQueryResultHKT, NoSchema, ExtractTablesWithRelations<NoSchema>>;
/** What a query can run on: the root database or a transaction. */
export type Executor = Db | Tx;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
  /** PGlite only: the whole data folder as a tarball, to open copies with `snapshot` (tests). */
  dump?(): Promise<Blob>;
}

// The migrations folder sits at the project root, whether this runs from server/ or dist/server/.
const migrationsFolder = fileURLToPath(new URL('../../../migrations', import.meta.url)).replace(/\/dist\/migrations$/, '/migrations');

export interface DatabaseOptions {
  /** A PostgreSQL URL; without it the embedded PGlite is used. */
  url?: string;
  /** PGlite data folder; `memory://` keeps it in memory (tests). */
  dataDir: string;
  /** postgres.js pool size. */
  max?: number;
  /** PGlite: start from this data-folder tarball (a `dump()`), instead of an empty database. */
  snapshot?: Blob;
  /** PGlite on disk: sync each commit (default); false only to measure what syncing costs (bench/). */
  sync?: boolean;
}

/**
 * Per pool, the COMMITs still out after their answer went (read-only and one-round transactions hand
 * their connection back once COMMIT returns). Closing the pool waits for them first: postgres.js keeps
 * a connection that is handed back after end() began, and end() then waits out its whole timeout.
 */
const commitsInFlight = new WeakMap<object, Set<Promise<void>>>();

/** Remembers a COMMIT of `client`'s that is still out, until it settles. */
export function trackCommit(client: object, handedBack: Promise<void>) {
  const pending = commitsInFlight.get(client) ?? commitsInFlight.set(client, new Set()).get(client)!;
  pending.add(handedBack);
  void handedBack.then(() => pending.delete(handedBack));
}

/** Resolves once no COMMIT of `client`'s transactions is still out. */
async function commitsSettled(client: object) {
  const pending = commitsInFlight.get(client);
  while (pending?.size) await Promise.allSettled([...pending]);
}

/** How long closing a PostgreSQL pool waits for its connections' statements before cutting them. */
export const POOL_CLOSE_SECONDS = 5;

/** Opens the database and applies the committed migrations. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) {
    const client = postgres(options.url, { max: options.max ?? 10, onnotice: () => {} });
    const db = drizzlePostgres({ client }) as unknown as Db;
    // Connections still busy after POOL_CLOSE_SECONDS are cut.
    const close = async () => {
      await commitsSettled(client);
      await client.end({ timeout: POOL_CLOSE_SECONDS });
    };
    return migrated({ db, kind: 'postgres', close }, () => migratePostgres(db as never, { migrationsFolder }));
  }
  // Imported here: PGlite costs about a third of a second of CPU to load, which a server on
  // PostgreSQL (and each test file of the suite's PostgreSQL run) need not pay.
  const [{ PGlite }, { btree_gin }, { pg_trgm }, { drizzle: drizzlePglite }, { migrate: migratePglite }, { durablePglite }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/btree_gin'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
    import('drizzle-orm/pglite'),
    import('drizzle-orm/pglite/migrator'),
    import('./pglite-sync.js'),
  ]);
  const inMemory = options.dataDir.startsWith('memory://');
  if (!inMemory) mkdirSync(options.dataDir, { recursive: true });
  // A folder on disk syncs every commit (see pglite-sync.ts); memory:// has nothing to sync.
  const client = await PGlite.create(options.dataDir, {
    extensions: { pg_trgm, btree_gin },
    loadDataDir: options.snapshot,
    ...(inMemory || options.sync === false ? {} : durablePglite(options.dataDir)),
  });
  const db = drizzlePglite({ client }) as unknown as Db;
  return migrated({ db, kind: 'pglite', close: () => client.close(), dump: () => client.dumpDataDir('none') }, () =>
    migratePglite(db as never, { migrationsFolder }),
  );
}

/** The opened database once migrated; if migrating fails it is closed first (an open pool would keep the process alive). */
async function migrated(database: Database, migrate: () => Promise<unknown>): Promise<Database> {
  try {
    await migrate();
    return database;
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
}

/** drizzle's execute returns `{rows}` on PGlite and an array on postgres.js. */
export function rowsOf<T = Record<string, unknown>>(result: unknown): T[] {
  return (Array.isArray(result) ? result : ((result as { rows?: T[] }).rows ?? [])) as T[];
}
