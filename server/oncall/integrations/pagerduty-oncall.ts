import { definePlugin, type LoadedPlugin } from '../../plugins/registry.js';
import { oncallFetch, type OutboundRequest } from '../outbound.js';
import '../capabilities.js';

/** PagerDuty REST API v2 for teams that stay on PagerDuty: who is on call, and paging (services of type `pagerduty-oncall`). */
const PAGE_SIZE = 25;

function call(plugin: LoadedPlugin, path: string, req: OutboundRequest & { from?: boolean } = {}) {
  const base = String(plugin.config.api_url || 'https://api.pagerduty.com').replace(/\/+$/, '');
  return oncallFetch(plugin.outbound, base + path, {
    ...req,
    headers: {
      authorization: `Token token=${String(plugin.config.api_key)}`,
      accept: 'application/vnd.pagerduty+json;version=2',
      'content-type': 'application/json',
      // Required with account-level tokens on writes: the PagerDuty user the change is made as.
      ...(req.from ? { from: String(plugin.config.from_email) } : {}),
    },
  });
}

/** The service's escalation policy, then its on-calls at `at`, every page of them, users included. */
async function whoIsOnCall(plugin: LoadedPlugin, serviceId: string, at: Date) {
  const service = (await call(plugin, `/services/${encodeURIComponent(serviceId)}`)).json<{ service: { escalation_policy: { id: string } } }>();
  const policy = service.service.escalation_policy.id;
  const until = new Date(at.getTime() + 1000).toISOString();
  const out: { email: string; level: number; until: string | null }[] = [];
  for (let offset = 0; ; offset += PAGE_SIZE) {
    const q = new URLSearchParams({ 'include[]': 'users', 'escalation_policy_ids[]': policy, since: at.toISOString(), until, earliest: 'true' });
    q.set('offset', String(offset));
    q.set('limit', String(PAGE_SIZE));
    const page = (await call(plugin, `/oncalls?${q}`)).json<{
      oncalls: { user: { email?: string }; escalation_level: number; end: string | null }[];
      more: boolean;
    }>();
    for (const o of page.oncalls) if (o.user.email) out.push({ email: o.user.email.toLowerCase(), level: o.escalation_level, until: o.end });
    if (!page.more) break;
  }
  return out.sort((a, b) => a.level - b.level);
}

export default definePlugin({
  slug: 'pagerduty-oncall',
  type: 'oncall',
  title: 'PagerDuty',
  description: 'Who is on call and paging through PagerDuty (services of type pagerduty-oncall, external_id = the PagerDuty service id).',
  configuration_schema: {
    type: 'object',
    properties: {
      api_key: { type: 'string', writeOnly: true, title: 'REST API key' },
      from_email: { type: 'string', format: 'email', title: 'From (a PagerDuty user e-mail)' },
      api_url: { type: 'string', format: 'uri', default: 'https://api.pagerduty.com', title: 'API URL (EU: https://api.eu.pagerduty.com)' },
    },
    required: ['api_key', 'from_email'],
    additionalProperties: false,
  },
  implements: {
    async who_is_on_call(plugin, { service }) {
      if (!service.external_id) return [];
      return whoIsOnCall(plugin, service.external_id, new Date());
    },
    async page(plugin, page) {
      if (!page.service?.external_id) throw new Error(`Service '${page.service?.name ?? '?'}' has no PagerDuty service id (external_id).`);
      const body = {
        incident: {
          type: 'incident',
          title: page.title,
          service: { id: page.service.external_id, type: 'service_reference' },
          urgency: 'high',
          incident_key: page.key,
          body: { type: 'incident_body', details: page.details ?? page.title },
        },
      };
      const res = await call(plugin, '/incidents', { method: 'POST', from: true, body: JSON.stringify(body), accept: [400] });
      if (res.status !== 400) return { external_id: res.json<{ incident: { id: string } }>().incident.id };
      // An open incident with this key already exists (a retry after a lost answer): that one is ours.
      const found = (await call(plugin, `/incidents?${new URLSearchParams({ incident_key: page.key })}`)).json<{ incidents: { id: string }[] }>();
      if (!found.incidents[0]) throw new Error(`PagerDuty refused the incident: ${res.text.slice(0, 300)}`);
      return { external_id: found.incidents[0].id };
    },
    async resolve_page(plugin, page) {
      await call(plugin, `/incidents/${encodeURIComponent(page.external_id!)}`, {
        method: 'PUT',
        from: true,
        body: JSON.stringify({ incident: { type: 'incident_reference', status: 'resolved' } }),
      });
    },
  },
});
