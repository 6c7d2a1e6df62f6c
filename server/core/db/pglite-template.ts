import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { copyFile, open } from 'node:fs/promises';
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
    await fsyncAll(building, treeOf(building));
    try {
      // Not synced: a rename lost to a crash only means the template is set up again.
      renameSync(building, template);
    } catch {
      // Another process renamed its template into place first; a folder of that name not ours is never used.
    }
    await copyFolder(ownTemplate(template) ? template : building, dataDir, sync);
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
 * before PG_VERSION is written, as the setup's own commits did. Asynchronous and several files at a time:
 * the copy of about 1,800 files runs while the server's modules load, and the disk takes the fsyncs
 * together.
 */
async function copyFolder(from: string, to: string, sync: boolean) {
  const tree = treeOf(from);
  for (const dir of tree.dirs) mkdirSync(join(to, dir), { recursive: true, mode: statSync(join(from, dir)).mode & 0o777 });
  const files = tree.files.filter((f) => f !== 'PG_VERSION');
  await inParallel(files, (file) => copyFile(join(from, file), join(to, file)));
  if (sync) await fsyncAll(to, { dirs: tree.dirs, files });
  await copyFile(join(from, 'PG_VERSION'), join(to, 'PG_VERSION'));
  if (sync) await fsyncAll(to, { dirs: [''], files: ['PG_VERSION'] });
}

interface Tree {
  /** Relative paths, each folder before what it holds ('' is the root). */
  dirs: string[];
  files: string[];
}

function treeOf(root: string, dir = '', tree: Tree = { dirs: [], files: [] }): Tree {
  tree.dirs.push(dir);
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true }))
    if (entry.isDirectory()) treeOf(root, join(dir, entry.name), tree);
    else tree.files.push(join(dir, entry.name));
  return tree;
}

/** fsync of every file, then every folder (their entries), of `tree` under `root`. */
async function fsyncAll(root: string, tree: Tree) {
  const fsync = async (path: string) => {
    const handle = await open(join(root, path), 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  };
  await inParallel(tree.files, fsync);
  await inParallel(tree.dirs, fsync);
}

/** `work` on each item, at most `width` at a time (libuv's thread pool has 4 threads by default). */
async function inParallel<T>(items: T[], work: (item: T) => Promise<unknown>, width = 8) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: width }, worker));
}
