import { mkdirSync } from 'node:fs';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { sql, type ExtractTablesWithRelations } from 'drizzle-orm';
import { migrationsFolder, prepareFolder } from './pglite-template.js';

// No relational schema: Firewatch uses only the SQL-like builders, so the client knows no tables.
type NoSchema = Record<string, never>;
export type Db = PgDatabase<PgQueryResultHKT, NoSchema>;
export type Tx = PgTransaction<PgQueryResultHKT, NoSchema, ExtractTablesWithRelations<NoSchema>>;
/** What a query can run on: the root database or a transaction. */
export type Executor = Db | Tx;

/**
 * The transaction's COMMIT does not wait for its log to reach the disk (PostgreSQL's synchronous_commit
 * off, for this transaction only): for work that can be run again, where a crash may lose the last
 * commits but never half of one. Its callers say why theirs can.
 */
export const relaxed = (tx: Executor) => tx.execute(sql`select set_config('synchronous_commit', 'off', true)`);

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
  /** PGlite only: the whole data folder as a tarball, to open copies with `snapshot` (tests). */
  dump?(): Promise<Blob>;
}

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
  /** PGlite on disk: set up a new folder here rather than in a child process (set by that child). */
  setUpHere?: boolean;
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

/**
 * PostgreSQL's memory settings for PGlite. Its defaults are sized for a server of its own, and in
 * PGlite they live in the WebAssembly heap, which never shrinks: the 128 MB of shared_buffers were
 * about 110 MB of the embedded server's idle RSS. The data files are read through the OS page cache
 * anyway (NodeFS), so a small buffer pool costs a system call per miss, not a disk read.
 * maintenance_work_mem bounds what an index build leaves in the heap for good.
 */
export const PGLITE_MEMORY_PARAMS = ['-c', 'shared_buffers=16MB', '-c', 'maintenance_work_mem=16MB'];

/** Opens the database and applies the committed migrations. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  // Each driver imported when used: the setup child (setup-folder.ts) needs only PGlite's, and loading
  // postgres.js there (under tsx) was about 0.3 s of its start.
  if (options.url) {
    const [{ default: postgres }, { drizzle: drizzlePostgres }, { migrate: migratePostgres }] = await Promise.all([
      import('postgres'),
      import('drizzle-orm/postgres-js'),
      import('drizzle-orm/postgres-js/migrator'),
    ]);
    const client = postgres(options.url, { max: options.max ?? 10, onnotice: () => {} });
    const db = drizzlePostgres({ client }) as unknown as Db;
    // Connections still busy after POOL_CLOSE_SECONDS are cut.
    const close = async () => {
      await commitsSettled(client);
      await client.end({ timeout: POOL_CLOSE_SECONDS });
    };
    return migrated({ db, kind: 'postgres', close }, () => migratePostgres(db as never, { migrationsFolder }));
  }
  // PGlite costs about a third of a second of CPU to load, which a server on PostgreSQL (and each test
  // file of the suite's PostgreSQL run) need not pay.
  const [{ PGlite }, { btree_gin }, { pg_trgm }, { drizzle: drizzlePglite }, { migrate: migratePglite }, { syncedFs, durableStartParams }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/btree_gin'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
    import('drizzle-orm/pglite'),
    import('drizzle-orm/pglite/migrator'),
    import('./pglite-sync.js'),
  ]);
  const inMemory = options.dataDir.startsWith('memory://');
  if (!inMemory) mkdirSync(options.dataDir, { recursive: true });
  // A new folder is copied from a template (see pglite-template.ts), which is set up (initdb, then the
  // migrations) by a process of its own, whose scratch memory goes back to the OS when it exits: in this
  // process, initdb's own PGlite and the setup's large buffers left about 100 MB in malloc's heap for
  // good. This process then opens a ready folder. The server may have started this already (server.ts).
  if (!options.snapshot && !options.setUpHere) await prepareFolder(options.dataDir, options.sync !== false);
  // A folder on disk syncs every commit (see pglite-sync.ts); memory:// has nothing to sync.
  const durable = !inMemory && options.sync !== false;
  const client = await PGlite.create(options.dataDir, {
    extensions: { pg_trgm, btree_gin },
    loadDataDir: options.snapshot,
    ...(durable ? { fs: syncedFs(options.dataDir) } : {}),
    startParams: [...(durable ? durableStartParams() : PGlite.defaultStartParams), ...PGLITE_MEMORY_PARAMS],
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
