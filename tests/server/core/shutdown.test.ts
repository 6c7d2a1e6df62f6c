import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { migratedDataDir } from '../../helpers.js';

// As in process.test.ts: the real server process, tsx loaded in it so signals reach server.ts.
function startServer(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/server.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = async (pattern: RegExp) => {
    // A hang detector only: the embedded database migrates on first start (over 120 s at a load average of 35).
    for (let i = 0; i < 6000 && !pattern.test(out); i++) {
      if (child.exitCode !== null) throw new Error(`server exited: ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return pattern.exec(out);
  };
  return { child, exited, waitFor, output: () => out, errors: () => err };
}

/** One HTTP/1.1 request on an open socket; resolves with the whole answer, or with how the socket ended. */
function send(
  socket: Socket,
  path: string,
  post?: { body: string; pauseMs: number },
): Promise<{ status: number; headers: string; body: string } | { ended: string }> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve({ ended: 'the connection was already closed' });
    let data = '';
    const onData = (chunk: Buffer) => {
      data += chunk;
      const split = data.indexOf('\r\n\r\n');
      if (split < 0) return;
      const headers = data.slice(0, split);
      const length = Number(/content-length: (\d+)/i.exec(headers)?.[1] ?? 0);
      const body = data.slice(split + 4);
      if (Buffer.byteLength(body) < length) return;
      cleanup();
      resolve({ status: Number(headers.split(' ')[1]), headers, body });
    };
    const onEnd = (e?: Error) => {
      cleanup();
      resolve({ ended: e ? String((e as NodeJS.ErrnoException).code ?? e.message) : 'closed without an answer' });
    };
    const cleanup = () => {
      socket.off('data', onData);
      socket.off('error', onEnd);
      socket.off('close', onEnd);
    };
    socket.on('data', onData);
    socket.once('error', onEnd);
    socket.once('close', () => onEnd());
    if (!post) return void socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
    // The body follows its headers after a pause, as a slow client's (or a large body's) does; like
    // most clients, this one reads the answer once it has sent the whole request.
    socket.pause();
    socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(post.body)}\r\n\r\n`);
    setTimeout(() => {
      if (!socket.destroyed) socket.write(post.body);
      setTimeout(() => socket.resume(), post.pauseMs);
    }, post.pauseMs);
  });
}

t.test(
  'a request sent after SIGTERM on a kept-alive connection gets 503 in the error shape, not a reset',
  { skip: process.env.DATABASE_URL ? 'embedded database only' : false },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'fw-drain-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const server = startServer({
      DATA_DIR: await migratedDataDir(dir),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE_SECONDS: '20',
      FIREWATCH_ADMIN_EMAIL: 'a@example.com',
      FIREWATCH_ADMIN_PASSWORD: 'password-1',
    });
    t.teardown(() => server.child.kill('SIGKILL'));
    const base = (await server.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/))![1]!;
    const port = Number(new URL(base).port);

    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    t.teardown(() => socket.destroy());
    const first = await send(socket, '/api/v1/healthcheck');
    t.equal('status' in first && first.status, 200, 'the connection is open and idle, kept alive');
    const slow = connect(port, '127.0.0.1');
    await new Promise((r) => slow.once('connect', r));
    t.teardown(() => slow.destroy());
    t.equal(((await send(slow, '/api/v1/healthcheck')) as { status: number }).status, 200, 'a second kept-alive connection');

    // A password sign-in spends a while hashing: in flight when the signal lands.
    const pending = fetch(`${base}/api/v1/default/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a@example.com', password: 'password-1' }),
    });
    await server.waitFor(/"url":"\/api\/v1\/default\/auth\/login"/);
    server.child.kill('SIGTERM');
    const signalled = Date.now();
    await server.waitFor(/shutting down/);

    const late = await send(socket, '/api/v1/healthcheck');
    if (!('status' in late)) return t.fail(`the late request got no answer: ${late.ended}`);
    t.equal(late.status, 503);
    t.match(late.headers, /\r\nconnection: close/i, 'and the connection is closed after it');
    t.match(late.headers, /\r\nx-request-id: /i);
    t.same(JSON.parse(late.body), { detail: [{ msg: 'The server is shutting down. Please retry.', loc: [], type: 'shutting_down' }] });

    // Answered before its body had arrived, the connection would close with the body unread: a reset.
    const split = await send(slow, '/api/v1/default/tag_types', { body: JSON.stringify({ name: 'late', description: 'x'.repeat(600_000) }), pauseMs: 300 });
    t.same(
      'status' in split ? { status: split.status, type: JSON.parse(split.body).detail[0].type } : split,
      { status: 503, type: 'shutting_down' },
      'a POST whose 600 KB body comes late gets its 503, not a reset',
    );

    const res = await pending;
    t.equal(res.status, 200, 'the request in flight at SIGTERM completes');
    t.type((await res.json()).token, 'string');
    const code = await server.exited;
    t.comment(`exited ${Date.now() - signalled} ms after SIGTERM`);
    t.equal(code, 0, `the process exits cleanly once its connections are closed (exit ${code}: ${server.errors().slice(-500)})`);
  },
);

interface Answer {
  status: number;
  body: any;
  retryAfter?: string;
}

/** A JSON request on `agent` (its kept-alive connection); resolves with the answer or rejects with the transport error. */
function call(agent: Agent, base: string, method: string, path: string, body?: unknown, token?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${path}`,
      { method, agent, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) } },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, retryAfter: res.headers['retry-after'] }));
        res.on('error', reject);
      },
    );
    req.on('error', (err) => reject(Object.assign(err, { reused: req.reusedSocket })));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

t.test(
  'SIGTERM with 8 keep-alive writers: no connection is reset, and every acknowledged write is there after a restart',
  { skip: process.env.DATABASE_URL ? 'embedded database only' : false },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'fw-drain-writers-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const env = {
      DATA_DIR: await migratedDataDir(dir),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      FIREWATCH_ADMIN_EMAIL: 'a@example.com',
      FIREWATCH_ADMIN_PASSWORD: 'password-1',
    };
    const server = startServer(env);
    t.teardown(() => server.child.kill('SIGKILL'));
    const base = (await server.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/))![1]!;
    const setup = new Agent({ keepAlive: true });
    const token = (await call(setup, base, 'POST', '/api/v1/default/auth/login', { email: 'a@example.com', password: 'password-1' })).body.token as string;
    setup.destroy();

    // Each writer keeps one connection alive and writes; after a 503 it waits as Retry-After says and
    // tries again (on a new connection: the 503 closes its own), until the server takes no connections.
    const acked: number[] = [];
    const answers: Record<string, number> = {};
    const failures: string[] = [];
    let signalled = 0;
    const writer = async (w: number) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let n = 0; n < 10_000; n++) {
          const res = await call(agent, base, 'POST', '/api/v1/default/tag_types', { name: `w${w}-${n}` }, token);
          answers[res.status] = (answers[res.status] ?? 0) + 1;
          if (res.status === 201) acked.push(res.body.id);
          else if (res.status === 503) await new Promise((r) => setTimeout(r, Number(res.retryAfter ?? 1) * 1000));
          else return;
        }
      } catch (err) {
        const code = String((err as NodeJS.ErrnoException).code ?? (err as Error).message);
        // Refused: the listener is closed, nothing was sent; anything else (a reset, a hang-up) lost a request.
        if (code !== 'ECONNREFUSED')
          failures.push(`${code}${(err as { reused?: boolean }).reused ? ' (kept-alive)' : ' (new connection)'} ${Date.now() - signalled} ms after SIGTERM`);
      } finally {
        agent.destroy();
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    while (acked.length < 40) await new Promise((r) => setTimeout(r, 20));
    server.child.kill('SIGTERM');
    signalled = Date.now();
    await Promise.all(writers);
    const code = await server.exited;
    t.comment(`answers ${JSON.stringify(answers)}, transport failures ${JSON.stringify(failures)}`);
    t.equal(code, 0, 'the process exits cleanly');
    t.same(failures, [], 'no writer saw a reset or a closed connection without an answer');

    const again = startServer(env);
    t.teardown(() => again.child.kill('SIGKILL'));
    const base2 = (await again.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/))![1]!;
    const agent = new Agent({ keepAlive: true });
    t.teardown(() => agent.destroy());
    const token2 = (await call(agent, base2, 'POST', '/api/v1/default/auth/login', { email: 'a@example.com', password: 'password-1' })).body.token as string;
    const listed = await call(
      agent,
      base2,
      'GET',
      `/api/v1/default/tag_types?itemsPerPage=100&filter=${encodeURIComponent(JSON.stringify([{ field: 'id', op: 'in', value: acked }]))}`,
      undefined,
      token2,
    );
    t.equal(listed.body.total, acked.length, `all ${acked.length} acknowledged writes are there`);
    again.child.kill('SIGTERM');
    await again.exited;
  },
);
