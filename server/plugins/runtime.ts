import { and, eq } from 'drizzle-orm';
import { pluginEvents, pluginInstances } from './tables.js';
import { pluginBySlug, secretKeysOf } from './catalog.js';
import { decryptSecret } from './secrets.js';
import type { RequestContext } from '../core/context.js';

export interface LoadedPlugin {
  id: number;
  slug: string;
  title: string;
  enabled: boolean;
  /** Plain values and opened secrets: never sent to a client. */
  config: Record<string, unknown>;
}

export async function loadPlugin(ctx: RequestContext, id: number): Promise<LoadedPlugin | null> {
  const [row] = await ctx.tx
    .select()
    .from(pluginInstances)
    .where(and(eq(pluginInstances.organization_id, ctx.orgId), eq(pluginInstances.id, id)));
  if (!row) return null;
  const plugin = pluginBySlug(row.plugin_slug);
  const config: Record<string, unknown> = { ...row.configuration };
  for (const key of plugin ? secretKeysOf(plugin) : []) if (row.secrets[key] !== undefined) config[key] = decryptSecret(ctx.system, row.secrets[key]);
  return { id: row.id, slug: row.plugin_slug, title: row.title, enabled: row.enabled, config };
}

export async function recordPluginEvent(
  ctx: RequestContext,
  plugin: Pick<LoadedPlugin, 'id' | 'slug'>,
  e: {
    name: string;
    description?: string;
    incident_id?: number | null;
    case_id?: number | null;
    workflow_instance_id?: number | null;
    details?: Record<string, unknown>;
  },
) {
  await ctx.tx.insert(pluginEvents).values({ organization_id: ctx.orgId, plugin_instance_id: plugin.id, plugin_slug: plugin.slug, ...e });
}

const TIMEOUT_MS = 10_000;

async function post(url: string, body: unknown) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${url.replace(/\/\/.*@/, '//')} answered ${res.status}: ${text.slice(0, 200)}`);
  return text;
}

/** Posts a conversation message through a Slack-compatible or Teams webhook (outside any transaction). */
export async function sendMessage(plugin: LoadedPlugin, text: string) {
  const url = String(plugin.config.webhook_url);
  if (plugin.slug === 'slack-webhook') return post(url, { text, username: plugin.config.username || 'Firewatch' });
  if (plugin.slug === 'teams-webhook') {
    return post(url, {
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            body: [{ type: 'TextBlock', text, wrap: true }],
          },
        },
      ],
    });
  }
  throw new Error(`Plugin '${plugin.title}' (${plugin.slug}) cannot send messages.`);
}
