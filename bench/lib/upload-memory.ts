/**
 * Child process of the upload-memory suite (review F25): the server's resident memory around one
 * large HTTP upload, the whole app in this process as `node dist/server/server.js` runs it (an
 * embedded data folder on disk, or PostgreSQL).
 *
 *   node --expose-gc --import tsx bench/lib/upload-memory.ts [megabytes=50] [pglite|postgres]
 *
 * Uploads `megabytes` of Markdown with POST /submissions/upload?buildIndex=false (the plan's file
 * limit raised, as Team Pro has it), the body streamed in 64 KB pieces from this process (so the
 * sender holds no copy), and prints one JSON line: RSS before, the peak while it is stored, after,
 * and after a GC. PostgreSQL is DATABASE_URL or the bench database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../server/app.js';
import { loadConfig } from '../../server/core/config.js';
import { listen } from './server.js';
import { benchDatabaseUrl } from './database.js';

const megabytes = Number(process.argv[2] ?? 50);
const kind = process.argv[3] ?? 'pglite';
const dataDir = mkdtempSync(join(tmpdir(), 'fw-upload-memory-'));
const mb = (bytes: number) => Math.round(bytes / 1e6);
const password = 'upload-memory-bench-password';
const config = loadConfig({
  ...process.env,
  ...(kind === 'pglite' ? { DATABASE_URL: undefined, DATA_DIR: dataDir } : { DATABASE_URL: process.env.DATABASE_URL ?? benchDatabaseUrl() }),
  LOG_LEVEL: 'warn',
  ADMIN_DIST: 'dist/no-admin-in-bench',
  FIREWATCH_ADMIN_EMAIL: 'bench@example.com',
  FIREWATCH_ADMIN_PASSWORD: password,
  AI_LIMITS: JSON.stringify({ free: { max_file_bytes: (megabytes + 10) * 1e6, files_per_project: 1000 } }),
});
const app = await buildApp({ config });
try {
  const base = `${await listen(app)}/api/v1/default`;
  const json = async (path: string, init: RequestInit & { token?: string } = {}) => {
    const res = await fetch(`${base}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    });
    return (await res.json()) as Record<string, any>;
  };
  const { token } = await json('/auth/login', { method: 'POST', body: JSON.stringify({ email: 'bench@example.com', password }) });
  const project = await json('/projects', { method: 'POST', token, body: JSON.stringify({ name: `Upload memory ${Date.now()}` }) });
  const line = Buffer.from('Promote the replica with pg_ctl promote, then repoint the application to the new primary and watch the error rate.\n');
  const piece = Buffer.concat(Array.from({ length: Math.ceil(65536 / line.length) }, () => line)).subarray(0, 65536);
  const pieces = Math.ceil((megabytes * 1e6) / piece.length);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ < pieces) controller.enqueue(piece);
      else controller.close();
    },
  });
  global.gc?.();
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
  const started = performance.now();
  const res = await fetch(`${base}/submissions/upload?project_id=${project.id}&fileName=big.md&buildIndex=false`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'text/markdown' },
    body,
    duplex: 'half',
  } as RequestInit);
  const answer = await res.text();
  clearInterval(timer);
  const seconds = (performance.now() - started) / 1000;
  const after = process.memoryUsage.rss();
  global.gc?.();
  await new Promise((r) => setTimeout(r, 2000));
  const settled = process.memoryUsage.rss();
  console.log(
    JSON.stringify({
      kind,
      upload_mb: mb(pieces * piece.length),
      status: res.status,
      seconds: Number(seconds.toFixed(1)),
      rss_before_mb: mb(before),
      rss_peak_mb: mb(peak),
      rss_after_mb: mb(after),
      rss_after_gc_mb: mb(settled),
      ...(res.status !== 201 ? { answer: answer.slice(0, 300) } : {}),
    }),
  );
} finally {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}
