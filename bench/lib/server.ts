import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app.js';
import { loadConfig } from '../../server/core/config.js';

/** Listens on an ephemeral loopback port; returns the base URL. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/**
 * The real Firewatch app (buildApp, every plugin, the pool size users get) on the bench database,
 * listening on 127.0.0.1. Request logging is off, as a benchmarked production box would run with
 * LOG_LEVEL=warn; set BENCH_LOG_LEVEL=info to measure with access logs on.
 */
export async function startApp(databaseUrl: string): Promise<{ app: FastifyInstance; baseUrl: string }> {
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    ADMIN_DIST: 'dist/no-admin-in-bench',
    // The suites' receivers (webhooks, pages) listen on 127.0.0.1.
    OUTBOUND_ALLOW: process.env.OUTBOUND_ALLOW ?? '127.0.0.0/8',
  });
  const app = await buildApp({ config });
  const baseUrl = await listen(app);
  return { app, baseUrl };
}
