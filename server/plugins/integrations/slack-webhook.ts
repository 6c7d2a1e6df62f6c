import { definePlugin } from '../registry.js';
import { postJson } from '../runtime.js';

export default definePlugin({
  slug: 'slack-webhook',
  type: 'conversation',
  title: 'Slack-compatible incoming webhook',
  description: 'Posts messages to a channel through an incoming webhook (Slack, Mattermost, Rocket.Chat).',
  configuration_schema: {
    type: 'object',
    properties: {
      webhook_url: { type: 'string', format: 'uri', writeOnly: true, title: 'Webhook URL' },
      username: { type: 'string', default: 'Firewatch', title: 'Shown as' },
    },
    required: ['webhook_url'],
    additionalProperties: false,
  },
  implements: {
    async send_message(plugin, { text }) {
      await postJson(plugin.outbound, String(plugin.config.webhook_url), { text, username: plugin.config.username || 'Firewatch' });
    },
  },
});
