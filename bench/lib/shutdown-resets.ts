/**
 * Child of the shutdown suite (review F19): the real server process (server/server.ts) gets SIGTERM
 * while 8 writers POST /tag_types on kept-alive connections. A writer that gets 503 reconnects at
 * once (no Retry-After wait: the worst client), until the server refuses connections. Prints one
 * JSON line: answers by status, transport failures (code, kept-alive or new connection, ms after
 * SIGTERM and after the listener closed), acknowledged writes, missing ones after a restart, exit.
 *
 *   node --import tsx bench/lib/shutdown-resets.ts [pglite|postgres]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, signIn } from '../../tests/server/reliability/server-child.js';

const kind = process.argv[2] ?? 'pglite';
const nonce = Date.now().toString(36);
const WRITERS = Number(process.env.BENCH_WRITERS ?? 8);
const dir = mkdtempSync(join(tmpdir(), 'fw-shutdown-'));
const env: Record<string, string> = {
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  FIREWATCH_ADMIN_EMAIL: 'a@example.com',
  FIREWATCH_ADMIN_PASSWORD: 'password-1',
  ...(kind === 'pglite' ? { DATA_DIR: dir, DATABASE_URL: '' } : { DATABASE_URL: process.env.DATABASE_URL! }),
};

function post(agent: Agent, url: string, body: unknown, token: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
      res.on('error', reject);
    });
    req.on('error', (err) => reject(Object.assign(err, { reused: req.reusedSocket })));
    req.end(JSON.stringify(body));
  });
}

const server = startServerProcess(env);
try {
  const base = await server.listening();
  const token = await signIn(base, 'a@example.com', 'password-1');
  const acked: number[] = [];
  const answers: Record<string, number> = {};
  const failures: { code: string; connection: 'kept-alive' | 'new'; ms: number }[] = [];
  let signalled = 0;
  const writer = async (w: number) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let n = 0; n < 100_000; n++) {
        const res = await post(agent, `${base}/api/v1/default/tag_types`, { name: `${nonce} w${w}-${n}` }, token);
        answers[res.status] = (answers[res.status] ?? 0) + 1;
        if (res.status === 201) acked.push(res.body.id);
        else if (res.status !== 503) return;
      }
    } catch (err) {
      const code = String((err as NodeJS.ErrnoException).code ?? (err as Error).message);
      if (code !== 'ECONNREFUSED') failures.push({ code, connection: (err as { reused?: boolean }).reused ? 'kept-alive' : 'new', ms: Date.now() - signalled });
      else answers.refused = (answers.refused ?? 0) + 1;
    } finally {
      agent.destroy();
    }
  };
  const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
  while (acked.length < 40) await new Promise((r) => setTimeout(r, 20));
  server.child.kill('SIGTERM');
  signalled = Date.now();
  await Promise.all(writers);
  const code = await server.exited;
  const exitMs = Date.now() - signalled;
  // When the server says the listener closed (drain logs it), relative to SIGTERM.
  const logged = (msg: string) => {
    const line = server
      .output()
      .split('\n')
      .find((l) => l.includes(`"msg":"${msg}"`));
    return line ? Number(/"time":(\d+)/.exec(line)![1]) - signalled : null;
  };
  const again = startServerProcess(env);
  let missing = -1;
  try {
    const base2 = await again.listening();
    const token2 = await signIn(base2, 'a@example.com', 'password-1');
    const filter = encodeURIComponent(JSON.stringify([{ field: 'id', op: 'in', value: acked }]));
    const res = await fetch(`${base2}/api/v1/default/tag_types?itemsPerPage=1&filter=${filter}`, { headers: { authorization: `Bearer ${token2}` } });
    missing = acked.length - ((await res.json()) as { total: number }).total;
  } finally {
    again.child.kill('SIGTERM');
    await again.exited;
  }
  console.log(
    JSON.stringify({
      kind,
      answers,
      failures,
      acked: acked.length,
      missing,
      exit: code,
      exit_ms: exitMs,
      listener_closed_ms: logged('listener closed'),
      held_answers: Number(/"answered":(\d+)[^\n]*"msg":"listener closed"/.exec(server.output())?.[1] ?? NaN),
    }),
  );
} finally {
  server.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
