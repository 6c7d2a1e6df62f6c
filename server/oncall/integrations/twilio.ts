import { definePlugin, type LoadedPlugin } from '../../plugins/registry.js';
import { oncallFetch } from '../outbound.js';
import '../capabilities.js';

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** One resource of Twilio's 2010-04-01 REST API, form-encoded, with the account's Basic auth. */
async function create(plugin: LoadedPlugin, resource: 'Messages' | 'Calls', form: Record<string, string>) {
  const sid = String(plugin.config.account_sid);
  const base = String(plugin.config.api_url || 'https://api.twilio.com').replace(/\/+$/, '');
  await oncallFetch(plugin.outbound, `${base}/2010-04-01/Accounts/${encodeURIComponent(sid)}/${resource}.json`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${sid}:${String(plugin.config.auth_token)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ From: String(plugin.config.from_number), ...form }).toString(),
  });
}

export default definePlugin({
  slug: 'twilio',
  type: 'oncall-channel',
  title: 'Twilio SMS and voice',
  description: "Pages by text message and phone call through Twilio's REST API.",
  configuration_schema: {
    type: 'object',
    properties: {
      account_sid: { type: 'string', title: 'Account SID' },
      auth_token: { type: 'string', writeOnly: true, title: 'Auth token' },
      from_number: { type: 'string', title: 'From number (E.164)' },
      api_url: { type: 'string', format: 'uri', default: 'https://api.twilio.com', title: 'API URL' },
    },
    required: ['account_sid', 'auth_token', 'from_number'],
    additionalProperties: false,
  },
  implements: {
    async send_sms(plugin, { to, text }) {
      await create(plugin, 'Messages', { To: to, Body: text.slice(0, 1500) });
    },
    async place_call(plugin, { to, text }) {
      // Said twice: the first words are often lost while the phone is lifted.
      const say = escapeXml(text.slice(0, 1000));
      await create(plugin, 'Calls', { To: to, Twiml: `<Response><Say>${say}</Say><Pause length="1"/><Say>${say}</Say></Response>` });
    },
  },
});
