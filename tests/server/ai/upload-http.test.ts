import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import { PassThrough } from 'node:stream';
import { indexSubmission, storedContent, UPLOAD_PART_BYTES } from '../../../server/ai/ingest.js';
import type { Db } from '../../../server/core/db/client.js';
import { nulPath } from '../../../server/core/input.js';
import { rowsOf, testApp } from '../../helpers.js';

const MB = 1024 * 1024;
const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex');
/** A stored file's digest, read back as the indexer reads it: a part at a time. */
async function storedMd5(db: Db, submissionId: number) {
  const hash = createHash('md5');
  for await (const part of storedContent(db, 1, submissionId)) hash.update(part);
  return hash.digest('hex');
}

// A request body limit far below the files: a route that buffered the body would refuse them (413).
const env = { BODY_LIMIT: String(64 * 1024), AI_LIMITS: JSON.stringify({ free: { max_file_bytes: 3 * MB, files_per_project: 50, messages_per_day: 100 } }) };

t.test('an HTTP upload larger than the body limit and than one stored part is streamed whole into storage and indexed', async (t) => {
  const { request, login, database, config } = await testApp(t, env);
  t.ok(config.BODY_LIMIT < 2.5 * MB, 'the file is over the body limit');
  const token = await login('owner@example.com');
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Manuals' } })).body as { id: number };
  t.ok(project.id, 'JSON bodies elsewhere in the API are still parsed');

  const para = 'Routine paragraph of the operations manual with nothing remarkable in it at all.\n\n';
  const text = `# Manual\n\n${para.repeat(Math.ceil((2.5 * MB) / para.length))}## Last page\n\nThe okapi relay restarts with the quillfeather command.\n`;
  const bytes = Buffer.from(text);
  t.ok(bytes.length > 2 * UPLOAD_PART_BYTES, 'more than two stored parts');

  const res = await request({
    method: 'POST',
    url: `/api/v1/default/submissions/upload?project_id=${project.id}&fileName=manual.md&buildIndex=false`,
    token,
    headers: { 'content-type': 'application/octet-stream' },
    payload: bytes,
  });
  t.equal(res.status, 201, JSON.stringify(res.body).slice(0, 300));
  const body = res.body as { submission_id: number; size_bytes: number; submission_status: string };
  t.match(body, { size_bytes: bytes.length, submission_status: 'uploaded', fileName: 'manual.md' });

  const q = async (s: string) => rowsOf<Record<string, unknown>>(await database.db.execute(s));
  const [stored] = await q(`select file_name from submissions where id = ${body.submission_id}`);
  t.same({ ...stored, md5: await storedMd5(database.db, body.submission_id) }, { file_name: 'manual.md', md5: md5(bytes) }, 'stored byte for byte');

  await indexSubmission(database.db, 1, body.submission_id);
  const list = await request({ method: 'GET', url: `/api/v1/default/submissions?project_id=${project.id}`, token });
  t.match((list.body as { items: unknown[] }).items, [{ id: body.submission_id, status: 'indexed' }]);
  const [last] = await q(`select place->>'heading' as heading from chunks where submission_id = ${body.submission_id} and text like '%quillfeather%'`);
  t.same(last, { heading: 'Manual › Last page' }, 'the end of the file is indexed under its heading');
});

t.test('an HTTP upload over the plan size, of an unknown kind, empty or to another project is refused and nothing is stored', async (t) => {
  const { request, login, database } = await testApp(t, env);
  const token = await login('owner@example.com');
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Refusals' } })).body as { id: number };
  const url = (q: string) => `/api/v1/default/submissions/upload?project_id=${project.id}&${q}`;
  const big = Buffer.alloc(3 * MB + 10, 'a');

  const tooBig = await request({ method: 'POST', url: url('fileName=big.txt'), token, headers: { 'content-type': 'text/plain' }, payload: big });
  t.equal(tooBig.status, 413);
  t.match(tooBig.body, { detail: [{ type: 'too_large', msg: /File too large: .*your plan allows 3(\.0)? MB/, loc: ['body', 'fileContent'] }] });

  const exe = await request({
    method: 'POST',
    url: url('fileName=tool.exe'),
    token,
    headers: { 'content-type': 'application/octet-stream' },
    payload: Buffer.from('MZ'),
  });
  t.equal(exe.status, 422);
  t.match(exe.body, { detail: [{ msg: /Unsupported file type 'tool.exe'/, loc: ['body', 'fileName'] }] });

  const form = await request({
    method: 'POST',
    url: url('fileName=a.txt'),
    token,
    headers: { 'content-type': 'multipart/form-data; boundary=zz' },
    payload: '--zz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello\r\n--zz--\r\n',
  });
  t.equal(form.status, 415, 'a multipart form is refused rather than stored with its framing');
  t.match(form.body, { detail: [{ msg: /not as a multipart form/ }] });

  const empty = await request({ method: 'POST', url: url('fileName=empty.txt'), token, headers: { 'content-type': 'text/plain' }, payload: '' });
  t.equal(empty.status, 422);
  t.match(empty.body, { detail: [{ msg: 'The file is empty.' }] });

  const missing = await request({
    method: 'POST',
    url: `/api/v1/default/submissions/upload?project_id=999999&fileName=a.txt`,
    token,
    headers: { 'content-type': 'text/plain' },
    payload: 'hello',
  });
  t.equal(missing.status, 422);
  t.match(missing.body, { detail: [{ msg: "Project '999999' could not be found." }] });

  const noName = await request({
    method: 'POST',
    url: `/api/v1/default/submissions/upload?project_id=${project.id}`,
    token,
    headers: { 'content-type': 'text/plain' },
    payload: 'x',
  });
  t.equal(noName.status, 422, 'the file name is required');
  t.ok(Array.isArray((noName.body as { detail: unknown[] }).detail));

  const anonymous = await request({ method: 'POST', url: url('fileName=a.txt'), headers: { 'content-type': 'text/plain' }, payload: 'hello' });
  t.equal(anonymous.status, 401, 'a signed-in caller only');

  const [n] = rowsOf<{ n: number }>(await database.db.execute(`select count(*)::int as n from submissions`));
  t.equal(Number(n!.n), 0, 'no submission was stored');
});

t.test('an upload over a real HTTP connection is stored: the streamed body is not walked like parsed JSON', async (t) => {
  // The NUL check walks parsed bodies; a stream's references lead back to itself (a walk never ends).
  const stream = new PassThrough();
  Object.assign(stream, { note: 'nul \u0000 inside' });
  t.equal(nulPath({ body: stream }), undefined, 'a stream is not walked');
  t.same(nulPath({ body: { a: ['x', 'nul \u0000'] } }), ['body', 'a', 1], 'parsed JSON still is');

  const { app, request, login } = await testApp(t, env);
  const token = await login('owner@example.com');
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Sockets' } })).body as { id: number };
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const bytes = Buffer.from('# Notes\n\nThe narwhal gateway restarts with the tidepool command.\n');
  const res = await fetch(`${address}/api/v1/default/submissions/upload?project_id=${project.id}&fileName=notes.md&buildIndex=false`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'text/markdown' },
    body: bytes,
    signal: AbortSignal.timeout(60_000),
  });
  t.equal(res.status, 201);
  t.match(await res.json(), { size_bytes: bytes.length, fileName: 'notes.md' });
});

t.test('a 5 MB upload over a real connection round-trips byte for byte and is stored a part at a time', async (t) => {
  const limits = { AI_LIMITS: JSON.stringify({ free: { max_file_bytes: 6 * MB, files_per_project: 50, messages_per_day: 100 } }) };
  const { app, request, login, database } = await testApp(t, { ...env, ...limits });
  const token = await login('owner@example.com');
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Large files' } })).body as { id: number };
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  // Every byte value, in no order a compressor or a text decoder would smooth over.
  const bytes = randomBytes(5 * MB + 12_345);
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, (at += 64 * 1024)));
    },
  });
  const res = await fetch(`${address}/api/v1/default/submissions/upload?project_id=${project.id}&fileName=capture.txt&buildIndex=false`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body,
    duplex: 'half',
    signal: AbortSignal.timeout(120_000),
  } as RequestInit);
  t.equal(res.status, 201);
  const answer = (await res.json()) as { submission_id: number; size_bytes: number };
  t.equal(answer.size_bytes, bytes.length, 'the answer gives the whole size');

  const sizes: number[] = [];
  const hash = createHash('md5');
  for await (const part of storedContent(database.db, 1, answer.submission_id)) {
    sizes.push(part.length);
    hash.update(part);
  }
  t.equal(hash.digest('hex'), md5(bytes), 'read back byte for byte');
  // A part is cut once it reaches UPLOAD_PART_BYTES, so it holds at most one network read more.
  t.ok(sizes.length >= 5, `stored in ${sizes.length} parts`);
  t.ok(Math.max(...sizes) < UPLOAD_PART_BYTES + 64 * 1024, `no part over a megabyte and a read: ${Math.max(...sizes)} bytes`);
  const [row] = rowsOf<{ size_bytes: number }>(await database.db.execute(`select size_bytes from submissions where id = ${answer.submission_id}`));
  t.equal(Number(row!.size_bytes), bytes.length, 'and the listed size is the whole file');
});
