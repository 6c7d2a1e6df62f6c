/**
 * The plugins Firewatch knows, in code (GET /plugins). A configuration is validated against its
 * plugin's JSON schema; properties marked `writeOnly` are secrets: encrypted at rest, never returned.
 */
export interface PluginDefinition {
  slug: string;
  type: 'conversation' | 'email' | 'workflow' | 'conference' | 'ai';
  title: string;
  description: string;
  /** What workflows and notifications may ask of it. */
  capabilities: string[];
  configuration_schema: { type: 'object'; properties: Record<string, Record<string, unknown>>; required?: string[]; additionalProperties: false };
}

// Built-in ones first: they work without configuration.
export const PLUGINS: PluginDefinition[] = [
  {
    slug: 'step-engine',
    type: 'workflow',
    title: 'Built-in step engine',
    description:
      "Runs a workflow's steps inside Firewatch: send a message, send an e-mail, call a webhook, create a task, add a timeline event, set a field, wait.",
    capabilities: ['run_workflow'],
    configuration_schema: { type: 'object', properties: {}, additionalProperties: false },
  },
  {
    slug: 'email',
    type: 'email',
    title: 'E-mail (SMTP)',
    description: "Sends e-mail through the server's SMTP settings (SMTP_URL, MAIL_FROM).",
    capabilities: ['send_email'],
    configuration_schema: {
      type: 'object',
      properties: { default_to: { type: 'string', default: '', title: 'Default recipient' } },
      additionalProperties: false,
    },
  },
  {
    slug: 'slack-webhook',
    type: 'conversation',
    title: 'Slack-compatible incoming webhook',
    description: 'Posts messages to a channel through an incoming webhook (Slack, Mattermost, Rocket.Chat).',
    capabilities: ['send_message'],
    configuration_schema: {
      type: 'object',
      properties: {
        webhook_url: { type: 'string', format: 'uri', writeOnly: true, title: 'Webhook URL' },
        username: { type: 'string', default: 'Firewatch', title: 'Shown as' },
      },
      required: ['webhook_url'],
      additionalProperties: false,
    },
  },
  {
    slug: 'teams-webhook',
    type: 'conversation',
    title: 'Microsoft Teams webhook',
    description: 'Posts messages to a Teams channel through a Workflows (or legacy incoming) webhook, as an Adaptive Card.',
    capabilities: ['send_message'],
    configuration_schema: {
      type: 'object',
      properties: { webhook_url: { type: 'string', format: 'uri', writeOnly: true, title: 'Webhook URL' } },
      required: ['webhook_url'],
      additionalProperties: false,
    },
  },
  {
    slug: 'conference-link',
    type: 'conference',
    title: 'Conference link',
    description:
      "Gives each new incident its conference link from a template ({organization} and {name} are filled in). An instance of the incident's project wins over one without a project; with none, the server's CONFERENCE_URL_TEMPLATE is used.",
    capabilities: ['create_conference'],
    configuration_schema: {
      type: 'object',
      properties: {
        url_template: { type: 'string', format: 'uri', default: 'https://meet.jit.si/firewatch-{organization}-{name}', title: 'Conference URL template' },
      },
      required: ['url_template'],
      additionalProperties: false,
    },
  },
  {
    slug: 'http-workflow-engine',
    type: 'workflow',
    title: 'HTTP workflow engine',
    description:
      'Runs workflows on an external engine: POST {url}/runs with a Standard Webhooks signed body; the engine answers {id, status_url?}, then reports by a signed POST to the callback_url or through its status_url.',
    capabilities: ['run_workflow'],
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
  },
  {
    slug: 'ai-model',
    type: 'ai',
    title: 'AI model (OpenAI-compatible)',
    description:
      "The model that writes chat answers and summaries: any server speaking the OpenAI chat-completions protocol (OpenAI, Ollama, vLLM, llama.cpp). One for a project wins over one for the organization; without any, the server's AI_BASE_URL, AI_MODEL and AI_API_KEY are the default.",
    capabilities: ['answer', 'summarize'],
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
  },
];

export const pluginBySlug = (slug: string) => PLUGINS.find((p) => p.slug === slug);

export const secretKeysOf = (plugin: PluginDefinition) =>
  Object.entries(plugin.configuration_schema.properties)
    .filter(([, p]) => p.writeOnly)
    .map(([k]) => k);
