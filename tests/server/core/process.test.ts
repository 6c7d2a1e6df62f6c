import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { migratedDataDir } from '../../helpers.js';

// tsx loads in the server process itself, so signals reach server.ts directly.
const tsxArgs = ['--import', 'tsx', 'server/server.ts'];

function startServer(env: Record<string, string>) {
  const child = spawn(process.execPath, tsxArgs, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // A first start on a fresh data folder migrates the embedded database: on two shared, loaded cores
  // that took over a minute, so the wait is generous and its failure says what was seen.
  const waitFor = async (pattern: RegExp) => {
    const until = Date.now() + 240_000;
    while (!pattern.test(out)) {
      if (child.exitCode !== null) throw new Error(`server exited: ${err}`);
      if (Date.now() > until) throw new Error(`no ${pattern} in 240 s; the server printed: ${out.slice(-500)}${err.slice(-500)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return pattern.exec(out)!;
  };
  return { child, exited, waitFor, output: () => out, errors: () => err };
}

t.test('a bad configuration value stops the process with one line naming it', async (t) => {
  const { exited, errors } = startServer({ PORT: 'eighty', DATABASE_URL: '' });
  t.equal(await exited, 1);
  const lines = errors().trim().split('\n');
  t.equal(lines.length, 1);
  t.match(lines[0], /^Invalid configuration: PORT: /);
});

t.test('SIGTERM lets an in-flight request finish, then exits cleanly', { skip: process.env.DATABASE_URL ? 'embedded database only' : false }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-sigterm-'));
  const server = startServer({
    DATA_DIR: await migratedDataDir(dir),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    FIREWATCH_ADMIN_EMAIL: 'a@example.com',
    FIREWATCH_ADMIN_PASSWORD: 'password-1',
  });
  // The folder goes once the process is gone, not while it still writes there.
  t.teardown(async () => {
    server.child.kill('SIGKILL');
    await server.exited;
    rmSync(dir, { recursive: true, force: true });
  });
  const listening = await server.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
  const base = listening[1]!;
  // A password sign-in spends a while hashing: long enough to be in flight when the signal lands.
  const pending = fetch(`${base}/api/v1/default/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'a@example.com', password: 'password-1' }),
  });
  await server.waitFor(/"url":"\/api\/v1\/default\/auth\/login"/);
  server.child.kill('SIGTERM');
  const res = await pending;
  t.equal(res.status, 200, 'the request started before SIGTERM completes');
  t.type((await res.json()).token, 'string');
  const code = await server.exited;
  t.equal(code, 0, `the process exits cleanly (exit ${code}: ${server.errors().slice(-500)})`);
  t.match(server.output(), /shutting down/);
});
