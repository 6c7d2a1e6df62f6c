import type { Channel, SlackStandIn } from './stand-in.js';

type Answer = Record<string, unknown>;
type Handler = (args: Record<string, any>, authorization?: string) => Answer;

let clock = 1_764_000_000;
/** Slack's message ids: seconds and a sequence ("1764000000.000100"), increasing. */
export const nextTs = () => `${++clock}.000100`;

/** The Web API methods Firewatch calls, answering as Slack does (fields used, and the errors modelled). */
export function methods(s: SlackStandIn, codes: Set<string>): Record<string, Handler> {
  const channel = (id: string) => s.channels.get(id) ?? [...s.channels.values()].find((c) => `#${c.name}` === id);
  const withChannel = (id: string, fn: (c: Channel) => Answer): Answer => {
    const c = channel(id);
    if (!c) return { error: 'channel_not_found' };
    return fn(c);
  };
  return {
    'oauth.v2.access': (args, authorization) => {
      const basic = authorization?.startsWith('Basic ') ? Buffer.from(authorization.slice(6), 'base64').toString().split(':') : [];
      const [id, secret] = basic.length ? basic : [args.client_id, args.client_secret];
      if (id !== s.client.id || secret !== s.client.secret) return { error: 'invalid_client_id' };
      if (!codes.delete(args.code)) return { error: 'invalid_code' };
      if (!String(args.redirect_uri ?? '').includes('/slack/oauth/callback')) return { error: 'bad_redirect_uri' };
      const token = `xoxb-standin-${s.tokens.bot.size + 1}`;
      s.tokens.bot.add(token);
      return {
        access_token: token,
        token_type: 'bot',
        scope: 'commands,chat:write,channels:manage',
        bot_user_id: s.botUserId,
        app_id: 'A0STANDIN',
        team: s.team,
        enterprise: null,
        is_enterprise_install: false,
        authed_user: { id: 'UINSTALLER' },
      };
    },
    'auth.test': () => ({ team_id: s.team.id, user_id: s.botUserId }),
    'apps.connections.open': () => ({ url: `${s.url.replace('http', 'ws')}/socket?ticket=${Date.now()}` }),
    'conversations.create': (args) => {
      const name = String(args.name ?? '');
      if (!/^[a-z0-9_-]{1,80}$/.test(name)) return { error: 'invalid_name_specials' };
      if ([...s.channels.values()].some((c) => c.name === name)) return { error: 'name_taken' };
      const id = `C${String(s.channels.size + 1).padStart(6, '0')}`;
      const isPrivate = args.is_private === true || args.is_private === 'true';
      s.channels.set(id, {
        id,
        name,
        is_private: isPrivate,
        is_archived: false,
        topic: '',
        members: new Set([s.botUserId]),
        messages: [],
        pins: [],
        bookmarks: [],
      });
      return { channel: { id, name, is_private: isPrivate } };
    },
    'conversations.rename': (args) =>
      withChannel(args.channel, (c) => {
        const name = String(args.name ?? '');
        if (!/^[a-z0-9_-]{1,80}$/.test(name)) return { error: 'invalid_name_specials' };
        if ([...s.channels.values()].some((o) => o.name === name && o.id !== c.id)) return { error: 'name_taken' };
        if (c.is_archived) return { error: 'is_archived' };
        c.name = name;
        return { channel: { id: c.id, name } };
      }),
    'conversations.setTopic': (args) => withChannel(args.channel, (c) => ((c.topic = args.topic), { channel: { id: c.id } })),
    'conversations.invite': (args) =>
      withChannel(args.channel, (c) => {
        const ids = String(args.users).split(',');
        if (ids.some((u) => !s.users.some((x) => x.id === u))) return { error: 'user_not_found' };
        if (ids.every((u) => c.members.has(u))) return { error: 'already_in_channel' };
        ids.forEach((u) => c.members.add(u));
        return { channel: { id: c.id } };
      }),
    'conversations.archive': (args) => withChannel(args.channel, (c) => (c.is_archived ? { error: 'already_archived' } : ((c.is_archived = true), {}))),
    'conversations.history': (args) =>
      withChannel(args.channel, (c) => ({ messages: c.messages.filter((m) => m.ts === args.latest).map((m) => ({ type: 'message', ...m })) })),
    'chat.postMessage': (args) =>
      withChannel(args.channel, (c) => {
        if (c.is_archived) return { error: 'is_archived' };
        const ts = nextTs();
        c.messages.push({ ts, text: args.text ?? '', user: s.botUserId, blocks: args.blocks });
        return { channel: c.id, ts, message: { text: args.text } };
      }),
    // Unlike chat.postMessage, chat.update takes only the channel's id, not its name.
    'chat.update': (args) =>
      withChannel(s.channels.has(args.channel) ? args.channel : '', (c) => {
        const m = c.messages.find((x) => x.ts === args.ts);
        if (!m) return { error: 'message_not_found' };
        Object.assign(m, { text: args.text ?? m.text, blocks: args.blocks ?? m.blocks });
        return { channel: c.id, ts: m.ts };
      }),
    'pins.add': (args) => withChannel(args.channel, (c) => (c.pins.includes(args.timestamp) ? { error: 'already_pinned' } : (c.pins.push(args.timestamp), {}))),
    'bookmarks.add': (args) =>
      withChannel(args.channel_id, (c) => (c.bookmarks.push({ title: args.title, link: args.link }), { bookmark: { id: `Bk${c.bookmarks.length}` } })),
    'users.lookupByEmail': (args) => {
      const u = s.users.find((x) => x.email.toLowerCase() === String(args.email).toLowerCase());
      return u ? { user: { id: u.id, name: u.name, profile: { email: u.email } } } : { error: 'users_not_found' };
    },
    'users.info': (args) => {
      const u = s.users.find((x) => x.id === args.user);
      return u ? { user: { id: u.id, name: u.name, real_name: u.name, profile: { email: u.email } } } : { error: 'user_not_found' };
    },
    'views.open': (args) => (s.triggers.delete(args.trigger_id) ? { view: { id: `V${Date.now()}`, ...args.view } } : { error: 'expired_trigger_id' }),
  };
}
