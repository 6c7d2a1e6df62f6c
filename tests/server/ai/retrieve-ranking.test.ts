import { sql } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { createSubmission, indexSubmission } from '../../../server/ai/ingest.js';
import { planLimits } from '../../../server/billing/limits.js';
import { retrieve } from '../../../server/ai/retrieve.js';
import { loadConfig } from '../../../server/core/config.js';
import { withTenant } from '../../../server/core/db/tenant.js';
import { organizations, projects } from '../../../server/schema.js';
import { freshDatabase, rowsOf } from '../../helpers.js';

/** An organization with one project, and a way to upload Markdown through the real ingestion. */
async function setup(t: Test) {
  const { database } = await freshDatabase(t);
  const db = database.db;
  const [org] = await db.insert(organizations).values({ name: 'Ranking', description: 'tests', slug: 'ranking', plan: 'team_pro' }).returning();
  const orgId = org!.id;
  const [project] = await withTenant(db, { orgId, userId: null }, (tx) => tx.insert(projects).values({ organization_id: orgId, name: 'Ops' }).returning());
  const limits = planLimits(loadConfig({ LOG_LEVEL: 'silent' }), 'team_pro');
  const upload = async (fileName: string, text: string) => {
    const { id } = await withTenant(db, { orgId, userId: null }, (tx) =>
      createSubmission(tx, { orgId, userId: null, sessionId: null }, limits, {
        kind: 'file',
        projectId: project!.id,
        title: fileName,
        fileName,
        content: Buffer.from(text),
        sensitivityLevel: 'internal',
      }),
    );
    await indexSubmission(db, orgId, id);
    return id;
  };
  const ask = (query: string, limit = 5) =>
    withTenant(db, { orgId, userId: null }, (tx) => retrieve(tx, { orgId, projectId: project!.id, query, access: { kind: 'apikey' }, limit }));
  return { db, orgId, projectId: project!.id, upload, ask };
}

// Filler paragraphs so that the words tested are rare in the project, as words that matter are.
const filler = (n: number, topic: string) =>
  Array.from({ length: n }, (_, i) => `Paragraph ${i} about ${topic}: the team reviewed the dashboard and wrote notes for the weekly meeting.`).join('\n\n');

t.test('the first passages come from distinct sources', async (t) => {
  const { upload, ask } = await setup(t);
  // One long page mentions failover in every section; another mentions it once.
  const long = Array.from(
    { length: 12 },
    (_, i) => `## Step ${i}\n\nDuring failover the replica in zone ${i} is promoted and failover is logged.\n\n${filler(3, `zone ${i}`)}`,
  ).join('\n\n');
  const a = await upload('failover-guide.md', `# Guide\n\n${long}`);
  const b = await upload('network.md', `# Network\n\nA failover of the load balancer takes thirty seconds.\n\n${filler(5, 'network')}`);
  const hits = await ask('failover', 5);
  t.same(new Set(hits.slice(0, 2).map((h) => h.submission_id)), new Set([a, b]), 'both pages among the first two');
  t.equal(hits.length, 5, 'the rest of the page still fills the list');
});

t.test('a word in the title or a heading weighs more than the same word in the body', async (t) => {
  const { upload, ask } = await setup(t);
  const body = 'Renew it before it expires; the renewal takes an hour.';
  // Uploaded first, so the order of ids would put them first when nothing else differs.
  await upload('notes.md', `# Notes\n\nThe certificate matters here. ${body}\n\n${filler(4, 'notes')}`);
  const titled = await upload('certificate.md', `# Notes\n\nThe certificate matters here. ${body}\n\n${filler(4, 'notes')}`);
  await upload('misc.md', `# Misc\n\nThe keystore matters here. ${body}\n\n${filler(4, 'misc')}`);
  const headed = await upload('misc-2.md', `# Keystore\n\nThe keystore matters here. ${body}\n\n${filler(4, 'misc')}`);
  t.equal((await ask('certificate renewal'))[0]?.submission_id, titled, 'the page named after the word first');
  t.equal((await ask('keystore renewal'))[0]?.submission_id, headed, 'the passage under a heading naming the word first');
});

t.test("a title's words that every page holds do not dilute it", async (t) => {
  const { upload, ask } = await setup(t);
  // Every page names the product, as every page of git's manual says "git" and has it in its title.
  const body = 'Acme Cloud keeps a snapshot every night; a restore takes an hour.';
  // Uploaded first, so the order of ids would put it first when nothing else differs.
  const other = await upload('restore-quarterly.md', `# Notes\n\n${body}\n\n${filler(4, 'Acme Cloud')}`);
  const named = await upload('acme-cloud-restore.md', `# Notes\n\n${body}\n\n${filler(4, 'Acme Cloud')}`);
  for (const name of ['acme-cloud-billing.md', 'acme-cloud-status.md']) await upload(name, `# Notes\n\n${filler(6, 'Acme Cloud')}`);
  t.ok(other < named);
  t.equal((await ask('restore'))[0]?.submission_id, named, 'the page named for the product and the subject first');
});

t.test('the page whose opening passage names the subject ranks above one that mentions it in passing', async (t) => {
  const { upload, ask } = await setup(t);
  // Uploaded first, so the order of ids would put it first when nothing else differs.
  const passing = await upload(
    'handbook-a.md',
    `# Handbook\n\nThe release pipeline builds every tag.\n\n## Notes\n\nWe rotate the signing keys once a year.\n\n${filler(4, 'handbook')}`,
  );
  const about = await upload(
    'handbook-b.md',
    `# Handbook\n\nHow we rotate the signing keys once a year.\n\n## Notes\n\nThe release pipeline builds every tag.\n\n${filler(4, 'handbook')}`,
  );
  t.ok(passing < about);
  t.equal((await ask('rotate signing keys'))[0]?.submission_id, about, 'the page about it first');
});

t.test('words in neighbouring passages of a page count; the same words far apart in a long manual count less', async (t) => {
  const { upload, ask } = await setup(t);
  const sections = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `## Part ${i}\n\n${filler(1, `${topic} ${i}`)}`).join('\n\n');
  const disk = `## Disks\n\nThe disk was replaced on Monday.`;
  const quota = `## Limits\n\nThe quota was raised later.`;
  // Uploaded first, so the order of ids would put it first when nothing else differs.
  const apart = await upload('manual.md', `# Manual\n\n${disk}\n\n${sections('manual', 30)}\n\n${quota}`);
  const near = await upload('storage.md', `# Storage\n\n${disk}\n\n${quota}\n\n${sections('storage', 2)}`);
  t.ok(apart < near);
  t.equal((await ask('disk quota'))[0]?.submission_id, near, 'the page holding both words in neighbouring sections first');
});

t.test('words that stand together rank above the same words far apart', async (t) => {
  const { upload, ask } = await setup(t);
  const apart = await upload(
    'apart.md',
    `# Log\n\nThe disk was replaced on Monday. ${filler(1, 'other things').replace(/\n/g, ' ')} ${'Nothing else happened that day. '.repeat(4)}Later the quota was raised.\n\n${filler(3, 'log')}`,
  );
  const together = await upload('together.md', `# Log\n\nWhen the disk quota is exceeded, writes fail.\n\n${filler(3, 'log')}`);
  const hits = await ask('disk quota');
  t.ok(apart < together, 'the scattered page has the lower id');
  t.equal(hits[0]?.submission_id, together, 'the sentence holding both words first');
});

t.test('a misspelled word finds the passages of the word meant', async (t) => {
  const { upload, ask } = await setup(t);
  const id = await upload('tls.md', `# TLS\n\nRotate the certificate on the ingress every ninety days.\n\n${filler(3, 'tls')}`);
  const hits = await ask('how do I rotate the certficate');
  t.equal(hits[0]?.submission_id, id, 'found despite the typo');
  t.match(hits[0]?.text, /certificate/);
  t.same(await ask('zzqxv'), [], 'a word resembling nothing finds nothing');
});

t.test("the organization's terms that share a definition stand for each other", async (t) => {
  const { db, orgId, projectId, upload, ask } = await setup(t);
  const id = await upload('recovery.md', `# Recovery\n\nPoint-in-time recovery replays the archived WAL up to a chosen moment.\n\n${filler(3, 'recovery')}`);
  await upload('other.md', `# Other\n\n${filler(3, 'other')}`);
  t.same(await ask('how do I do a PITR'), [], 'without the definition the acronym finds nothing');
  const [pitr] = rowsOf<{ id: number }>(
    await db.execute(sql`insert into terms (organization_id, project_id, text) values (${orgId}, ${projectId}, 'PITR') returning id`),
  );
  const [long] = rowsOf<{ id: number }>(
    await db.execute(sql`insert into terms (organization_id, project_id, text) values (${orgId}, null, 'point-in-time recovery') returning id`),
  );
  await db.execute(
    sql`insert into definitions (organization_id, project_id, text, terms) values (${orgId}, ${projectId}, 'Restoring a database to a past moment.', ${JSON.stringify([Number(pitr!.id), Number(long!.id)])}::jsonb)`,
  );
  const hits = await ask('how do I do a PITR');
  t.equal(hits[0]?.submission_id, id, 'the acronym finds the passage that spells it out');
  t.same(await ask('pitrs and more'), [], 'only whole terms are expanded');
});

t.test("a term's definition lends its words to the question, weighing less than the question's own words", async (t) => {
  const { db, orgId, projectId, upload, ask } = await setup(t);
  const drill = await upload('drills.md', `# Drills\n\nOur PITR drill runs on the first Monday of the month.\n\n${filler(3, 'drills')}`);
  const replay = await upload('replay.md', `# Replay\n\nReplaying the archived WAL up to a chosen moment brings the database back.\n\n${filler(3, 'replay')}`);
  await upload('other.md', `# Other\n\n${filler(3, 'other')}`);
  t.same(
    (await ask('PITR')).map((h) => h.submission_id),
    [drill],
    'without a definition only the page naming the term',
  );
  const [pitr] = rowsOf<{ id: number }>(
    await db.execute(sql`insert into terms (organization_id, project_id, text) values (${orgId}, ${projectId}, 'PITR') returning id`),
  );
  // A definition of this term alone: no other term stands for it, its words do.
  await db.execute(
    sql`insert into definitions (organization_id, project_id, text, terms) values (${orgId}, null, 'Replaying archived WAL to a chosen moment.', ${JSON.stringify([Number(pitr!.id)])}::jsonb)`,
  );
  const hits = (await ask('PITR')).map((h) => h.submission_id);
  t.equal(hits[0], drill, "the page with the question's own word first");
  t.ok(hits.includes(replay), 'the page in the words of the definition is found too');
  t.notOk(
    (await ask('pitrs')).some((h) => h.submission_id === replay),
    'a word that is not the whole term is not expanded',
  );
});
