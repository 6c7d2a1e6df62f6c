import { definePlugin } from '../../plugins/registry.js';
import { verifySigned } from '../../plugins/signing.js';
import { startOnEngine } from '../engine.js';

export default definePlugin({
  slug: 'http-workflow-engine',
  type: 'workflow',
  title: 'HTTP workflow engine',
  description:
    'Runs workflows on an external engine: POST {url}/runs with a Standard Webhooks signed body; the engine answers {id, status_url?}, then reports by a signed POST to the callback_url or through its status_url.',
  configuration_schema: {
    type: 'object',
    properties: {
      url: { type: 'string', format: 'uri', title: 'Engine URL' },
      signing_secret: {
        type: 'string',
        writeOnly: true,
        pattern: '^whsec_[A-Za-z0-9+/]{32,}={0,2}$',
        title: 'Signing secret (whsec_ and 24+ base64 bytes, as Standard Webhooks)',
      },
    },
    required: ['url', 'signing_secret'],
    additionalProperties: false,
  },
  implements: {
    run_workflow: startOnEngine,
    verify_run_callback: (plugin, headers, body) => verifySigned(String(plugin.config.signing_secret), headers, body),
  },
});
