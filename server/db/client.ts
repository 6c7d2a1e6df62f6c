import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import postgres from 'postgres';
import * as schema from './schema/index.js';
import { commitsSettled } from './tenant.js';

type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
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
const migrationsFolder = fileURLToPath(new URL('../../migrations', import.meta.url)).replace(/\/dist\/migrations$/, '/migrations');

export interface DatabaseOptions {
  /** A PostgreSQL URL; without it the embedded PGlite is used. */
  url?: string;
  /** PGlite data folder; `memory://` keeps it in memory (tests). */
  dataDir: string;
  /** postgres.js pool size. */
  max?: number;
  /** PGlite: start from this data-folder tarball (a `dump()`), instead of an empty database. */
  snapshot?: Blob;
}

/** How long closing a PostgreSQL pool waits for its connections' statements before cutting them. */
export const POOL_CLOSE_SECONDS = 5;

/** Opens the database and applies the committed migrations. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) {
    const client = postgres(options.url, { max: options.max ?? 10, onnotice: () => {} });
    const db = drizzlePostgres({ client, schema }) as unknown as Db;
    // Connections still busy after POOL_CLOSE_SECONDS are cut.
    const close = async () => {
      await commitsSettled(client);
      await client.end({ timeout: POOL_CLOSE_SECONDS });
    };
    return migrated({ db, kind: 'postgres', close }, () => migratePostgres(db as never, { migrationsFolder }));
  }
  if (!options.dataDir.startsWith('memory://')) mkdirSync(options.dataDir, { recursive: true });
  const client = await PGlite.create(options.dataDir, { extensions: { pg_trgm, btree_gin }, loadDataDir: options.snapshot });
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  return migrated({ db, kind: 'pglite', close: () => client.close(), dump: () => client.dumpDataDir('none') }, () => migratePglite(db as never, { migrationsFolder }));
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
