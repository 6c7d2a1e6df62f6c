import { sql } from 'drizzle-orm';
import t from 'tap';
import { createSubmission, indexSubmission } from '../../../server/ai/ingest.js';
import { planLimits } from '../../../server/billing/limits.js';
import type { SensitivityLevel } from '../../../server/ai/tables.js';
import { withTenant } from '../../../server/core/db/tenant.js';
import { rowsOf } from '../../helpers.js';
import { incidentApp } from '../incidents/helpers.js';

/**
 * Uploads in global search: their passages are read from the chunks themselves (English words, so
 * "rotating" finds "rotates"), an upload is found by its title once, and the sensitivity levels
 * hold for both; search_entries holds one row per indexed upload, none per passage.
 */
t.test('uploaded passages and titles are found, once, by those who may read them', async (t) => {
  const app = await incidentApp(t);
  const db = app.database.db;
  const member = await app.login('member@example.com', { role: 'Member' });
  const orgId = rowsOf<{ id: number }>(await db.execute(sql`select id from organizations where slug = 'default'`))[0]!.id;
  const userId = async (email: string) => rowsOf<{ id: number }>(await db.execute(sql`select id from users where email = ${email}`))[0]!.id;
  const upload = async (fileName: string, text: string, sensitivityLevel: SensitivityLevel, by: number) => {
    const { id } = await withTenant(db, { orgId, userId: null }, (tx) =>
      createSubmission(tx, { orgId, userId: by, sessionId: null }, planLimits(app.config, 'free'), {
        kind: 'file',
        projectId: app.projectId,
        title: fileName,
        fileName,
        content: Buffer.from(text),
        sensitivityLevel,
      }),
    );
    await indexSubmission(db, orgId, id);
    return id;
  };
  const search = async (q: string, token = app.token) => {
    const res = await app.api('GET', `/search?q=${encodeURIComponent(q)}`, undefined, token);
    t.equal(res.status, 200, q);
    return res.body as { total: number; results: { type: string; id: string; title: string; headline: string }[] };
  };
  const chunkIds = async (submissionId: number) =>
    rowsOf<{ id: string; text: string }>(await db.execute(sql`select id::text as id, text from chunks where submission_id = ${submissionId} order by ordinal`));

  const commander = await userId('commander@example.com');
  const vault = await upload(
    'vault-handbook.md',
    `# Vault\n\nThe quartermaster rotates the vault credentials every Tuesday.\n\n## Later\n\n${'Unrelated filler about lunch. '.repeat(60)}\n\nThe ocelot dashboard shows the vault's seal status.\n`,
    'internal',
    commander,
  );
  const passages = await chunkIds(vault);
  t.ok(passages.length >= 2, 'the upload has several passages');

  const rotating = await search('rotating credentials');
  t.same(
    rotating.results.map((r) => [r.type, r.title]),
    [['FileSubmissions', 'vault-handbook.md']],
    'English word forms find the passage',
  );
  t.equal(rotating.results[0]!.id, passages.find((p) => p.text.includes('rotates'))!.id, 'the result is the passage, which the chat opens');
  t.match(rotating.results[0]!.headline, /«rotates» the vault «credentials»/);

  const ocelot = await search('ocelot');
  t.equal(ocelot.results[0]!.id, passages.find((p) => p.text.includes('ocelot'))!.id, 'a later passage');

  const byTitle = await search('handbook');
  t.same(
    byTitle.results.map((r) => [r.type, r.id]),
    [['FileSubmissions', passages[0]!.id]],
    'found by its title once, opening at its first passage',
  );
  const both = await search('vault');
  t.equal(new Set(both.results.map((r) => r.id)).size, both.results.length, 'a title found with its first passage is one result');
  t.equal((await search('the')).total, 0, 'stop words alone find no passage');

  // A restricted upload: admins and its uploader only, by its text or by its title.
  const memberId = await userId('member@example.com');
  const secret = await upload('salaries-capybara.txt', 'The pangolin bonus table for the year.', 'restricted', commander);
  t.equal((await search('pangolin')).results.length, 1, 'the owner finds the passage');
  t.equal((await search('pangolin', member)).total, 0, 'a member does not');
  t.equal((await search('capybara', member)).total, 0, 'not by its title either');
  const own = await upload('member-notes.txt', 'The narwhal migration checklist.', 'restricted', memberId);
  t.same(
    (await search('narwhal', member)).results.map((r) => r.title),
    ['member-notes.txt'],
    'the member finds their own restricted upload',
  );

  const entries = rowsOf<{ source: string; n: number }>(
    await db.execute(sql`select source, count(*)::int as n from search_entries where source in ('chunks', 'submissions') group by source`),
  );
  t.same(entries, [{ source: 'submissions', n: 3 }], 'one search entry per upload, none per passage');

  // Deleting an upload takes it out of search, passages and title.
  await db.execute(sql`delete from submissions where id in (${secret}, ${own})`);
  t.equal((await search('pangolin')).total, 0);
  t.equal((await search('capybara')).total, 0);
});
