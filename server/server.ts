import { loadConfig } from './core/config.js';
import { prepareFolder } from './core/db/pglite-template.js';

const config = loadConfig();
// A new embedded data folder is set up (a child process, most of a first start) while the app's
// modules load, seconds of their own: started before they are imported; openDatabase awaits the same
// setup (and reports its error: here it is only started).
if (!config.DATABASE_URL) prepareFolder(config.DATA_DIR).catch(() => {});
const [{ buildApp }, { runDemo }] = await Promise.all([import('./app.js'), import('./demo/demo.js')]);
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
