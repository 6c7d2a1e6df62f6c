import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig, type TestInfo } from '@playwright/test';

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
env.FW_E2E_DATA ??= mkdtempSync(join(tmpdir(), 'fw-e2e-'));

const root = join(import.meta.dirname, '..', '..');

/**
 * Two servers, each with its own database, SMTP listener and copy of the admin build, so the two
 * workers never see each other's data or served build. The tests tagged @server-1 (the settings walk,
 * about half of the run) run on the first, every other test on the second, so that the two finish about
 * together.
 */
const servers = [0, 1].map((i) => {
  const port = Number(env.FW_E2E_PORT) + 10 * i;
  return {
    port,
    baseURL: `http://127.0.0.1:${port}`,
    smtpPort: port + 1,
    dataDir: join(env.FW_E2E_DATA!, `db-${i}`),
    adminDist: join(root, 'dist', i === 0 ? 'admin' : `admin-e2e-${i}`),
  };
});
export type E2EServer = (typeof servers)[number];

export const E2E = {
  adminEmail: 'admin@firewatch.test',
  adminPassword: 'correct-horse-battery',
};

/** The server the running spec file is served by (its project's). */
export const serverOf = (info: TestInfo) => info.project.metadata as E2EServer;

const settingsWalk = ['settings.spec.ts'];
const firstServer = /@server-1\b/;

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  // Playwright empties its output folder when a run starts: one folder per run, so runs started side
  // by side in the same tree (several people at once) do not delete each other's traces.
  outputDir: join(root, 'test-results', `run-${env.FW_E2E_PORT}`),
  projects: servers.map((server, i) => ({
    name: `server-${i + 1}`,
    ...(i === 0 ? { testMatch: settingsWalk, grep: firstServer } : { grepInvert: firstServer }),
    use: { baseURL: server.baseURL },
    metadata: server,
    // One file at a time per server: files share its data and its served build.
    workers: 1,
  })),
  globalTeardown: join(import.meta.dirname, 'teardown.ts'),
  fullyParallel: false,
  workers: 2,
  // One retry, reported: the list ends with "N flaky" for a test that failed once and then passed, so a
  // flake on these shared cores does not hide the run's result, and a real failure still fails twice.
  retries: 1,
  // Two shared cores: pages can take a few seconds under load.
  timeout: 90_000,
  expect: { timeout: 15_000 },
  // `list` ends with "N passed" / "N failed" lines, which .ci/run counts.
  reporter: [['list']],
  use: {
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
  webServer: servers.map((server) => ({
    // The second server serves a copy of the build: the shell walk replaces its version.json.
    command:
      server.adminDist === join(root, 'dist', 'admin')
        ? 'node --import tsx server/server.ts'
        : `rm -rf '${server.adminDist}' && cp -r dist/admin '${server.adminDist}' && node --import tsx server/server.ts`,
    cwd: root,
    url: `${server.baseURL}/api/v1/healthcheck`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: 'ignore' as const,
    stderr: 'pipe' as const,
    env: {
      PORT: String(server.port),
      HOST: '127.0.0.1',
      DATABASE_URL: '',
      DATA_DIR: server.dataDir,
      ADMIN_DIST: server.adminDist,
      JWT_SECRET: 'e2e-secret-e2e-secret-e2e-secret-e2e-secret',
      FIREWATCH_ADMIN_EMAIL: E2E.adminEmail,
      FIREWATCH_ADMIN_PASSWORD: E2E.adminPassword,
      SMTP_URL: `smtp://127.0.0.1:${server.smtpPort}`,
      LOG_LEVEL: 'warn',
      // Where a workflow engine calls back (workflows.spec's local engine).
      PUBLIC_URL: server.baseURL,
      // workflows.spec's Slack, webhook and engine stand-ins listen on loopback, which the outbound policy refuses by default.
      OUTBOUND_ALLOW: '127.0.0.0/8',
      // Every sign-in in the run comes from 127.0.0.1; keep the limiter out of the way.
      LOGIN_RATE_LIMIT: '1000',
    },
  })),
});
