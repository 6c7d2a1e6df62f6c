/* global process */
// The demo suite's floor: what a machine's first run cannot do without, in a process of its own with
// nothing of the app loaded: a bare PGlite (the app's extensions and start parameters, JSON in argv[3])
// runs initdb on a fresh folder (argv[2]), drizzle applies the same migrations (argv[4]), and it closes.
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';

const [dataDir, startParams, migrationsFolder] = process.argv.slice(2);
const pg = await PGlite.create(dataDir, { extensions: { pg_trgm, btree_gin }, startParams: JSON.parse(startParams) });
await migrate(drizzle({ client: pg }), { migrationsFolder });
await pg.close();
