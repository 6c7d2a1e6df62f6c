import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';

/**
 * Browser tests: the real server on an embedded PGlite database in a fresh folder (so every run
 * starts empty), serving the built admin app, driven through Debian's Chromium; sign-in codes travel
 * over real SMTP to a listener in the test. `npm run test:e2e` builds the admin app first.
 *
 * This file is loaded by the runner and again by each worker: the port and folders are chosen once and
 * passed on through the environment, so both sides agree.
 */
const env = process.env;
env.FW_E2E_PORT ??= String(20000 + (process.pid % 20000));
env.FW_E2E_SMTP_PORT ??= String(Number(env.FW_E2E_PORT) + 1);
env.FW_E2E_DATA ??= mkdtempSync(join(tmpdir(), 'fw-e2e-'));

export const E2E = {
  baseURL: `http://127.0.0.1:${env.FW_E2E_PORT}`,
  smtpPort: Number(env.FW_E2E_SMTP_PORT),
  adminEmail: 'admin@firewatch.test',
  adminPassword: 'correct-horse-battery',
};

const root = join(import.meta.dirname, '..', '..');

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  // Playwright empties its output folder when a run starts: one folder per run, so runs started side
  // by side in the same tree (several people at once) do not delete each other's traces.
  outputDir: join(root, 'test-results', `run-${env.FW_E2E_PORT}`),
  globalTeardown: join(import.meta.dirname, 'teardown.ts'),
  fullyParallel: false,
  workers: 1,
  retries: 0,
  // Two shared cores: pages can take a few seconds under load.
  timeout: 90_000,
  expect: { timeout: 15_000 },
  // `list` ends with "N passed" / "N failed" lines, which .ci/run counts.
  reporter: [['list']],
  use: {
    baseURL: E2E.baseURL,
    launchOptions: { executablePath: env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
    viewport: { width: 1280, height: 900 },
    // As a person who asked the system for less motion: the same screens, without waiting out each
    // slide, fade and grow (the settings walk took 2.2 instead of 3.9 min). foundation.spec.ts runs
    // with motion, as most people see the app, and checks that the preference is honoured.
    reducedMotion: 'reduce',
    // A failed test keeps its trace: actions, their targets and DOM snapshots. Not the screencast: its
    // frames cost about a quarter of the run's time on these two cores (96 against 131 s for ten
    // screens of the settings walk); the failure screenshot still shows the last frame.
    trace: { mode: 'retain-on-failure', screenshots: false, snapshots: true, sources: true },
    screenshot: 'only-on-failure',
  },
  webServer: {
    command: 'node --import tsx server/server.ts',
    cwd: root,
    url: `${E2E.baseURL}/api/v1/healthcheck`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: env.FW_E2E_PORT,
      HOST: '127.0.0.1',
      DATABASE_URL: '',
      DATA_DIR: join(env.FW_E2E_DATA, 'db'),
      ADMIN_DIST: join(root, 'dist', 'admin'),
      JWT_SECRET: 'e2e-secret-e2e-secret-e2e-secret-e2e-secret',
      FIREWATCH_ADMIN_EMAIL: E2E.adminEmail,
      FIREWATCH_ADMIN_PASSWORD: E2E.adminPassword,
      SMTP_URL: `smtp://127.0.0.1:${env.FW_E2E_SMTP_PORT}`,
      LOG_LEVEL: 'warn',
      // Where a workflow engine calls back (workflows.spec's local engine).
      PUBLIC_URL: `http://127.0.0.1:${env.FW_E2E_PORT}`,
      // Every sign-in in the run comes from 127.0.0.1; keep the limiter out of the way.
      LOGIN_RATE_LIMIT: '1000',
    },
  },
});
