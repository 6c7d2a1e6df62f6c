import { definePlugin } from '../../plugins/registry.js';
import { oncallFetch } from '../outbound.js';
import '../capabilities.js';

/** HTTP headers carry Latin-1 only: other text goes RFC 2047-encoded, which ntfy decodes. */
const header = (text: string) => (/^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text).toString('base64')}?=`);

export default definePlugin({
  slug: 'ntfy',
  type: 'oncall-channel',
  title: 'ntfy push',
  description: 'Push notifications through ntfy (ntfy.sh or your own server): each person subscribes to their own topic.',
  configuration_schema: {
    type: 'object',
    properties: {
      server_url: { type: 'string', format: 'uri', default: 'https://ntfy.sh', title: 'Server URL' },
      access_token: { type: 'string', writeOnly: true, title: 'Access token (for a protected server)' },
    },
    additionalProperties: false,
  },
  implements: {
    async send_push(plugin, m) {
      const base = String(plugin.config.server_url || 'https://ntfy.sh').replace(/\/+$/, '');
      // An http action acknowledges from the notification itself (a POST to the single-use link).
      const actions = m.actions.map((a, i) => `${i === 0 ? 'http' : 'view'}, ${a.label}, ${a.url}${i === 0 ? ', method=POST, clear=true' : ''}`).join('; ');
      await oncallFetch(plugin.outbound, `${base}/${encodeURIComponent(m.topic)}`, {
        method: 'POST',
        body: m.text,
        headers: {
          title: header(m.title),
          priority: String(m.priority),
          tags: m.priority >= 5 ? 'rotating_light' : 'bell',
          ...(actions ? { actions } : {}),
          ...(plugin.config.access_token ? { authorization: `Bearer ${String(plugin.config.access_token)}` } : {}),
        },
      });
    },
  },
});
