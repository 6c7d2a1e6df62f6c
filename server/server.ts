import { buildApp } from './app.js';
import { loadConfig } from './core/config.js';

const config = loadConfig();
const app = await buildApp({ config });

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
