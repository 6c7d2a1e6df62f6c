import { spawn } from 'node:child_process';

/** A real server process (server/server.ts, tsx loaded in the process itself), its output collected. */
export function startServerProcess(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/server.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  /**
   * The server's base URL once it listens. Up to 300 s, a hang detector only: the embedded database
   * migrates on first start, which took over 120 s on a 2-core machine at a load average of 35.
   */
  const listening = async () => {
    for (const deadline = Date.now() + 300_000; Date.now() < deadline;) {
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) return m[1]!;
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited: ${err.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`server did not listen: ${err.slice(-2000)}`);
  };
  return { child, exited, listening, output: () => out, errors: () => err };
}

export async function signIn(base: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/default/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}
