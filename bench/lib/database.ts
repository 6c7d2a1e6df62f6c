import postgres from 'postgres';

/** The bench's own PostgreSQL database (never the tests' or a developer's). */
export const benchDatabaseUrl = () => process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/firewatch_bench';

/** Creates the database named in `url` when it does not exist yet (connecting to `postgres` on the same server). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[a-z_][a-z0-9_]*$/i.test(name)) throw new Error(`BENCH_DATABASE_URL must name a plain database, got '${name}'.`);
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const admin = postgres(maintenance.toString(), { max: 1, onnotice: () => {} });
  try {
    const [row] = await admin`select 1 as present from pg_database where datname = ${name}`;
    if (!row) await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
}

/** A plain postgres.js client on the bench database (seeding, the floor). */
export const connect = (url: string, max = 10) => postgres(url, { max, onnotice: () => {} });

/**
 * The organizations the tags and incidents suites share (`bench-01` … `bench-10`): their slugs'
 * pattern, and the condition on `organizations o`: not the ones other suites create on the same database (`bench-jobs-…`).
 */
export const SHARED_ORG_SLUGS = '^bench-[0-9]+$';
export const SHARED_ORGS = `o.slug ~ '${SHARED_ORG_SLUGS}'`;

/**
 * What autovacuum would have done by now, on a server where it is off (these machines' PostgreSQL is
 * configured `autovacuum = off`): VACUUM (ANALYZE) each table past autovacuum's default thresholds (dead
 * rows over 50 + 20% of the live ones, or rows changed since the last analyze over 50 + 10%). Without it
 * an update-heavy table is never cleaned nor analyzed: on the signals suite, a fresh database's
 * processing statements took 150-390 ms by its third run, and its grouped line saturated at 713-822
 * signals/s (1,409 with this). Answers the tables it vacuumed (none where autovacuum is on).
 */
export async function standInForAutovacuum(sql: postgres.Sql): Promise<string[]> {
  const [setting] = await sql`select current_setting('autovacuum') as on`;
  if (setting!.on === 'on') return [];
  const due = await sql`select format('%I.%I', schemaname, relname) as name from pg_stat_user_tables
    where n_dead_tup > 50 + 0.2 * n_live_tup or n_mod_since_analyze > 50 + 0.1 * n_live_tup`;
  for (const { name } of due) await sql.unsafe(`vacuum (analyze) ${name as string}`);
  return due.map((t) => t.name as string);
}
