import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { E2E } from './playwright.config.js';
import { freePort } from '../free-port.js';

export { freePort };

const root = join(import.meta.dirname, '..', '..');

export interface OwnServer {
  base: string;
  /** SIGTERM, wait for the exit, remove the database folder. */
  stop(): Promise<void>;
}

/**
 * A Firewatch server of a spec file's own, for settings the run's shared servers must not take (a
 * short JWT_EXPIRES_IN, Stripe, an OIDC provider, no first Owner): a fresh embedded database, the
 * built admin app, the same defaults as playwright.config.ts's servers, overridden by `settings`.
 * Resolves once it answers its health check; rejects if it exits first.
 */
export async function startOwnServer(port: number, settings: Record<string, string> = {}): Promise<OwnServer> {
  const base = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'fw-e2e-own-'));
  const server = spawn(process.execPath, ['--import', 'tsx', 'server/server.ts'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: '',
      DATA_DIR: join(dataDir, 'db'),
      ADMIN_DIST: join(root, 'dist', 'admin'),
      JWT_SECRET: 'e2e-secret-e2e-secret-e2e-secret-e2e-secret',
      FIREWATCH_ADMIN_EMAIL: E2E.adminEmail,
      FIREWATCH_ADMIN_PASSWORD: E2E.adminPassword,
      PUBLIC_URL: base,
      LOG_LEVEL: 'warn',
      LOGIN_RATE_LIMIT: '1000',
      ...settings,
    },
  });
  const stop = async () => {
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (;;) {
    if (server.exitCode !== null) {
      await stop();
      throw new Error(`the Firewatch server on port ${port} exited (${server.exitCode}) before answering`);
    }
    const up = await fetch(`${base}/api/v1/healthcheck`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { base, stop };
    await new Promise((r) => setTimeout(r, 250));
  }
}
