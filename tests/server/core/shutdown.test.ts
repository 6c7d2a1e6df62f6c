import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';

// As in process.test.ts: the real server process, tsx loaded in it so signals reach server.ts.
function startServer(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/server.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = async (pattern: RegExp) => {
    for (let i = 0; i < 1200 && !pattern.test(out); i++) {
      if (child.exitCode !== null) throw new Error(`server exited: ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return pattern.exec(out);
  };
  return { child, exited, waitFor, output: () => out, errors: () => err };
}

/** One HTTP/1.1 request on an open socket; resolves with the whole answer, or with how the socket ended. */
function send(socket: Socket, path: string): Promise<{ status: number; headers: string; body: string } | { ended: string }> {
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
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
  });
}

t.test(
  'a request sent after SIGTERM on a kept-alive connection gets 503 in the error shape, not a reset',
  { skip: process.env.DATABASE_URL ? 'embedded database only' : false },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'fw-drain-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const server = startServer({
      DATA_DIR: dir,
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

    const res = await pending;
    t.equal(res.status, 200, 'the request in flight at SIGTERM completes');
    t.type((await res.json()).token, 'string');
    const code = await server.exited;
    t.comment(`exited ${Date.now() - signalled} ms after SIGTERM`);
    t.equal(code, 0, `the process exits cleanly once its connections are closed (exit ${code}: ${server.errors().slice(-500)})`);
  },
);
