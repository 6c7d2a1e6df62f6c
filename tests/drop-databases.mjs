// tap's `after` script (.taprc): drops the PostgreSQL databases this run's test files made. Their names
// start with the tap runner's pid, this process's parent as it was theirs (tests/helpers.ts). Plain
// JavaScript: tap runs it with node alone.
import process from 'node:process';
import postgres from 'postgres';

const base = process.env.DATABASE_URL;
if (base) {
  const sql = postgres(base, { max: 4, onnotice: () => {} });
  const prefix = `fw_t${process.ppid}_`;
  const made = await sql`select datname from pg_database where starts_with(datname, ${prefix})`;
  // Side by side (four at a time): the drops share their checkpoints.
  await Promise.all(made.map(({ datname }) => sql.unsafe(`drop database if exists "${datname}" with (force)`)));
  await sql.end();
}
