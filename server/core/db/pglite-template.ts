import { createHash } from 'node:crypto';
import { closeSync, cpSync, existsSync, fsyncSync, mkdtempSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The start of a template folder's name in os.tmpdir(). */
export const TEMPLATE_PREFIX = 'firewatch-pglite-';

/**
 * A new PGlite data folder is a copy of a template: a folder set up once (initdb, then every migration)
 * under the OS's temporary folder, named by what it was made from (the migrations and PGlite's version),
 * so a changed migration or PGlite makes another. Setting up a folder is most of a first start.
 * `setUp` need not sync anything (a scratch folder until it is renamed): every file of it reaches the
 * disk once, before the rename, so a template in place is whole on disk too.
 */
export async function copyTemplate(migrationsFolder: string, dataDir: string, setUp: (dir: string) => Promise<void>, sync: boolean) {
  // The user's id in the name: the temporary folder may be shared with other accounts.
  const template = join(tmpdir(), `${TEMPLATE_PREFIX}${process.getuid?.() ?? 0}-${templateKey(migrationsFolder)}`);
  if (ownTemplate(template)) return copyFolder(template, dataDir, sync);
  // Set up in a sibling folder, then renamed into place: another process sees a whole template or none.
  const building = mkdtempSync(`${template}.building-`);
  try {
    await setUp(building);
    // One pass of fsyncs here instead of one per commit of the setup (initdb's and 55 migrations').
    fsyncTree(building);
    try {
      // Not synced: a rename lost to a crash only means the template is set up again.
      renameSync(building, template);
    } catch {
      // Another process renamed its template into place first; a folder of that name not ours is never used.
    }
    copyFolder(ownTemplate(template) ? template : building, dataDir, sync);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

/** A whole template made by this user: another account could have put a folder of that name there. */
function ownTemplate(template: string) {
  try {
    return statSync(template).uid === (process.getuid?.() ?? statSync(template).uid) && existsSync(join(template, 'PG_VERSION'));
  } catch {
    return false;
  }
}

/** What the template is made from: the migrations drizzle applies (journal and SQL files) and PGlite's version. */
function templateKey(migrationsFolder: string) {
  const hash = createHash('sha256').update(pgliteVersion());
  const journal = join(migrationsFolder, 'meta', '_journal.json');
  hash.update(readFileSync(journal));
  for (const file of readdirSync(migrationsFolder)
    .filter((f) => f.endsWith('.sql'))
    .sort())
    hash.update(file).update(readFileSync(join(migrationsFolder, file)));
  return hash.digest('hex').slice(0, 16);
}

function pgliteVersion() {
  let dir = dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return String((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string }).version);
}

/**
 * Copies the template into dataDir, PG_VERSION last: openDatabase takes a folder with PG_VERSION as set
 * up, so a copy cut short is copied again at the next start. With `sync`, every file reaches the disk
 * before PG_VERSION is written, as the setup's own commits did.
 */
function copyFolder(from: string, to: string, sync: boolean) {
  cpSync(from, to, { recursive: true, filter: (source) => source !== join(from, 'PG_VERSION') });
  if (sync) fsyncTree(to);
  cpSync(join(from, 'PG_VERSION'), join(to, 'PG_VERSION'));
  if (sync) {
    fsyncPath(join(to, 'PG_VERSION'));
    fsyncPath(to);
  }
}

function fsyncTree(dir: string) {
  for (const entry of readdirSync(dir, { withFileTypes: true }))
    if (entry.isDirectory()) fsyncTree(join(dir, entry.name));
    else fsyncPath(join(dir, entry.name));
  fsyncPath(dir);
}

function fsyncPath(path: string) {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
