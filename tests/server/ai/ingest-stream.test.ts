import { createHash } from 'node:crypto';
import t from 'tap';
import { createSubmission, indexSubmission, storedContent } from '../../../server/ai/ingest.js';
import { planLimits } from '../../../server/billing/limits.js';
import { withTenant } from '../../../server/core/db/tenant.js';
import { rowsOf, testApp } from '../../helpers.js';

const WINDOW = 1024 * 1024;

t.test('a file read in windows loses nothing at their edges: split characters, headings and ordinals carry over', async (t) => {
  const { request, login, database, config } = await testApp(t);
  const token = await login('owner@example.com');
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Windows' } })).body as { id: number };
  const orgId = 1;
  const limits = { ...planLimits(config, 'free'), max_file_bytes: 10 * 1024 * 1024 };
  const para = 'Filler words about nothing in particular fill this paragraph.\n\n';
  const head = `# Kiosk\n\n${para.repeat(Math.floor((WINDOW - 200) / para.length))}`;
  // 'é' is two bytes in UTF-8: the padding puts its first byte last in the first window.
  const lead = 'The password is Caf';
  const pad = 'q'.repeat(WINDOW - 1 - Buffer.byteLength(head) - Buffer.byteLength(`\n\n${lead}`));
  const text = `${head}${pad}\n\n${lead}é crème for the kiosk.\n\n## Night shift\n\n${para.repeat(2000)}The night shift unlocks the ocelot gate.\n`;
  const bytes = Buffer.from(text);
  t.equal(bytes[WINDOW - 1], 0xc3, 'the character straddles the first window edge');
  t.ok(bytes.length > WINDOW, 'more than one window');

  const { id } = await withTenant(database.db, { orgId, userId: null }, (tx) =>
    createSubmission(tx, { orgId, userId: 1, sessionId: null }, limits, {
      kind: 'file',
      projectId: project.id,
      title: 'kiosk.md',
      fileName: 'kiosk.md',
      content: bytes,
      sensitivityLevel: 'internal',
    }),
  );
  await indexSubmission(database.db, orgId, id);
  const q = async (sql: string) => rowsOf<Record<string, unknown>>(await database.db.execute(sql));
  // Stored and read back in parts of a megabyte (no whole-file copy in memory).
  const hash = createHash('md5');
  for await (const part of storedContent(database.db, orgId, id)) hash.update(part);
  const [stored] = await q(`select size_bytes from submissions where id = ${id}`);
  t.same(
    { md5: hash.digest('hex'), size_bytes: Number(stored!.size_bytes) },
    { md5: createHash('md5').update(bytes).digest('hex'), size_bytes: bytes.length },
    'the stored file is the uploaded one, byte for byte',
  );
  const [sub] = await q(`select status, error, chunk_count from submissions where id = ${id}`);
  t.match(sub, { status: 'indexed', error: null });
  const [cafe] = await q(`select text, place->>'heading' as heading from chunks where submission_id = ${id} and text like '%crème%'`);
  t.match(
    cafe,
    { text: /The password is Café crème for the kiosk\./, heading: 'Kiosk' },
    'the split character is whole and the heading carried into the next window',
  );
  const [night] = await q(`select place->>'heading' as heading from chunks where submission_id = ${id} and text like '%ocelot gate%'`);
  t.match(night, { heading: 'Kiosk › Night shift' }, 'the heading path holds in the last window');
  const [ords] = await q(`select count(*)::int as n, max(ordinal) as hi, count(distinct ordinal)::int as d from chunks where submission_id = ${id}`);
  t.same([Number(ords!.hi), Number(ords!.d)], [Number(ords!.n) - 1, Number(ords!.n)], 'ordinals run on across windows');
  t.equal(Number(sub!.chunk_count), Number(ords!.n));
  const none = await q(`select count(*)::int as n from chunks where submission_id = ${id} and text like '%' || chr(65533) || '%'`);
  t.equal(Number(none[0]!.n), 0, 'no replacement characters');
});
