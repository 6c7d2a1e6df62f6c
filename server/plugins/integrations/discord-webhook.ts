import { definePlugin } from '../registry.js';
import { originOf, outboundFailure, RateLimited, rateLimitedFetch } from '../../core/http/outbound.js';

/** Discord refuses a message over 2,000 characters (400 "Invalid Form Body"): the end is cut instead. */
const MAX_CONTENT = 2000;

export default definePlugin({
  slug: 'discord-webhook',
  type: 'conversation',
  title: 'Discord webhook',
  description: "Posts messages to a Discord channel through the channel's webhook (Server settings → Integrations → Webhooks).",
  configuration_schema: {
    type: 'object',
    properties: { webhook_url: { type: 'string', format: 'uri', writeOnly: true, title: 'Webhook URL' } },
    required: ['webhook_url'],
    additionalProperties: false,
  },
  implements: {
    async send_message(plugin, { text }) {
      const url = String(plugin.config.webhook_url);
      const content = text.length > MAX_CONTENT ? `${text.slice(0, MAX_CONTENT - 1)}…` : text;
      // Incident text must not ping @everyone or a role: no mention is parsed.
      const body = JSON.stringify({ content, allowed_mentions: { parse: [] } });
      // Discord's per-webhook limit answers 429 with a wait of a second or two: waited here once.
      const res = await rateLimitedFetch(
        plugin.outbound,
        url,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body },
        { service: 'Discord', waitInPlaceUpTo: 5, attempts: 2, timeoutMs: 10_000 },
      ).catch((err) => {
        throw err instanceof RateLimited ? err : new Error(`${originOf(url)}: ${outboundFailure(err)}`);
      });
      await res.body?.cancel();
      if (!res.ok) throw new Error(`${originOf(url)} answered ${res.status}`);
    },
  },
});
