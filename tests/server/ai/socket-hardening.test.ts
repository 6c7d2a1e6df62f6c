import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import WebSocket from 'ws';
import { buildApp } from '../../../server/app.js';
import { loadConfig } from '../../../server/core/config.js';
import { freshDatabase, testApp } from '../../helpers.js';
import { makePdf } from './fixtures.js';
import { SocketClient } from './socket-client.js';

/** Opens a raw TCP socket upgraded to a websocket; resolves once the 101 has arrived. */
async function rawUpgrade(port: number, path: string): Promise<{ sock: Socket; received: () => Buffer; closed: Promise<void> }> {
  const sock = connect(port, '127.0.0.1');
  let buf = Buffer.alloc(0);
  sock.on('data', (d) => (buf = Buffer.concat([buf, d])));
  const closed = new Promise<void>((resolve) => sock.on('close', () => resolve()));
  sock.on('error', () => {});
  await new Promise<void>((resolve) => sock.once('connect', () => resolve()));
  sock.write(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  while (!buf.includes('\r\n\r\n')) await new Promise((r) => setTimeout(r, 10));
  const head = buf.indexOf('\r\n\r\n') + 4;
  if (!buf.subarray(0, head).toString().startsWith('HTTP/1.1 101')) throw new Error(`no upgrade: ${buf.toString()}`);
  return { sock, received: () => buf.subarray(head), closed };
}

/** A masked text frame header announcing `length` bytes (64-bit length form). */
function frameHeader(length: number): Buffer {
  const h = Buffer.alloc(14);
  h[0] = 0x81;
  h[1] = 0x80 | 127;
  h.writeBigUInt64BE(BigInt(length), 2);
  randomBytes(4).copy(h, 10);
  return h;
}

/** The close code of the first close frame the server sent (unmasked, server to client). */
function closeCode(data: Buffer): number | null {
  let i = 0;
  while (i + 2 <= data.length) {
    const opcode = data[i]! & 0x0f;
    let len = data[i + 1]! & 0x7f;
    let at = i + 2;
    if (len === 126) {
      len = data.readUInt16BE(at);
      at += 2;
    } else if (len === 127) {
      len = Number(data.readBigUInt64BE(at));
      at += 8;
    }
    if (opcode === 0x8) return data.readUInt16BE(at);
    i = at + len;
  }
  return null;
}

const closeOf = (ws: WebSocket) => new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));

t.test('socket message types are own names only: inherited names are unknown types, and the server stays up', async (t) => {
  const { app, request, login, ticket } = await testApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws`;
  const key = (await request({ method: 'POST', url: '/api/v1/default/auth/anonymous' })).body.key;
  const token = await login('owner@example.com');
  for (const query of [`key=${key}`, `ticket=${await ticket(token)}`]) {
    const ws = await SocketClient.open(`${base}?${query}`);
    t.teardown(() => ws.close());
    for (const type of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf']) {
      const reply = await ws.request(type, {}, 'never');
      t.match(
        reply,
        { type: 'error', data: { detail: [{ msg: `Unknown message type '${type}'.`, type: 'unknown_type' }] } },
        `${type} is an unknown type (${query.split('=')[0]})`,
      );
    }
    t.match((await ws.request('fetch_limits', {}, 'limits')).data, { plan: String }, 'the socket keeps working');
  }
  t.equal((await request({ method: 'GET', url: '/api/v1/healthcheck' })).status, 200, 'the server is up');
});

t.test('socket frames: 64 KB before anyone is authenticated, the plan limit after, refused before the payload is read', async (t) => {
  const { app, request, login, ticket } = await testApp(t, {
    AI_LIMITS: JSON.stringify({ anonymous: { max_file_bytes: 256 * 1024 }, free: { max_file_bytes: 2 * 1024 * 1024 } }),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  const base = `ws://127.0.0.1:${port}/api/v1/default/ws`;

  // A header announcing 50 MB from a caller nobody knows: closed with 1009 after the first kilobyte.
  const raw = await rawUpgrade(port, '/api/v1/default/ws');
  raw.sock.write(Buffer.concat([frameHeader(50 * 1024 * 1024), randomBytes(1024)]));
  await raw.closed;
  t.equal(closeCode(raw.received()), 1009, 'an unauthenticated 50 MB frame is refused from its header (1009, message too big)');

  const stranger = await SocketClient.open(base);
  t.match(stranger.frames.length, 0);
  const strangerClosed = closeOf(stranger.ws);
  stranger.ws.send(JSON.stringify({ type: 'fetch_limits', data: { pad: 'x'.repeat(70 * 1024) } }));
  t.equal(await strangerClosed, 1009, 'an unauthenticated 70 KB frame closes the socket');

  const key = (await request({ method: 'POST', url: '/api/v1/default/auth/anonymous' })).body.key;
  const visitor = await SocketClient.open(`${base}?key=${key}`);
  const small = await visitor.request('fetch_limits', { pad: 'x'.repeat(100 * 1024) }, 'limits');
  t.match(small.data.detail[0], { msg: "Unknown field 'pad'.", type: 'extra_forbidden' }, 'a visitor may send more than 64 KB, up to its plan');
  const visitorClosed = closeOf(visitor.ws);
  visitor.ws.send(JSON.stringify({ type: 'fetch_limits', data: { pad: 'x'.repeat(500 * 1024) } }));
  t.equal(await visitorClosed, 1009, "but not more than its plan's largest upload");

  const token = await login('owner@example.com');
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } })).body;
  const member = await SocketClient.open(`${base}?ticket=${await ticket(token)}`);
  t.teardown(() => member.close());
  const text = Buffer.from(`${'The kraken runbook. '.repeat(60_000)}`).toString('base64');
  const up = await member.request('file_upload', { fileName: 'big.txt', fileContent: text, project_id: project.id, buildIndex: false }, 'submit_file_response');
  t.match(up.data, { status: 'success' }, 'a member uploads a 1.2 MB file within the free plan');
  t.equal((await request({ method: 'GET', url: '/api/v1/healthcheck' })).status, 200);
});

t.test('a shared chat opens only the public passages it cites: never the rest of the document, nothing of a restricted one', async (t) => {
  const { app, request, login, ticket } = await testApp(t, { JOB_POLL_SECONDS: '0.5' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws`;
  const token = await login('owner@example.com');
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } })).body;
  const owner = await SocketClient.open(`${base}?ticket=${await ticket(token)}`);
  t.teardown(() => owner.close());

  const pages = Array.from({ length: 12 }, (_, i) =>
    i === 6 ? ['To rotate the kraken API keys, run keyctl rotate --all.'] : [`CONFIDENTIAL payroll section ${i}: salary band ${i} is ${1000 + i} credits.`],
  );
  const pdf = await makePdf(pages);
  const up = await owner.request(
    'file_upload',
    { fileName: 'handbook.pdf', fileContent: pdf.toString('base64'), project_id: project.id, sensitivityLevel: 'public' },
    'submit_file_response',
  );
  await owner.next((f) => f.type === 'submission_status' && f.data.submission_id === up.data.submission_id && f.data.status === 'indexed');
  const done = await owner.request('chat', { project_id: project.id, text: 'How do I rotate the kraken API keys?' }, 'chat_done');
  const cited = new Set<number>(
    done.data.sources.filter((s: { object_type: string }) => s.object_type === 'chunk').map((s: { object_id: number }) => s.object_id),
  );
  t.ok(cited.size >= 1 && cited.size < 12, `the answer cites ${cited.size} of 12 passages`);
  const whole = await owner.request('fetch_object_content', { object_type: 'submission', object_id: up.data.submission_id }, 'object_content');
  t.equal(whole.data.chunks.length, 12, 'the owner opens all 12 passages');

  await request({ method: 'PUT', url: `/api/v1/default/chats/${done.data.chat_id}`, token, payload: { shared: true } });
  const stranger = await SocketClient.open(base);
  t.teardown(() => stranger.close());
  const shared = { chat_id: done.data.chat_id, is_shared_view: true };
  const sub = await stranger.request('fetch_object_content', { object_type: 'submission', object_id: up.data.submission_id, ...shared }, 'object_content');
  t.same(new Set(sub.data.chunks.map((c: { id: number }) => c.id)), cited, 'the submission opens with the cited passages only');
  t.notMatch(JSON.stringify(sub.data), /salary band/, 'no uncited payroll section');
  for (const id of cited) {
    const chunk = await stranger.request('fetch_object_content', { object_type: 'chunk', object_id: id, ...shared }, 'object_content');
    t.match(chunk.data, { object_type: 'chunk', text: /kraken|payroll/ });
    for (const side of [chunk.data.before, chunk.data.after]) t.ok(side === null || !/salary band/.test(side), 'neighbours show only when cited themselves');
  }
  const uncited = whole.data.chunks.find((c: { id: number }) => !cited.has(c.id));
  t.match(
    (await stranger.request('fetch_object_content', { object_type: 'chunk', object_id: uncited.id, ...shared }, 'object_content')).data.detail[0].msg,
    /could not be found/,
    'an uncited passage is not found',
  );

  // The same handbook uploaded as restricted and cited by a shared chat: a reader who is not signed in
  // opens none of it (review walk H1: a share shows only what is public when it is viewed).
  const secret = await owner.request(
    'file_upload',
    { fileName: 'handbook-restricted.pdf', fileContent: pdf.toString('base64'), project_id: project.id, sensitivityLevel: 'restricted' },
    'submit_file_response',
  );
  await owner.next((f) => f.type === 'submission_status' && f.data.submission_id === secret.data.submission_id && f.data.status === 'indexed');
  const again = await owner.request('chat', { project_id: project.id, text: 'How do I rotate the kraken API keys?' }, 'chat_done');
  const secretCited = again.data.sources.filter((s: { object_type: string; object_id: number }) => s.object_type === 'chunk' && !cited.has(s.object_id));
  t.ok(secretCited.length >= 1, 'the second answer cites the restricted copy too');
  await request({ method: 'PUT', url: `/api/v1/default/chats/${again.data.chat_id}`, token, payload: { shared: true } });
  const view = { chat_id: again.data.chat_id, is_shared_view: true };
  for (const [type, id] of [['submission', secret.data.submission_id], ...secretCited.map((s: { object_id: number }) => ['chunk', s.object_id])]) {
    const refused = await stranger.request('fetch_object_content', { object_type: type, object_id: id, ...view }, 'object_content');
    t.match(refused.data.detail?.[0]?.msg, /could not be found/, `the restricted ${type} is not found`);
  }
});

t.test('an oversize frame is logged at info without a stack, not as an error (review F26)', async (t) => {
  const { database } = await freshDatabase(t);
  const lines: { level: number; msg?: string; code?: string; err?: unknown; stack?: unknown }[] = [];
  const config = loadConfig({ LOG_LEVEL: 'info', JWT_SECRET: 'test-secret-test-secret-test-secret-42', ADMIN_DIST: 'dist/no-admin-in-tests' });
  const app = await buildApp({ config, database, mailer: async () => undefined, logStream: { write: (line) => void lines.push(JSON.parse(line)) } });
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const stranger = await SocketClient.open(`ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws`);
  const closed = closeOf(stranger.ws);
  stranger.ws.send(JSON.stringify({ type: 'fetch_limits', data: { pad: 'x'.repeat(70 * 1024) } }));
  t.equal(await closed, 1009, 'closed with 1009');
  await new Promise((r) => setTimeout(r, 50));
  const logged = lines.filter((l) => l.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH');
  t.same(
    logged.map((l) => ({ level: l.level, stack: JSON.stringify(l).includes('"stack"') })),
    [{ level: 30, stack: false }],
    'one info line naming the refusal, without a stack',
  );
  t.same(
    lines.filter((l) => l.level >= 50),
    [],
    'nothing at error level',
  );
});
