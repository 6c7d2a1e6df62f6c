// tap's `after` script (.taprc): drops the PostgreSQL databases this run's test files made. Their names
// start with the tap runner's pid, this process's parent as it was theirs (tests/helpers.ts). Plain
// JavaScript: tap runs it with node alone. .ci/run's cluster is removed whole after its run
// (FW_TEST_CLUSTER_THROWAWAY): nothing to drop there.
import process from 'node:process';
import postgres from 'postgres';

const base = process.env.DATABASE_URL;
if (base && !process.env.FW_TEST_CLUSTER_THROWAWAY) {
  const sql = postgres(base, { max: 4, onnotice: () => {} });
  const prefix = `fw_t${process.ppid}_`;
  const made = await sql`select datname from pg_database where starts_with(datname, ${prefix})`;
  // Side by side (four at a time): the drops share their checkpoints.
  await Promise.all(made.map(({ datname }) => sql.unsafe(`drop database if exists "${datname}" with (force)`)));
  await sql.end();
}
