import t from 'tap';
import { createSubmission, indexSubmission, submissionEvents, type SubmissionStatusEvent, type SubmitInput } from '../../../server/ai/ingest.js';
import { planLimits } from '../../../server/billing/limits.js';
import { retrieve, type Access } from '../../../server/ai/retrieve.js';
import { withTenant } from '../../../server/core/db/tenant.js';
import { rowsOf, testApp } from '../../helpers.js';
import { makeDocx, makePdf } from './fixtures.js';

t.test('every file kind is indexed and retrieved with its place', async (t) => {
  const { request, login, database, config } = await testApp(t);
  const token = await login('owner@example.com');
  const project = await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } });
  const [org] = rowsOf<{ id: number }>(await database.db.execute(`select id from organizations where slug = 'default'`));
  const orgId = org!.id;
  const who = { orgId, userId: 1, sessionId: null };
  const access: Access = { kind: 'user', userId: 1, role: 'Owner' };
  const limits = planLimits(config, 'free');

  const submit = async (input: Partial<SubmitInput> & { content: Buffer }) => {
    const { id } = await withTenant(database.db, { orgId, userId: null }, (tx) =>
      createSubmission(tx, who, limits, {
        kind: 'file',
        projectId: project.body.id,
        title: input.fileName ?? 'text',
        sensitivityLevel: 'internal',
        ...input,
      } as SubmitInput),
    );
    await indexSubmission(database.db, orgId, id);
    const [row] = await withTenant(database.db, { orgId, userId: null }, (tx) =>
      tx.execute(`select status, error, chunk_count from submissions where id = ${id}`),
    ).then((r) => rowsOf<{ status: string; error: string | null; chunk_count: number }>(r));
    t.equal(row!.status, 'indexed', `${input.fileName ?? 'text'} indexed ${row!.error ?? ''}`);
    return id;
  };
  const ask = (query: string) =>
    withTenant(database.db, { orgId, userId: 1 }, (tx) => retrieve(tx, { orgId, projectId: project.body.id, query, access, limit: 3 }));

  await submit({
    fileName: 'notes.txt',
    fileType: 'text/plain',
    content: Buffer.from(`${'A first paragraph about nothing much. '.repeat(30)}\n\nThe quartermaster rotates the vault credentials every Tuesday.\n`),
  });
  let hits = await ask('who rotates the vault credentials?');
  t.match(hits[0], { title: 'notes.txt', place: { line: 3 } }, 'plain text keeps the line');
  t.match(hits[0]!.headline, /«vault»/, 'headline marks the matched words');

  await submit({
    fileName: 'runbook.md',
    content: Buffer.from(
      '# Payments\n\nIntro.\n\n## Restart the gateway\n\nDrain the zephyr queue before restarting the gateway pods.\n\n```\nkubectl rollout restart\n```\n',
    ),
  });
  hits = await ask('zephyr queue');
  t.match(hits[0], { title: 'runbook.md', place: { heading: 'Payments › Restart the gateway' } }, 'markdown keeps the heading path');

  await submit({
    fileName: 'page.html',
    content: Buffer.from(
      '<html><head><style>.x{}</style><script>var hidden = "marmalade";</script></head><body><h1>Network</h1><h2>Firewall</h2><p>Port 8443 is opened for the lantern proxy.</p></body></html>',
    ),
  });
  hits = await ask('lantern proxy port');
  t.match(hits[0], { title: 'page.html', place: { heading: 'Network › Firewall' } }, 'html keeps the heading path');
  t.same(await ask('marmalade'), [], 'script text is not indexed');

  const pdf = await makePdf([['Cover page of the handbook.'], ['Escalation policy: page the albatross on-call after 15 minutes.']]);
  await submit({ fileName: 'handbook.pdf', fileType: 'application/pdf', content: pdf });
  hits = await ask('albatross escalation');
  t.match(hits[0], { title: 'handbook.pdf', place: { page: 2 } }, 'pdf keeps the page');

  const docx = await makeDocx([
    { heading: 1, text: 'Onboarding' },
    { text: 'Welcome.' },
    { heading: 2, text: 'Laptops' },
    { text: 'Laptops are imaged with the pelican profile.' },
  ]);
  await submit({ fileName: 'guide.docx', content: docx });
  hits = await ask('pelican profile');
  t.match(hits[0], { title: 'guide.docx', place: { heading: 'Onboarding › Laptops' } }, 'docx keeps the heading path');

  await submit({
    fileName: 'hosts.csv',
    content: Buffer.from('host,owner,notes\napp-01,web,"serves, the ""shop"""\ndb-07.prod.internal,dba,primary walrus database\n'),
  });
  hits = await ask('db-07.prod.internal');
  t.match(hits[0], { title: 'hosts.csv', place: { row: 2 } }, 'csv keeps the row; host names match');
  t.match(hits[0]!.text, 'host: db-07.prod.internal; owner: dba', 'csv rows keep their headers');

  await submit({ fileName: 'config.json', content: Buffer.from(JSON.stringify({ alerts: { threshold: 5, channel: 'ocelot-alerts' }, owners: ['a'] })) });
  hits = await ask('ocelot-alerts channel');
  t.match(hits[0], { title: 'config.json', place: { path: 'alerts' } }, 'json keeps the path');

  await submit({
    fileName: 'talk.vtt',
    content: Buffer.from(
      'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nWelcome to the talk.\n\n01:02:03.500 --> 01:02:07.000\nNow the <b>heron</b> migration plan.\n',
    ),
    kind: 'video_transcript',
  });
  hits = await ask('heron migration');
  t.match(hits[0], { title: 'talk.vtt', place: { start: 3723.5 } }, 'vtt keeps the cue time');

  await submit({
    fileName: 'talk.srt',
    content: Buffer.from('1\n00:00:01,000 --> 00:00:02,000\nHello.\n\n2\n00:00:10,250 --> 00:00:12,000\nThe kestrel rollout starts Monday.\n'),
    kind: 'video_transcript',
  });
  hits = await ask('kestrel rollout');
  t.match(hits[0], { title: 'talk.srt', place: { start: 1 } }, 'srt cues merge and keep the first start time');
  t.match(hits[0]!.place, { end: 12 });

  await submit({ kind: 'text', title: 'Pasted note', content: Buffer.from('Error ERR-4521 means the badger cache is full.') });
  hits = await ask('what is ERR-4521?');
  t.match(hits[0], { title: 'Pasted note' }, 'codes match through the trigram path');
});

t.test('unreadable files fail with the reason; limits and sensitivity apply', async (t) => {
  const { request, login, database, config } = await testApp(t, { AI_LIMITS: JSON.stringify({ free: { files_per_project: 3, max_file_bytes: 1000 } }) });
  const token = await login('owner@example.com');
  const project = await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } });
  await login('uploader@example.com', { role: 'Member' });
  await login('other@example.com', { role: 'Member' });
  const ids = Object.fromEntries(rowsOf<{ id: number; email: string }>(await database.db.execute('select id, email from users')).map((u) => [u.email, u.id]));
  const orgId = 1;
  const limits = planLimits(config, 'free');
  const run = <T>(fn: (tx: never) => Promise<T>) => withTenant(database.db, { orgId, userId: null }, fn as never) as Promise<T>;
  const base = { kind: 'file' as const, projectId: project.body.id, sensitivityLevel: 'internal' as const };
  const who = { orgId, userId: ids['uploader@example.com']!, sessionId: null };

  const bad = await run((tx) => createSubmission(tx, who, limits, { ...base, title: 'x.pdf', fileName: 'x.pdf', content: Buffer.from('not a pdf at all') }));
  await indexSubmission(database.db, orgId, bad.id);
  const [failed] = rowsOf(
    await run((tx: never) => (tx as { execute(s: string): Promise<unknown> }).execute(`select status, error from submissions where id = ${bad.id}`)),
  );
  t.equal(failed!.status, 'failed');
  t.match(failed!.error, /The PDF could not be read/);

  await t.rejects(
    run((tx) => createSubmission(tx, who, limits, { ...base, title: 'x.exe', fileName: 'x.exe', content: Buffer.from('MZ') })),
    /Unsupported file type 'x.exe'/,
  );
  await t.rejects(
    run((tx) => createSubmission(tx, who, limits, { ...base, title: 'big.txt', fileName: 'big.txt', content: Buffer.alloc(2000, 97) })),
    /File too large: 2 KB; your plan allows 1 KB per file/,
  );
  await t.rejects(
    run((tx) => createSubmission(tx, who, limits, { ...base, projectId: 9999, title: 'a.txt', fileName: 'a.txt', content: Buffer.from('a') })),
    /Project '9999' could not be found/,
  );

  const pub = await run((tx) =>
    createSubmission(tx, who, limits, {
      ...base,
      title: 'public.txt',
      fileName: 'public.txt',
      sensitivityLevel: 'public',
      content: Buffer.from('The osprey bridge opens at noon.'),
    }),
  );
  const restricted = await run((tx) =>
    createSubmission(tx, who, limits, {
      ...base,
      title: 'secret.txt',
      fileName: 'secret.txt',
      sensitivityLevel: 'restricted',
      content: Buffer.from('The osprey bridge code is 7781.'),
    }),
  );
  await indexSubmission(database.db, orgId, pub.id);
  await indexSubmission(database.db, orgId, restricted.id);
  await t.rejects(
    run((tx) => createSubmission(tx, who, limits, { ...base, title: 'c.txt', fileName: 'c.txt', content: Buffer.from('c') })),
    /File limit reached: your plan allows 3 files per project/,
  );

  const titles = async (access: Access) =>
    (await withTenant(database.db, { orgId, userId: null }, (tx) => retrieve(tx, { orgId, projectId: project.body.id, query: 'osprey bridge', access })))
      .map((p) => p.title)
      .sort();
  t.same(await titles({ kind: 'anonymous', sessionId: 1 }), ['public.txt'], 'anonymous visitors see public material only');
  t.same(await titles({ kind: 'user', userId: ids['other@example.com']!, role: 'Member' }), ['public.txt'], 'members do not see restricted material of others');
  t.same(
    await titles({ kind: 'user', userId: ids['uploader@example.com']!, role: 'Member' }),
    ['public.txt', 'secret.txt'],
    'the uploader sees their restricted material',
  );
  t.same(await titles({ kind: 'user', userId: ids['other@example.com']!, role: 'Admin' }), ['public.txt', 'secret.txt'], 'admins see restricted material');
});

t.test('a large file is written in parallel batches; lexeme counts follow indexing, re-indexing and deletion', async (t) => {
  const { request, login, database, config } = await testApp(t);
  const token = await login('owner@example.com');
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Big' } })).body as { id: number };
  const orgId = 1;
  const q = async (text: string) => rowsOf(await database.db.execute(text));
  // About 1.2 MB of Markdown: several batches, so the first, middle (parallel) and last ones all run.
  const sections = Array.from(
    { length: 1500 },
    (_, i) =>
      `## Section ${i}\n\nThe service unit-${i} keeps its ledger in zone ${i % 7}. ${'Routine words fill the paragraph so it has some weight. '.repeat(12)}`,
  );
  const big = Buffer.from(`# Handbook\n\n${sections.join('\n\n')}\n\nThe final line names the pangolin archive.\n`);
  const limits = { ...planLimits(config, 'free'), max_file_bytes: 10 * 1024 * 1024 };
  const { id } = await withTenant(database.db, { orgId, userId: null }, (tx) =>
    createSubmission(tx, { orgId, userId: 1, sessionId: null }, limits, {
      kind: 'file',
      projectId: project.id,
      title: 'big.md',
      fileName: 'big.md',
      content: big,
      sensitivityLevel: 'internal',
    }),
  );
  // Counts kept incrementally must equal a recount over the stored chunks.
  const lexemesMatch = async (label: string) => {
    const diff = await q(`select coalesce(a.lexeme, b.word) as lexeme, a.ndoc as kept, b.ndoc as actual
      from (select lexeme, ndoc from chunk_lexemes where project_id = ${project.id}) a
      full join ts_stat('select tsv from chunks where project_id = ${project.id}') b on b.word = a.lexeme
      where a.ndoc is distinct from b.ndoc limit 5`);
    t.same(diff, [], `${label}: lexeme counts match the chunks`);
  };

  const progress: number[] = [];
  const onStatus = (e: SubmissionStatusEvent) => void (e.submission_id === id && e.status === 'indexing' && progress.push(e.progress));
  submissionEvents.on('status', onStatus);
  await indexSubmission(database.db, orgId, id);
  submissionEvents.off('status', onStatus);
  t.ok(progress.filter((p) => p > 10 && p < 100).length >= 3, `progress is reported batch by batch (${progress.join(', ')})`);
  const [sub] = await q(`select status, progress, chunk_count from submissions where id = ${id}`);
  t.match(sub, { status: 'indexed', progress: 100 });
  const [stored] = await q(
    `select count(*)::int as n, min(ordinal) as lo, max(ordinal) as hi, count(distinct ordinal)::int as distinct_ordinals from chunks where submission_id = ${id}`,
  );
  t.ok(Number(stored!.n) >= 1500, `a chunk per section at least (${stored!.n})`);
  t.same(
    [Number(stored!.lo), Number(stored!.hi), Number(stored!.distinct_ordinals)],
    [0, Number(stored!.n) - 1, Number(stored!.n)],
    'ordinals run 0..n-1 without gaps or repeats',
  );
  t.equal(Number(sub!.chunk_count), Number(stored!.n), 'chunk_count is the number stored');
  await lexemesMatch('indexed');
  const hits = await withTenant(database.db, { orgId, userId: 1 }, (tx) =>
    retrieve(tx, { orgId, projectId: project.id, query: 'pangolin archive', access: { kind: 'user', userId: 1, role: 'Owner' }, limit: 1 }),
  );
  t.match(hits[0]?.text, /pangolin archive/, 'the last batch is searchable');

  // Re-indexing replaces the chunks and their counts instead of adding to them.
  await indexSubmission(database.db, orgId, id);
  const [again] = await q(`select count(*)::int as n from chunks where submission_id = ${id}`);
  t.equal(Number(again!.n), Number(stored!.n), 're-indexing leaves one copy of each chunk');
  await lexemesMatch('re-indexed');

  const small = await withTenant(database.db, { orgId, userId: null }, (tx) =>
    createSubmission(tx, { orgId, userId: 1, sessionId: null }, limits, {
      kind: 'file',
      projectId: project.id,
      title: 'a.txt',
      fileName: 'a.txt',
      content: Buffer.from('The pangolin archive is in zone 3.'),
      sensitivityLevel: 'internal',
    }),
  );
  await indexSubmission(database.db, orgId, small.id);
  await lexemesMatch('two submissions');

  // What a run of the large file that stopped between batches (a crash) leaves: its chunks stored,
  // not yet in the counts, which hold the small file's alone. Running it again must not take them off.
  await q(`update chunk_lexemes l set ndoc = l.ndoc - c.n
    from (select lexeme, count(*)::int as n from chunks, unnest(tsvector_to_array(tsv)) as lexeme where submission_id = ${id} group by lexeme) c
    where l.project_id = ${project.id} and l.lexeme = c.lexeme`);
  await q(`delete from chunk_lexemes where project_id = ${project.id} and ndoc <= 0`);
  await q(`update submissions set status = 'indexing', lexemes_counted = false where id = ${id}`);
  await indexSubmission(database.db, orgId, id);
  await lexemesMatch('indexed again after a run that stopped midway');
  t.equal((await request({ method: 'DELETE', url: `/api/v1/default/submissions/${id}`, token })).status, 204);
  await lexemesMatch('after deleting the large one');
  const [pangolin] = await q(`select ndoc from chunk_lexemes where project_id = ${project.id} and lexeme = 'pangolin'`);
  t.equal(Number(pangolin!.ndoc), 1, 'words of the deleted file count only where they remain');
  const [unit] = await q(`select count(*)::int as n from chunk_lexemes where project_id = ${project.id} and lexeme = 'unit-1499'`);
  t.equal(Number(unit!.n), 0, 'words only the deleted file had are gone');
});
