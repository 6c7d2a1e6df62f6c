import { definePlugin, type LoadedPlugin } from '../../plugins/registry.js';
import { callSlack, slackClient, SlackApiError } from '../client.js';
import { cardBlocks, channelName } from '../blocks.js';
import { CHANNEL_PATTERN } from '../../engine/fields.js';
import '../capabilities.js';
import '../../plugins/runtime.js';

/** The bot's Web API client, at the server's SLACK_API_URL as configured when the instance was loaded. */
const botOf = (plugin: LoadedPlugin) => {
  const token = plugin.config.bot_token;
  if (typeof token !== 'string' || !token) throw new Error(`${plugin.title}: not installed in a Slack workspace yet ("Add to Slack").`);
  return slackClient(plugin.outbound.SLACK_API_URL, token);
};

const ignoring = async (codes: string[], call: () => Promise<unknown>) => {
  try {
    await call();
  } catch (err) {
    if (!(err instanceof SlackApiError && codes.includes(err.error))) throw err;
  }
};

/** Slack's channel topics hold 250 characters. */
const setTopic = (client: ReturnType<typeof botOf>, channel: string, topic: string) =>
  ignoring(['too_long'], () => callSlack(client, 'conversations.setTopic', { channel, topic: topic.slice(0, 250) }));

/** A channel name for `call`: the name made valid, then with -2, -3… while Slack answers name_taken. */
async function withFreeName<T>(name: string, call: (candidate: string) => Promise<T>): Promise<T> {
  const base = channelName(name);
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(attempt === 1 ? base : `${base.slice(0, 76)}-${attempt}`);
    } catch (err) {
      if (!(err instanceof SlackApiError && err.error === 'name_taken') || attempt >= 20) throw err;
    }
  }
}

export default definePlugin({
  slug: 'slack-app',
  type: 'conversation',
  title: 'Slack app',
  description:
    'A channel per incident (and per case where its type says) with its card, people, bookmarks and reports, its name and topic following the record, the /firewatch command, and messages and 📌 reactions mirrored to the timeline. Installed with "Add to Slack".',
  configuration_schema: {
    type: 'object',
    properties: {
      client_id: { type: 'string', title: 'Client ID', description: "From the Slack app's Basic Information page." },
      client_secret: { type: 'string', writeOnly: true, title: 'Client secret' },
      signing_secret: { type: 'string', writeOnly: true, title: 'Signing secret' },
      connection_mode: { type: 'string', enum: ['events', 'socket'], default: 'events', title: 'Connection', description: 'Socket Mode needs no public URL.' },
      app_token: { type: 'string', writeOnly: true, title: 'App-level token (xapp-…, Socket Mode)' },
      bot_token: { type: 'string', writeOnly: true, title: 'Bot token', description: 'Set by "Add to Slack".' },
      team_id: { type: 'string', title: 'Workspace', description: 'Set by "Add to Slack".' },
      channel_name_template: { type: 'string', default: 'inc-{number}-{title}', title: 'Channel name', description: 'Uses {name}, {number}, {title}.' },
      case_channel_name_template: {
        type: 'string',
        default: 'case-{number}-{title}',
        title: 'Case channel name',
        description: 'For case types with a channel per case. Uses {name}, {number}, {title}.',
      },
      archive_on_close: { type: 'boolean', default: true, title: 'Archive the channel when the incident or case closes' },
      timeline_reaction: { type: 'string', default: 'pushpin', title: 'Reaction that adds a message to the timeline' },
      command: { type: 'string', default: '/firewatch', title: 'Slash command' },
      default_channel: { type: 'string', title: 'Channel for messages without one (notifications, workflows)' },
    },
    required: ['client_id', 'client_secret', 'signing_secret'],
    additionalProperties: false,
  },
  implements: {
    async send_message(plugin, { text }) {
      // Notifications name their channel (#name or its id) as a "channel: " prefix.
      const named = new RegExp(`^(${CHANNEL_PATTERN}): ([\\s\\S]*)$`).exec(text);
      const channel = named ? named[1] : plugin.config.default_channel;
      if (typeof channel !== 'string' || !channel) throw new Error(`${plugin.title}: no channel to post to (set a default channel).`);
      await callSlack(botOf(plugin), 'chat.postMessage', { channel, text: named ? named[2] : text });
    },
    async create_conversation(plugin, { name, topic, private: isPrivate }) {
      const client = botOf(plugin);
      const made = await withFreeName(name, (candidate) =>
        callSlack<{ channel: { id: string; name: string } }>(client, 'conversations.create', { name: candidate, is_private: isPrivate }),
      );
      if (topic) await setTopic(client, made.channel.id, topic);
      return { id: made.channel.id, name: made.channel.name };
    },
    async rename_conversation(plugin, { conversation, name }) {
      const client = botOf(plugin);
      const renamed = await withFreeName(name, (candidate) =>
        callSlack<{ channel: { name: string } }>(client, 'conversations.rename', { channel: conversation, name: candidate }),
      );
      return { name: renamed.channel.name };
    },
    async set_topic(plugin, { conversation, topic }) {
      await setTopic(botOf(plugin), conversation, topic);
    },
    async invite(plugin, { conversation, emails }) {
      const client = botOf(plugin);
      const ids: string[] = [];
      const invited: string[] = [];
      const missing: string[] = [];
      for (const email of emails) {
        try {
          const res = await callSlack<{ user: { id: string } }>(client, 'users.lookupByEmail', { email });
          ids.push(res.user.id);
          invited.push(email);
        } catch (err) {
          if (!(err instanceof SlackApiError && err.error === 'users_not_found')) throw err;
          missing.push(email);
        }
      }
      if (ids.length)
        await ignoring(['already_in_channel', 'cant_invite_self'], () =>
          callSlack(client, 'conversations.invite', { channel: conversation, users: ids.join(',') }),
        );
      return { invited, missing };
    },
    async post_card(plugin, { conversation, card, pin }) {
      const client = botOf(plugin);
      // Slack takes a channel's name here, and answers with its id (chat.update and pins.add take only the id).
      const res = await callSlack<{ ts: string; channel: string }>(client, 'chat.postMessage', {
        channel: conversation,
        text: card.title,
        blocks: cardBlocks(card),
      });
      if (pin) await ignoring(['already_pinned'], () => callSlack(client, 'pins.add', { channel: res.channel, timestamp: res.ts }));
      return { id: res.ts, conversation: res.channel };
    },
    async update_card(plugin, { conversation, id, card }) {
      await callSlack(botOf(plugin), 'chat.update', { channel: conversation, ts: id, text: card.title, blocks: cardBlocks(card) });
    },
    async add_bookmarks(plugin, { conversation, links }) {
      const client = botOf(plugin);
      for (const link of links) await callSlack(client, 'bookmarks.add', { channel_id: conversation, title: link.title, type: 'link', link: link.url });
    },
    async archive_conversation(plugin, { conversation }) {
      await ignoring(['already_archived'], () => callSlack(botOf(plugin), 'conversations.archive', { channel: conversation }));
    },
    async get_message(plugin, { conversation, id }) {
      const res = await callSlack<{ messages: { text?: string; user?: string }[] }>(botOf(plugin), 'conversations.history', {
        channel: conversation,
        latest: id,
        oldest: id,
        inclusive: true,
        limit: 1,
      });
      const m = res.messages[0];
      return m ? { text: m.text ?? '', user: m.user ?? null } : null;
    },
    async lookup_user(plugin, { id }) {
      try {
        const res = await callSlack<{ user: { id: string; real_name?: string; name: string; profile?: { email?: string } } }>(botOf(plugin), 'users.info', {
          user: id,
        });
        return { id: res.user.id, email: res.user.profile?.email ?? null, name: res.user.real_name || res.user.name };
      } catch (err) {
        if (err instanceof SlackApiError && err.error === 'user_not_found') return null;
        throw err;
      }
    },
  },
});
