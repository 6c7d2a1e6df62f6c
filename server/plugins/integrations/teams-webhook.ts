import { definePlugin } from '../registry.js';
import { postJson } from '../runtime.js';

export default definePlugin({
  slug: 'teams-webhook',
  type: 'conversation',
  title: 'Microsoft Teams webhook',
  description: 'Posts messages to a Teams channel through a Workflows (or legacy incoming) webhook, as an Adaptive Card.',
  configuration_schema: {
    type: 'object',
    properties: { webhook_url: { type: 'string', format: 'uri', writeOnly: true, title: 'Webhook URL' } },
    required: ['webhook_url'],
    additionalProperties: false,
  },
  implements: {
    async send_message(plugin, { text }) {
      await postJson(plugin.outbound, String(plugin.config.webhook_url), {
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
    },
  },
});
