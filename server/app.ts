import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import fastifyJwt from '@fastify/jwt';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { registerAiScope, registerAiWorkspace } from './ai/plugin.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/client.js';
import { registerAppJobs } from './jobs/app-jobs.js';
import { registerErrorHandling, httpError } from './errors.js';
import { registerTenancy } from './plugins/tenancy.js';
import { resources } from './resources/index.js';
import { registerAuthRoutes } from './routes/auth.js';
import { registerCatalogRoutes } from './routes/catalog.js';
import { registerCrud } from './routes/crud.js';
import { registerMetaRoutes } from './routes/meta.js';
import { registerProjectRoutes } from './routes/projects.js';
import { registerCaseRoutes } from './routes/cases.js';
import { registerIncidentRoutes } from './routes/incidents.js';
import { registerTaskRoutes } from './routes/tasks.js';
import { ensureDefaults, jwtSecret } from './services/auth.js';
import { createMailer, type Mailer } from './services/mail.js';

export interface AppOptions {
  config: Config;
  /** An already open database (tests share one); otherwise opened from the config and closed with the app. */
  database?: Database;
  /** Replaces the SMTP/log mailer. */
  mailer?: Mailer;
  logger?: boolean;
}

/** Builds the whole Fastify app (API, docs, admin files) without listening. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const app = Fastify({
    logger: options.logger === false ? false : { level: config.LOG_LEVEL, redact: ['req.headers.authorization'] },
    bodyLimit: config.BODY_LIMIT,
    trustProxy: true,
    return503OnClosing: true,
  });
  const database = options.database ?? (await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR }));
  if (!options.database) app.addHook('onClose', () => database.close());
  app.decorate('db', database.db);
  app.decorate('config', config);
  await registerAiWorkspace(app, database);

  // While shutting down, answers close their connection: a keep-alive socket that was busy when
  // close() began would otherwise hold the process open after its request finished.
  let closing = false;
  app.addHook('preClose', async () => void (closing = true));
  app.addHook('onSend', async (_req, reply) => void (closing && reply.header('connection', 'close')));

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);

  const secret = await jwtSecret(database.db, config.JWT_SECRET);
  // Verified tokens are remembered (fast-jwt's LRU, keyed by a hash of the token, each entry no longer
  // than the token's own expiry): checking the signature was about 4% of a list request's CPU.
  await app.register(fastifyJwt, { secret, verify: { cache: 1000 } });
  await ensureDefaults(database.db, { adminEmail: config.FIREWATCH_ADMIN_EMAIL, adminPassword: config.FIREWATCH_ADMIN_PASSWORD, trialDays: config.TRIAL_DAYS });
  const mailer = options.mailer ?? createMailer(config.SMTP_URL, config.MAIL_FROM, app.log);
  await registerAppJobs(app, { mailer });

  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Firewatch API', version: '1' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/v1/docs' });

  app.get('/api/v1/healthcheck', { schema: { hide: true } }, async () => ({ status: 'ok', database: database.kind }));

  await app.register(
    async (scope) => {
      registerTenancy(scope);
      registerAuthRoutes(scope, { mailer, secret });
      registerProjectRoutes(scope);
      registerMetaRoutes(scope, resources);
      for (const def of resources) registerCrud(scope, def);
      registerAiScope(scope);
      registerCatalogRoutes(scope, resources);
      registerIncidentRoutes(scope, { mailer });
      registerCaseRoutes(scope);
      registerTaskRoutes(scope, { mailer });
    },
    { prefix: '/api/v1/:organization' },
  );

  const adminRoot = resolve(config.ADMIN_DIST);
  const hasAdmin = existsSync(resolve(adminRoot, 'index.html'));
  if (hasAdmin) await app.register(fastifyStatic, { root: adminRoot, wildcard: false });
  app.setNotFoundHandler((req, reply) => {
    if (req.method === 'GET' && !req.url.startsWith('/api/') && hasAdmin) return reply.sendFile('index.html');
    const { statusCode, detail } = httpError(404, `Nothing at ${req.method} ${req.url.split('?')[0]}.`, 'not_found');
    return reply.status(statusCode).send({ detail });
  });
  return app;
}
