import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, cpSync, existsSync, fsyncSync, mkdtempSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The start of a template folder's name in os.tmpdir(). */
export const TEMPLATE_PREFIX = 'firewatch-pglite-';

// The migrations folder sits at the project root, whether this runs from server/ or dist/server/.
export const migrationsFolder = fileURLToPath(new URL('../../../migrations', import.meta.url)).replace(/\/dist\/migrations$/, '/migrations');

/** Folders being made in this process, by absolute path. */
const underway = new Map<string, Promise<void>>();

/**
 * Makes `dataDir` a copy of the template when it is a new folder on disk (no PG_VERSION yet), setting
 * the template up first in a child process (setup-folder) if there is none. Once per folder at a time:
 * the server starts this before its modules load (the setup is most of a first start and the loading
 * takes seconds of its own), and openDatabase awaits the same promise.
 */
export function prepareFolder(dataDir: string, sync = true, setUp: (dir: string) => Promise<void> = setUpInChild): Promise<void> {
  if (dataDir.startsWith('memory://') || existsSync(join(dataDir, 'PG_VERSION'))) return Promise.resolve();
  const key = resolve(dataDir);
  const pending = underway.get(key) ?? copyTemplate(migrationsFolder, dataDir, setUp, sync).finally(() => underway.delete(key));
  underway.set(key, pending);
  return pending;
}

const setupScript = fileURLToPath(new URL(`./setup-folder${extname(fileURLToPath(import.meta.url))}`, import.meta.url));

/**
 * Runs setup-folder on `dir` in a child node (with this process's loader flags, so under tsx too),
 * without an fsync per commit (copyTemplate syncs the folder once); rejects with its output if it fails.
 */
function setUpInChild(dir: string) {
  const execArgv = process.execArgv.filter((a) => !a.startsWith('--inspect'));
  return new Promise<void>((resolve, reject) =>
    execFile(process.execPath, [...execArgv, setupScript, dir, 'no-sync'], { maxBuffer: 1 << 20 }, (error, stdout, stderr) =>
      error ? reject(new Error(`Setting up the data folder ${dir} failed: ${stderr || stdout || error.message}`)) : resolve(),
    ),
  );
}

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
