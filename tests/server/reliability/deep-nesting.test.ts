import { request as httpRequest } from 'node:http';
import t from 'tap';
import { nulPath } from '../../../server/core/input.js';
import { JsonScan, MAX_JSON_DEPTH, scanJson } from '../../../server/core/json-limits.js';
import { SocketClient } from '../ai/socket-client.js';
import { signalApp } from '../signals/helpers.js';

// Review F21: a JSON body nested 50,000 deep blocked the server for 20 s. Bodies and socket frames
// nested deeper than MAX_JSON_DEPTH are refused before they are parsed, in the API's error shape.

const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const LEVELS = [10_000, 50_000, 500_000];

const refusedForDepth = (res: { status: number; body: any }) => ({
  status: res.status,
  type: res.body?.detail?.[0]?.type,
  loc: res.body?.detail?.[0]?.loc,
  names: new RegExp(`nested deeper than ${MAX_JSON_DEPTH} levels`).test(res.body?.detail?.[0]?.msg ?? ''),
});
const DEPTH_REFUSAL = { status: 400, type: 'json_too_deep', loc: ['body'], names: true };

t.test('the scan counts brackets outside strings only, and finds the \\u0000 escape across chunks', async (t) => {
  t.equal(scanJson(deep(MAX_JSON_DEPTH)).tooDeep, false, `${MAX_JSON_DEPTH} levels are read`);
  t.equal(scanJson(deep(MAX_JSON_DEPTH + 1)).tooDeep, true, `${MAX_JSON_DEPTH + 1} levels are refused`);
  t.equal(scanJson(JSON.stringify({ a: '['.repeat(10_000) })).tooDeep, false, 'brackets inside a string do not nest');
  t.equal(scanJson(JSON.stringify({ a: 'say "[[[["', b: '\\' })).tooDeep, false, 'escaped quotes and backslashes keep the string state');
  t.equal(scanJson(JSON.stringify({ a: 'x\u0000' })).nul, true, 'a NUL escape');
  t.equal(scanJson(JSON.stringify({ a: 'x\\u0000' })).nul, false, 'a backslash followed by the text u0000 is no NUL');
  t.equal(scanJson(JSON.stringify({ a: '\u0001\u00e9' })).nul, false, 'other escapes');
  const split = new JsonScan();
  const text = Buffer.from(JSON.stringify({ key: 'ab\u0000' }));
  for (const byte of text) split.push(Uint8Array.of(byte));
  t.equal(split.nul, true, 'found when the text arrives a byte at a time');
});

t.test('the NUL walk finds a NUL at the bottom of 100,000 levels, with its whole path', async (t) => {
  let value: unknown = { k: 'a\u0000' };
  for (let i = 0; i < 100_000; i++) value = [value];
  const loc = nulPath(value, ['body'])!;
  t.equal(loc.length, 100_002, 'body, 100,000 indexes and the key');
  t.same([loc[0], loc[1], loc.at(-2), loc.at(-1)], ['body', 0, 0, 'k']);
  t.same(nulPath({ a: [1, { 'b\u0000': 2 }] }, ['body']), ['body', 'a', 1, 'b\u0000'], 'a key');
  t.equal(nulPath({ a: [1, { b: 'ok' }] }), undefined, 'none');
});

t.test('deep bodies on a public route and the ingest routes are 400 in the detail shape; nothing is stored', async (t) => {
  const s = await signalApp(t);
  const post = (url: string, payload: string, key?: string) =>
    s.request({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) } });
  for (const levels of LEVELS) {
    const login = await post('/api/v1/default/auth/postoauthlogin', `{"token":"x","nested":${deep(levels)}}`);
    t.same(refusedForDepth(login), DEPTH_REFUSAL, `postoauthlogin, ${levels} levels`);
    const native = await post('/api/v1/default/signals/instances', `{"raw":{"a":${deep(levels)}}}`, s.key);
    t.same(refusedForDepth(native), DEPTH_REFUSAL, `signals/instances, ${levels} levels`);
    const grafana = await post('/api/v1/default/signals/grafana', `{"status":"firing","alerts":${deep(levels)}}`, s.key);
    t.same(refusedForDepth(grafana), DEPTH_REFUSAL, `signals/grafana (its own parser), ${levels} levels`);
  }
  await s.drain();
  t.same(await s.counts(), { instances: 0, cases: 0, entities: 0, groups: 0 }, 'no signal was stored');

  let raw: unknown = { ok: true };
  for (let i = 2; i < MAX_JSON_DEPTH; i++) raw = { n: raw };
  const atLimit = await s.ingest('/signals/instances', { raw }, { key: s.key });
  t.equal(atLimit.status, 202, `a signal nested ${MAX_JSON_DEPTH} levels (the body's own object included) is accepted`);
  const nul = await s.ingest('/signals/instances', { raw: { a: [{ b: 'x\u0000' }] } }, { key: s.key });
  t.same({ status: nul.status, loc: nul.body.detail?.[0]?.loc }, { status: 422, loc: ['body', 'raw', 'a', 0, 'b'] }, 'a NUL is still found');
});

t.test('a deep socket frame is an error frame, and the socket goes on answering', async (t) => {
  const s = await signalApp(t);
  await s.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (s.app.server.address() as { port: number }).port;
  const client = await SocketClient.open(`ws://127.0.0.1:${port}/api/v1/default/ws?ticket=${await s.ticket(s.token)}`);
  t.teardown(() => client.close());
  for (const levels of [10_000, 50_000]) {
    client.ws.send(`{"type":"fetch_submissions","data":{"project_id":${deep(levels)}}}`);
    const error = await client.next((f) => f.type === 'error');
    t.same(refusedForDepth({ status: 400, body: error.data }), { ...DEPTH_REFUSAL, loc: [] }, `a frame ${levels} levels deep`);
  }
  const fine = await client.request('fetch_submissions', { project_id: s.projectId }, 'submissions');
  t.same(fine.data.items, [], 'the socket still answers');
});

/** POSTs `body` over a real connection and answers its status and JSON body. */
function send(port: number, path: string, body: string) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

t.test('while a 500,000-deep body is refused, a parallel client gets its healthcheck answers', async (t) => {
  const s = await signalApp(t);
  await s.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (s.app.server.address() as { port: number }).port;
  const health: { status: number; ms: number }[] = [];
  let done = false;
  const healthLoop = (async () => {
    // At least one check after the deep request: the server must still be serving.
    for (let last = false; !last;) {
      last = done;
      const started = performance.now();
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/healthcheck`);
      health.push({ status: res.status, ms: performance.now() - started });
      await res.arrayBuffer();
    }
  })();
  const refused = await send(port, '/api/v1/default/auth/postoauthlogin', `{"token":"x","nested":${deep(500_000)}}`);
  done = true;
  await healthLoop;
  t.same(refusedForDepth(refused), DEPTH_REFUSAL, 'the deep body is refused');
  t.ok(health.length > 0, 'healthchecks were answered');
  t.same(
    health.filter((h) => h.status !== 200),
    [],
    'every healthcheck answered 200',
  );
  t.comment(`${health.length} healthchecks, longest ${Math.max(...health.map((h) => h.ms)).toFixed(1)} ms (bench: npm run bench -- input)`);
});
