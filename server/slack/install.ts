import { createHmac, timingSafeEqual } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { httpError } from '../core/errors.js';
import { may, type RequestContext } from '../core/context.js';
import { callerEmail } from '../core/caller.js';
import { loadPlugin, type LoadedPlugin } from '../plugins/registry.js';
import { pluginInstances } from '../plugins/tables.js';
import { encryptSecret, SECRET_MASK } from '../plugins/secrets.js';
import { recordPluginEvent } from '../plugins/runtime.js';
import { callSlack, slackClient } from './client.js';
import { BOT_SCOPES, slackUrls } from './manifest.js';
import { slackInstallations } from './tables.js';

const STATE_TTL_MS = 10 * 60_000;
const sign = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest('base64url');

/** The instance of the Slack app that the caller may install (Admins and above). */
export async function slackInstance(ctx: RequestContext, instanceId: number): Promise<LoadedPlugin> {
  if (!may(ctx.role, 'editOrganization')) throw httpError(403, 'Only Admins and above may connect Slack.', 'forbidden');
  const plugin = await loadPlugin(ctx, instanceId);
  if (!plugin || plugin.slug !== 'slack-app')
    throw httpError(404, `Slack app instance ${instanceId} could not be found.`, 'not_found', ['body', 'plugin_instance_id']);
  return plugin;
}

/**
 * Slack's "Add to Slack" address for an instance. The state names the instance and expires in ten
 * minutes; it is signed with the instance's client secret, so only this server could have made it.
 */
export async function installLink(ctx: RequestContext, instanceId: number, publicUrl: string, authorizeUrl: string) {
  const plugin = await slackInstance(ctx, instanceId);
  const payload = Buffer.from(JSON.stringify({ i: plugin.id, u: await callerEmail(ctx), e: Date.now() + STATE_TTL_MS })).toString('base64url');
  const state = `${payload}.${sign(String(plugin.config.client_secret), payload)}`;
  const url = new URL(authorizeUrl);
  url.searchParams.set('client_id', String(plugin.config.client_id));
  url.searchParams.set('scope', Object.keys(BOT_SCOPES).join(','));
  url.searchParams.set('redirect_uri', slackUrls(publicUrl, ctx.orgSlug).redirect);
  url.searchParams.set('state', state);
  return url.toString();
}

/** The instance a callback's state names, once its signature and age are checked. */
async function instanceOfState(ctx: RequestContext, state: string) {
  const [payload, mac] = state.split('.');
  const bad = () => httpError(400, 'This Slack install link is not valid or has expired; start again from Settings.', 'invalid_state', ['query', 'state']);
  let data: { i?: number; u?: string | null; e?: number };
  try {
    data = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const plugin = typeof data.i === 'number' ? await loadPlugin(ctx, data.i) : null;
  if (!plugin || plugin.slug !== 'slack-app' || !mac) throw bad();
  const expected = Buffer.from(sign(String(plugin.config.client_secret), payload!));
  if (expected.length !== Buffer.from(mac).length || !timingSafeEqual(expected, Buffer.from(mac)) || !data.e || data.e < Date.now()) throw bad();
  return { plugin, installedBy: data.u ?? null };
}

interface OAuthAccess {
  access_token: string;
  bot_user_id: string;
  app_id: string;
  scope: string;
  team: { id: string; name: string } | null;
  enterprise: { id: string } | null;
}

/**
 * The OAuth v2 callback: exchanges the code (oauth.v2.access with the client id and secret), seals
 * the bot token into the instance and records the workspace: one installation per organization and
 * workspace (installing again replaces the token).
 */
export async function completeInstall(ctx: RequestContext, q: { code: string; state: string }, publicUrl: string, apiUrl: string) {
  const { plugin, installedBy } = await instanceOfState(ctx, q.state);
  const access = await callSlack<OAuthAccess>(slackClient(apiUrl), 'oauth.v2.access', {
    client_id: plugin.config.client_id,
    client_secret: plugin.config.client_secret,
    code: q.code,
    redirect_uri: slackUrls(publicUrl, ctx.orgSlug).redirect,
  });
  const team = access.team ?? { id: access.enterprise!.id, name: 'Enterprise' };
  await ctx.tx
    .update(pluginInstances)
    .set({
      enabled: true,
      secrets: sql`${pluginInstances.secrets} || ${JSON.stringify({ bot_token: encryptSecret(ctx.system, access.access_token) })}::jsonb`,
      configuration: sql`${pluginInstances.configuration} || ${JSON.stringify({ bot_token: SECRET_MASK, team_id: team.id })}::jsonb`,
      updated_at: sql`now()`,
    })
    .where(and(eq(pluginInstances.organization_id, ctx.orgId), eq(pluginInstances.id, plugin.id)));
  const values = {
    plugin_instance_id: plugin.id,
    team_name: team.name,
    enterprise_id: access.enterprise?.id ?? null,
    app_id: access.app_id,
    bot_user_id: access.bot_user_id,
    scopes: access.scope.split(','),
    installed_by: installedBy,
    uninstalled_at: null,
    last_error: null,
    updated_at: sql`now()`,
  };
  await ctx.tx
    .insert(slackInstallations)
    .values({ organization_id: ctx.orgId, team_id: team.id, ...values })
    .onConflictDoUpdate({ target: [slackInstallations.organization_id, slackInstallations.team_id], set: values });
  await recordPluginEvent(ctx, plugin, { name: 'Installed in Slack', description: `Workspace ${team.name} (${team.id}) by ${installedBy ?? 'someone'}` });
  return team;
}

/**
 * app_uninstalled or tokens_revoked: the token is dropped and the instance switched off, so nothing
 * calls Slack with it again; the installation stays listed as uninstalled.
 */
export async function uninstall(ctx: RequestContext, installation: typeof slackInstallations.$inferSelect, reason: string) {
  if (installation.uninstalled_at) return;
  await ctx.tx
    .update(slackInstallations)
    .set({ uninstalled_at: sql`now()`, updated_at: sql`now()` })
    .where(and(eq(slackInstallations.organization_id, ctx.orgId), eq(slackInstallations.id, installation.id)));
  await ctx.tx
    .update(pluginInstances)
    .set({
      enabled: false,
      secrets: sql`${pluginInstances.secrets} - 'bot_token'`,
      configuration: sql`${pluginInstances.configuration} - 'bot_token'`,
      updated_at: sql`now()`,
    })
    .where(and(eq(pluginInstances.organization_id, ctx.orgId), eq(pluginInstances.id, installation.plugin_instance_id)));
  await recordPluginEvent(ctx, { id: installation.plugin_instance_id, slug: 'slack-app' }, { name: 'Uninstalled from Slack', description: reason });
}
