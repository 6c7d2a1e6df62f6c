import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import fastifyJwt from '@fastify/jwt';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Config } from './core/config.js';
import { openDatabase, type Database } from './core/db/client.js';
import { clientErrorHandler, frameworkErrors, registerErrorHandling, httpError } from './core/errors.js';
import { refuseNul } from './core/input.js';
import { jsonScanOf, registerJsonLimits } from './core/json-limits.js';
import { jobsPlugin } from './core/jobs/plugin.js';
import { tenancyPlugin, rewriteCallersOrganization } from './core/tenancy.js';
import { createMailer, type Mailer } from './core/mail.js';
import { registerDrain } from './core/http/drain.js';
import { registerHealth } from './core/http/health.js';
import { registerMetrics } from './core/http/metrics.js';
import { requestIdOptions, registerRequestId } from './core/http/request-id.js';
import { registerSecurityHeaders } from './core/http/security.js';
import { serializeRequest } from './core/redact.js';
import { documentResponses } from './engine/answers.js';
import { resourcesPlugin } from './engine/plugin.js';
import { resources } from './resources.js';
import { livePlugin } from './live/plugin.js';
import { secretsPlugin } from './plugins/secrets.js';
import { discoverPlugins } from './plugins/registry.js';
import { setupOidc, type OidcProviders } from './accounts/oidc.js';
import { ensureDefaults, jwtSecret } from './accounts/service.js';
import { registerOrganizationSeed } from './core/seeds.js';
import { registerStripeWebhook } from './billing/routes.js';
import { incidentVisibility } from './incidents/scope.js';
import { caseVisibility } from './cases/scope.js';
import { seedDocumentTemplates } from './knowledge/seed.js';
import { seedIncidentSettings } from './incidents/seed.js';
import { seedCaseSettings } from './cases/seed.js';
import { seedTagTypes } from './tags/seed.js';
import { seedCostModel } from './cost-models/seed.js';
import accounts from './accounts/plugin.js';
import ai from './ai/plugin.js';
import billing from './billing/plugin.js';
import cases from './cases/plugin.js';
import incidents from './incidents/plugin.js';
import knowledge from './knowledge/plugin.js';
import feedback from './feedback/plugin.js';
import notifications from './notifications/plugin.js';
import oncall from './oncall/plugin.js';
import plugins from './plugins/plugin.js';
import projects from './projects/plugin.js';
import search from './search/plugin.js';
import signals from './signals/plugin.js';
import site from './site/plugin.js';
import tickets from './tickets/plugin.js';
import statuspage from './statuspage/plugin.js';
import commits from './commits/plugin.js';
import meetings from './meetings/plugin.js';
import slack from './slack/plugin.js';
import tasks from './tasks/plugin.js';
import timeline from './timeline/plugin.js';
import dashboards from './dashboards/plugin.js';
import webhooks from './webhooks/plugin.js';
import workflows from './workflows/plugin.js';

export interface AppOptions {
  config: Config;
  /** An already open database (tests share one); otherwise opened from the config and closed with the app. */
  database?: Database;
  /** Replaces the SMTP/log mailer. */
  mailer?: Mailer;
  logger?: boolean;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
}

/** Largest request line and headers, together (see createFastify). */
export const MAX_HEADER_BYTES = 96 * 1024;

/** Builds the whole Fastify app (API, docs, admin files) without listening. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const app = createFastify(options);
  registerRequestId(app);
  registerDrain(app);
  // Plugins are found in server/*/integrations/ (one file each); the catalog is read from here on.
  await discoverPlugins();
  const database = options.database ?? (await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR }));
  if (!options.database) app.addHook('onClose', () => database.close());
  app.decorate('db', database.db);
  app.decorate('database', database);
  app.decorate('config', config);
  await app.register(jobsPlugin, { database });
  await app.register(livePlugin, { database });

  // While shutting down, answers close their connection: a keep-alive socket that was busy when
  // close() began would otherwise hold the process open after its request finished.
  let closing = false;
  app.addHook('preClose', async () => void (closing = true));
  app.addHook('onSend', async (_req, reply) => void (closing && reply.header('connection', 'close')));

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  await registerSecurityHeaders(app);
  registerMetrics(app, database);
  refuseNulCharacters(app);

  const secret = await jwtSecret(database.db, config.JWT_SECRET);
  // Verified tokens are remembered (fast-jwt's LRU, keyed by a hash of the token, each entry no longer
  // than the token's own expiry): checking the signature was about 4% of a list request's CPU.
  // A token must expire and name its session (`sid`), so that signing out can end it.
  await app.register(fastifyJwt, { secret, verify: { cache: 1000, requiredClaims: ['exp', 'sid'] } });
  registerOrganizationSeeds();
  await ensureDefaults(database.db, { adminEmail: config.FIREWATCH_ADMIN_EMAIL, adminPassword: config.FIREWATCH_ADMIN_PASSWORD, trialDays: config.TRIAL_DAYS });
  const mailer = options.mailer ?? createMailer(config.SMTP_URL, config.MAIL_FROM, app.log);
  app.decorate('mailer', mailer);
  await app.register(secretsPlugin);

  await registerApiDocs(app);

  const oidc = await setupOidc(app, secret);

  app.get('/api/v1/healthcheck', { schema: { hide: true } }, async () => ({ status: 'ok', database: database.kind }));
  registerHealth(app, database);
  await registerStripeWebhook(app);

  await registerOrganizationApi(app, { secret, oidc });
  await serveAdmin(app, config);
  return app;
}

/** The Fastify instance with its server options: logging, limits, proxies and URL rewriting. */
function createFastify(options: AppOptions) {
  const { config } = options;
  return Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: config.LOG_LEVEL,
            redact: ['req.headers.authorization'],
            serializers: { req: serializeRequest as never },
            ...(options.logStream ? { stream: options.logStream } : {}),
          },
    bodyLimit: config.BODY_LIMIT,
    // Starting creates the job queues (a partition each in pg-boss); on a new database with another
    // process starting at once, that can take longer than Fastify's default 10 s.
    pluginTimeout: 60_000,
    // X-Forwarded-For is believed only from the proxies named in TRUST_PROXY; by default req.ip is the peer.
    trustProxy: config.TRUST_PROXY ? config.TRUST_PROXY.split(',').map((p) => p.trim()) : false,
    // registerDrain answers 503 in the API's error shape instead.
    return503OnClosing: false,
    rewriteUrl: (req) => rewriteCallersOrganization(req.url ?? '/'),
    ...requestIdOptions,
    // The request line and headers may take 96 KB (Node's default is 16 KB), so a filter of the
    // documented 20,000 characters fits in a URL even when every character is percent-encoded.
    http: { maxHeaderSize: MAX_HEADER_BYTES },
    clientErrorHandler,
    frameworkErrors,
  });
}

function refuseNulCharacters(app: FastifyInstance) {
  // PostgreSQL text cannot hold NUL: refused in the path and query before the organization is looked
  // up, and in the body before validation, so no route sends one to the database. A path or query
  // can only hold one written as %00 (Node refuses a raw NUL), so other URLs cost one scan.
  const nulCheck = (parts: () => Record<string, unknown>, done: (err?: Error) => void) => {
    try {
      refuseNul(parts());
      done();
    } catch (err) {
      done(err as Error);
    }
  };
  app.addHook('onRequest', (req, _reply, done) => (req.url.includes('%00') ? nulCheck(() => ({ path: req.params, query: req.query }), done) : done()));
  // A JSON body was scanned as it arrived (registerJsonLimits): its tree is walked only if the text holds `\u0000`.
  registerJsonLimits(app);
  app.addHook('preValidation', (req, _reply, done) =>
    req.body !== undefined && jsonScanOf(req)?.nul !== false ? nulCheck(() => ({ body: req.body }), done) : done(),
  );
}

function registerOrganizationSeeds() {
  // What every new organization starts with, each domain's part (accounts/seeds.ts runs them).
  for (const [name, seed] of [
    ['documents', seedDocumentTemplates],
    ['incidents', seedIncidentSettings],
    ['cases', seedCaseSettings],
    ['tags', seedTagTypes],
    ['cost-models', seedCostModel],
  ] as const)
    registerOrganizationSeed(name, seed);
}

/** OpenAPI from the route schemas, and its browsable page. */
async function registerApiDocs(app: FastifyInstance) {
  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Firewatch API', version: '1' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: (input) => documentResponses(jsonSchemaTransform(input as never) as never),
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/v1/docs' });
}

async function registerOrganizationApi(app: FastifyInstance, auth: { secret: string; oidc: OidcProviders }) {
  // Every feature under /api/v1/{organization} is a plugin that names what it needs loaded first.
  await app.register(
    async (scope) => {
      await scope.register(tenancyPlugin);
      await scope.register(accounts, auth);
      await scope.register(projects);
      await scope.register(resourcesPlugin, { resources, visibility: [incidentVisibility, caseVisibility] });
      await scope.register(ai);
      await scope.register(feedback);
      await scope.register(knowledge);
      await scope.register(incidents);
      await scope.register(cases);
      await scope.register(tasks);
      await scope.register(timeline);
      await scope.register(dashboards);
      await scope.register(plugins);
      await scope.register(workflows);
      await scope.register(signals);
      await scope.register(webhooks);
      await scope.register(search);
      await scope.register(billing);
      await scope.register(site);
      await scope.register(notifications);
      await scope.register(oncall);
      await scope.register(tickets);
      await scope.register(statuspage);
      await scope.register(commits);
      await scope.register(meetings);
      await scope.register(slack);
    },
    { prefix: '/api/v1/:organization' },
  );
}

/** The built admin app, when there is one; otherwise every unknown URL answers 404 in the API's shape. */
async function serveAdmin(app: FastifyInstance, config: Config) {
  const adminRoot = resolve(config.ADMIN_DIST);
  const hasAdmin = existsSync(resolve(adminRoot, 'index.html'));
  if (hasAdmin) await app.register(fastifyStatic, { root: adminRoot, wildcard: false });
  app.setNotFoundHandler((req, reply) => {
    if (req.method === 'GET' && !req.url.startsWith('/api/') && hasAdmin) return reply.sendFile('index.html');
    const { statusCode, detail } = httpError(404, `Nothing at ${req.method} ${req.url.split('?')[0]}.`, 'not_found');
    return reply.status(statusCode).send({ detail });
  });
}
