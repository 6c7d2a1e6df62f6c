/**
 * Sets up a new PGlite data folder (initdb, then the migrations) and exits: openDatabase runs this in a
 * child process, so the setup's scratch memory leaves with it. Usage: setup-folder <dataDir> sync|no-sync
 */
import { openDatabase } from './client.js';

const [dataDir, sync] = process.argv.slice(2);
const database = await openDatabase({ dataDir: dataDir!, sync: sync !== 'no-sync', setUpHere: true });
await database.close();
