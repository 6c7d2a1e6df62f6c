import { definePlugin } from '../../plugins/registry.js';

export default definePlugin({
  slug: 'ai-model',
  type: 'ai',
  title: 'AI model (OpenAI-compatible)',
  description:
    "The model that writes chat answers and summaries: any server speaking the OpenAI chat-completions protocol (OpenAI, Ollama, vLLM, llama.cpp). One for a project wins over one for the organization; without any, the server's AI_BASE_URL, AI_MODEL and AI_API_KEY are the default.",
  configuration_schema: {
    type: 'object',
    properties: {
      base_url: { type: 'string', format: 'uri', title: 'Base URL (…/v1)' },
      model: { type: 'string', minLength: 1, maxLength: 200, title: 'Model' },
      api_key: { type: 'string', writeOnly: true, maxLength: 500, title: 'API key' },
      timeout_ms: { type: 'integer', minimum: 100, maximum: 600000, title: 'Timeout (ms)' },
    },
    required: ['base_url', 'model'],
    additionalProperties: false,
  },
  implements: {
    answer: (config, defaults) => ({
      baseUrl: String(config.base_url).replace(/\/+$/, ''),
      model: String(config.model),
      apiKey: typeof config.api_key === 'string' ? config.api_key : undefined,
      timeoutMs: typeof config.timeout_ms === 'number' ? config.timeout_ms : defaults.timeoutMs,
    }),
  },
});
