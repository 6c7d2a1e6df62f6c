import { pluginEvents } from './tables.js';
import type { LoadedPlugin } from './registry.js';
import type { RequestContext } from '../core/context.js';
import type { Config } from '../core/config.js';
import { originOf, outboundFailure, outboundFetch } from '../core/http/outbound.js';

export type { LoadedPlugin } from './registry.js';
export { loadPlugin } from './registry.js';

declare module './registry.js' {
  interface Capabilities {
    /** Posts a message where the instance points (a channel, a webhook); outside any transaction. */
    send_message: (plugin: LoadedPlugin, message: { text: string }) => Promise<void>;
  }
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

/** POSTs JSON through core's outbound policy; a failure names the origin (the path is the secret) and the status, never the answer's body. */
export async function postJson(policy: Pick<Config, 'OUTBOUND_ALLOW'>, url: string, body: unknown) {
  const res = await outboundFetch(policy, url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  }).catch((err) => {
    throw new Error(`${originOf(url)}: ${outboundFailure(err)}`);
  });
  await res.body?.cancel();
  if (!res.ok) throw new Error(`${originOf(url)} answered ${res.status}`);
}
