import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { systemActor } from '../core/context.js';
import { httpError } from '../core/errors.js';
import { inTenant, runInTenant } from '../core/tenancy.js';
import { answers, arrayOf, objectOf, str } from '../engine/answers.js';
import { loadPlugin, type LoadedPlugin } from '../plugins/registry.js';
import { pluginInstances } from '../plugins/tables.js';
import { acceptInbound, type InboundKind } from './inbound.js';
import { completeInstall, installLink } from './install.js';
import { BOT_SCOPES, renderManifest, slackUrls } from './manifest.js';
import { verifySignature } from './signature.js';
import { webPage } from './card.js';
import { slackInstallations } from './tables.js';

const tags = ['Slack'];
const pub = { access: 'public' as const };
const slackAnswer = answers(200, { type: 'object', additionalProperties: true });

/** The organization's Slack app instances, with their secrets opened (whichever is enabled). */
async function slackInstances(app: FastifyInstance, org: { orgId: number; orgSlug: string }): Promise<LoadedPlugin[]> {
  return runInTenant(app.db, app.config, systemActor(org), async (ctx) => {
    const rows = await ctx.tx
      .select({ id: pluginInstances.id })
      .from(pluginInstances)
      .where(and(eq(pluginInstances.organization_id, ctx.orgId), eq(pluginInstances.plugin_slug, 'slack-app')))
      .orderBy(asc(pluginInstances.id));
    return (await Promise.all(rows.map((r) => loadPlugin(ctx, r.id)))).filter((p): p is LoadedPlugin => !!p);
  });
}

/**
 * The instance whose signing secret signed this request: among the organization's Slack apps, those of
 * the body's workspace (or, before any install, all of them: url_verification names none).
 */
async function signedBy(req: FastifyRequest, teamId: string | undefined): Promise<LoadedPlugin> {
  const org = { orgId: req.org.id, orgSlug: req.org.slug };
  const all = await slackInstances(req.server, org);
  const ofTeam = all.filter((p) => teamId && p.config.team_id === teamId);
  const headers = {
    timestamp: req.headers['x-slack-request-timestamp'] as string | undefined,
    signature: req.headers['x-slack-signature'] as string | undefined,
  };
  let stale = false;
  for (const plugin of ofTeam.length ? ofTeam : all) {
    const verdict = verifySignature(String(plugin.config.signing_secret ?? ''), headers, String(req.body ?? ''));
    if (verdict === 'ok') return plugin;
    stale ||= verdict === 'stale';
  }
  if (stale)
    throw httpError(401, 'This Slack request is more than 5 minutes old (a replay, or a clock far off): refused.', 'stale_request', [
      'header',
      'x-slack-request-timestamp',
    ]);
  throw httpError(
    401,
    all.length
      ? 'The Slack signature does not match: paste the Signing Secret from the Slack app’s Basic Information page into the Slack app instance in Settings.'
      : 'No Slack app is configured in this organization: add one in Settings → Slack first.',
    'invalid_signature',
    ['header', 'x-slack-signature'],
  );
}

/** Slack's three deliveries: the raw body is kept for the signature, then parsed. */
function registerInbound(scope: FastifyInstance) {
  scope.addContentTypeParser(['application/json', 'application/x-www-form-urlencoded'], { parseAs: 'string' }, (_req, body, done) => done(null, body));
  const org = (req: FastifyRequest) => ({ orgId: req.org.id, orgSlug: req.org.slug });
  const form = (req: FastifyRequest) => Object.fromEntries(new URLSearchParams(String(req.body ?? '')));
  const parseJson = (text: string) => {
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw httpError(400, 'The body is not JSON.', 'invalid_json', ['body']);
    }
  };

  scope.post('/slack/events', { config: pub, schema: { tags, summary: 'Slack Events API (signed v0)', ...slackAnswer } }, async (req) => {
    const body = parseJson(String(req.body ?? ''));
    const plugin = await signedBy(req, body.team_id as string | undefined);
    if (body.type === 'url_verification') return { challenge: body.challenge };
    if (body.type !== 'event_callback') return {};
    await acceptInbound(req.server, org(req), plugin, 'event', body);
    return {};
  });
  const deliveries: [string, InboundKind, string][] = [
    ['/slack/commands', 'command', 'Slack slash command (signed v0)'],
    ['/slack/interactions', 'interaction', 'Slack interactivity: dialogs and buttons (signed v0)'],
  ];
  for (const [path, kind, summary] of deliveries)
    scope.post(path, { config: pub, schema: { tags, summary, ...slackAnswer } }, async (req, reply) => {
      const fields = form(req);
      const body = kind === 'command' ? fields : parseJson(fields.payload ?? '');
      const team = kind === 'command' ? fields.team_id : (body.team as { id?: string } | undefined)?.id;
      const plugin = await signedBy(req, team);
      const answer = await acceptInbound(req.server, org(req), plugin, kind, body);
      return answer ? answer : reply.status(200).send('');
    });
}

/** Settings: the manifest, the install link, the OAuth callback, and the installations' health. */
function registerSetup(scope: FastifyInstance, onInstalled: () => Promise<void>) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/slack/manifest',
    {
      schema: {
        tags,
        summary: 'The Slack app manifest for this organization, and its URLs and scopes',
        querystring: z.object({ mode: z.enum(['events', 'socket']).default('events') }),
        ...answers(200, objectOf({ manifest: str, urls: { type: 'object', additionalProperties: true }, scopes: arrayOf(objectOf({ scope: str, why: str })) })),
      },
    },
    async (req) => ({
      manifest: renderManifest({ publicUrl: scope.config.PUBLIC_URL, org: req.org.slug, socket: req.query.mode === 'socket' }),
      urls: slackUrls(scope.config.PUBLIC_URL, req.org.slug),
      scopes: Object.entries(BOT_SCOPES).map(([scope, why]) => ({ scope, why })),
    }),
  );
  app.post(
    '/slack/install-link',
    {
      schema: {
        tags,
        summary: '"Add to Slack": where to send the browser',
        body: z.strictObject({ plugin_instance_id: z.number().int() }),
        ...answers(200, objectOf({ url: str })),
      },
    },
    async (req) => ({
      url: await inTenant(req, (ctx) => installLink(ctx, req.body.plugin_instance_id, scope.config.PUBLIC_URL, scope.config.SLACK_AUTHORIZE_URL)),
    }),
  );
  app.get(
    '/slack/oauth/callback',
    {
      config: pub,
      schema: {
        tags,
        summary: 'Slack\'s OAuth v2 redirect after "Add to Slack"',
        querystring: z.object({ code: z.string().optional(), state: z.string().default(''), error: z.string().optional() }),
        ...answers(302, null),
      },
    },
    async (req, reply) => {
      const back = webPage(scope.config.PUBLIC_URL, req.org.slug, 'admin/slack');
      if (req.query.error || !req.query.code) return reply.redirect(`${back}?error=${encodeURIComponent(req.query.error ?? 'no_code')}`);
      const { code, state } = req.query;
      const team = await runInTenant(scope.db, scope.config, systemActor({ orgId: req.org.id, orgSlug: req.org.slug }), (ctx) =>
        completeInstall(ctx, { code, state }, scope.config.PUBLIC_URL, scope.config.SLACK_API_URL),
      );
      // A Socket Mode app connects from this process now, not at the next reconcile.
      await onInstalled().catch((err) => req.log.warn({ err }, 'slack sockets not reconciled'));
      return reply.redirect(`${back}?installed=${encodeURIComponent(team.name)}`);
    },
  );
  app.get('/slack/installations', { schema: { tags, summary: 'Installed Slack workspaces and their health', ...slackAnswer } }, (req) =>
    inTenant(
      req,
      async (ctx) => {
        const rows = await ctx.tx
          .select()
          .from(slackInstallations)
          .where(eq(slackInstallations.organization_id, ctx.orgId))
          .orderBy(asc(slackInstallations.id));
        // An error since the last call that went through is the health; one followed by success is history.
        const failing = (r: (typeof rows)[number]) => !!r.last_error && (!r.last_ok_at || new Date(r.last_error.at) > r.last_ok_at);
        return { items: rows.map((r) => ({ ...r, health: r.uninstalled_at ? 'uninstalled' : failing(r) ? 'error' : 'ok' })) };
      },
      { readOnly: true },
    ),
  );
}

export async function registerSlackRoutes(scope: FastifyInstance, onInstalled: () => Promise<void>) {
  await scope.register(async (child) => registerInbound(child));
  registerSetup(scope, onInstalled);
}
