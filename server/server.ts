import { buildApp } from './app.js';
import { loadConfig } from './config.js';

const config = loadConfig();
const app = await buildApp({ config });

// SIGTERM/SIGINT: stop accepting, let in-flight requests finish, then close the database.
let closing = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, async () => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 30_000).unref();
    await app.close();
    clearTimeout(force);
    process.exit(0);
  });
}

await app.listen({ port: config.PORT, host: config.HOST });
