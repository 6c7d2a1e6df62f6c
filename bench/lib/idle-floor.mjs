/* global process, setInterval */
// The idle-memory suite's floor: a bare PGlite (the app's extensions and start parameters, passed as
// JSON in argv[3]) on a fresh folder (argv[2]), nothing else loaded; prints `ready` once open.
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

const [dataDir, startParams] = process.argv.slice(2);
const pg = await PGlite.create(dataDir, { extensions: { pg_trgm, btree_gin }, startParams: JSON.parse(startParams) });
await pg.query('select 1');
process.stdout.write('ready\n');
setInterval(() => {}, 1 << 30);
