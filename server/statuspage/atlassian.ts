import { jsonOf } from '../plugins/outside.js';
import type { LoadedPlugin } from '../plugins/registry.js';
import type { Component, StatusUpdate } from './capabilities.js';
import { statuspageFetch } from './http.js';

/** Statuspage's refusal in words: its body is {"error": "..."} or {"error": ["..."]} or {"message": "..."}. */
function words(status: number, body: unknown) {
  const b = (body ?? {}) as { error?: string | string[]; message?: string };
  const said = [b.error ?? [], b.message ?? []].flat().join('; ') || String(body ?? '').slice(0, 200);
  if (status === 401) return `Statuspage refused the API key (401): ${said}. Check the key in the plugin settings.`;
  if (status === 403)
    return `The Statuspage API key may not do this (403): ${said}. Its user needs the page role that creates incidents (Incident Manager or above).`;
  if (status === 404) return `Statuspage found no such page or incident (404): ${said}. Check the page id.`;
  return `Statuspage answered ${status}: ${said}`;
}

async function call<T>(plugin: LoadedPlugin, method: string, path: string, body?: unknown): Promise<T> {
  const base = String(plugin.config.api_url ?? 'https://api.statuspage.io/v1').replace(/\/+$/, '');
  const res = await statuspageFetch(plugin.outbound, `${base}/pages/${encodeURIComponent(String(plugin.config.page_id))}${path}`, {
    method,
    headers: { authorization: `OAuth ${String(plugin.config.api_key)}`, 'content-type': 'application/json', accept: 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return jsonOf<T>(res, words);
}

const incidentBody = (u: Partial<StatusUpdate>) => ({
  incident: {
    ...(u.name ? { name: u.name } : {}),
    ...(u.status ? { status: u.status } : {}),
    body: u.body,
    component_ids: Object.keys(u.components ?? {}),
    components: u.components ?? {},
  },
});

export const listComponents = async (plugin: LoadedPlugin) =>
  (await call<Component[]>(plugin, 'GET', '/components')).map(({ id, name, status }) => ({ id, name, status }));

export async function postIncident(plugin: LoadedPlugin, u: StatusUpdate) {
  const made = await call<{ id: string; shortlink?: string }>(plugin, 'POST', '/incidents', {
    incident: { ...incidentBody(u).incident, deliver_notifications: plugin.config.deliver_notifications !== false },
  });
  return { id: made.id, weblink: made.shortlink ?? `${String(plugin.config.page_url ?? '').replace(/\/+$/, '')}/incidents/${made.id}` };
}

export const updateIncident = async (plugin: LoadedPlugin, id: string, u: Partial<StatusUpdate>) =>
  void (await call(plugin, 'PATCH', `/incidents/${encodeURIComponent(id)}`, incidentBody(u)));
