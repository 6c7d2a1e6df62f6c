import { chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { copyTemplate, prepareFolder } from '../../../server/core/db/pglite-template.js';

const migrations = fileURLToPath(new URL('../../../migrations', import.meta.url));

/** A stand-in for the setup child: writes a data folder slowly, PG_VERSION among its files. */
const slowSetUp = (calls: string[]) => async (dir: string) => {
  calls.push(dir);
  mkdirSync(join(dir, 'base'), { recursive: true });
  writeFileSync(join(dir, 'base', 'table'), 'rows');
  await new Promise((r) => setTimeout(r, 100));
  writeFileSync(join(dir, 'PG_VERSION'), '17\n');
};

/** A scratch folder, and TMPDIR (where templates go) inside it for the test's length. */
function scratchTmpdir(t: Test) {
  const scratch = mkdtempSync(join(tmpdir(), 'fw-template-test-'));
  const before = process.env.TMPDIR;
  const templates = join(scratch, 'tmp');
  mkdirSync(templates);
  process.env.TMPDIR = templates;
  t.teardown(() => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(scratch, { recursive: true, force: true });
  });
  return { scratch, templates };
}

t.test('new data folders are copies of one template, set up once and never seen half made', async (t) => {
  const { scratch, templates } = scratchTmpdir(t);
  const calls: string[] = [];
  // Two processes starting at once on two new folders: both get a whole folder.
  await Promise.all(['a', 'b'].map((d) => copyTemplate(migrations, join(scratch, d), slowSetUp(calls), true)));
  for (const d of ['a', 'b']) {
    t.equal(readFileSync(join(scratch, d, 'PG_VERSION'), 'utf8'), '17\n', `${d} has PG_VERSION`);
    t.equal(readFileSync(join(scratch, d, 'base', 'table'), 'utf8'), 'rows', `${d} has the data files`);
  }
  const left = readdirSync(templates);
  t.equal(left.length, 1, 'one template, no half-built folder left behind');
  t.match(left[0], /^firewatch-pglite-\d+-[0-9a-f]{16}$/);

  // Cached: a third folder is copied without setting anything up.
  const setUps = calls.length;
  await copyTemplate(migrations, join(scratch, 'c'), slowSetUp(calls), false);
  t.equal(calls.length, setUps, 'the cached template is used');
  t.ok(existsSync(join(scratch, 'c', 'PG_VERSION')));

  // Another set of migrations is another template.
  const changed = join(scratch, 'migrations');
  cpSync(migrations, changed, { recursive: true, filter: (f) => !f.includes('snapshot') });
  writeFileSync(join(changed, '9999_more.sql'), 'select 1;');
  await copyTemplate(changed, join(scratch, 'd'), slowSetUp(calls), false);
  t.equal(calls.length, setUps + 1, 'a changed migration sets up a new template');
  t.equal(readdirSync(templates).length, 2);
});

t.test('a folder asked for again while it is being made waits for the same setup (the server starts it early, openDatabase awaits it)', async (t) => {
  const { scratch, templates } = scratchTmpdir(t);
  const calls: string[] = [];
  const folder = join(scratch, 'data');
  await Promise.all([prepareFolder(folder, true, slowSetUp(calls)), prepareFolder(folder, true, slowSetUp(calls))]);
  t.equal(calls.length, 1, 'one setup');
  t.equal(readFileSync(join(folder, 'base', 'table'), 'utf8'), 'rows', 'the folder is whole');
  t.equal(readdirSync(templates).length, 1, 'one template');
  // Made: asking again sets nothing up and copies nothing over it.
  writeFileSync(join(folder, 'base', 'table'), 'written since');
  await prepareFolder(folder, true, slowSetUp(calls));
  t.equal(readFileSync(join(folder, 'base', 'table'), 'utf8'), 'written since', 'a made folder is left alone');
  t.equal(calls.length, 1);
});

t.test('a setup that fails leaves no template and no copy', async (t) => {
  const { scratch, templates } = scratchTmpdir(t);
  await t.rejects(
    copyTemplate(migrations, join(scratch, 'a'), () => Promise.reject(new Error('initdb failed')), true),
    /initdb failed/,
  );
  t.same(readdirSync(templates), [], 'nothing half made stays');
  t.notOk(existsSync(join(scratch, 'a', 'PG_VERSION')));
});

t.test('a template folder of the same name made by another account is not used', { skip: process.getuid?.() !== 0 && 'needs root to chown' }, async (t) => {
  const { scratch, templates } = scratchTmpdir(t);
  await copyTemplate(migrations, join(scratch, 'a'), slowSetUp([]), false);
  const [name] = readdirSync(templates);
  writeFileSync(join(templates, name!, 'base', 'table'), 'planted');
  chownSync(join(templates, name!), 65534, 65534);
  const calls: string[] = [];
  await copyTemplate(migrations, join(scratch, 'b'), slowSetUp(calls), false);
  t.equal(calls.length, 1, 'set up afresh');
  t.equal(readFileSync(join(scratch, 'b', 'base', 'table'), 'utf8'), 'rows', 'from its own setup, not the planted folder');
  t.same(readdirSync(templates), [name], 'and nothing left beside it');
});
