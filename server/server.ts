import { buildApp } from './app.js';
import { loadConfig } from './core/config.js';
import { runDemo } from './demo/demo.js';

const config = loadConfig();
const app = await buildApp({ config });

// --demo fills `default` with a made-up quarter of work first (once; see server/demo); --demo-only then exits.
const demoOnly = process.argv.includes('--demo-only');
if (demoOnly || process.argv.includes('--demo')) {
  const started = Date.now();
  const result = await runDemo(app.db, { organization: process.env.DEMO_ORGANIZATION || 'default' });
  app.log.info({ ...result, ms: Date.now() - started }, result.loaded ? 'demo data loaded' : 'demo data was already loaded');
  if (demoOnly) {
    await app.close();
    process.exit(0);
  }
}

// SIGTERM/SIGINT: answer new requests 503 for a short grace (a request sent on an idle keep-alive
// connection gets an answer, not a reset), let in-flight requests finish, then close the database.
let closing = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, async () => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 30_000).unref();
    await app.drain(config.SHUTDOWN_GRACE_SECONDS * 1000);
    await app.close();
    clearTimeout(force);
    process.exit(0);
  });
}

await app.listen({ port: config.PORT, host: config.HOST });
