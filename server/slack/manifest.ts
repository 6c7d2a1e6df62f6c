/**
 * The Slack app's manifest, pasted once into api.slack.com/apps ("From a manifest"): scopes, events,
 * the slash command and the URLs of this server and organization. The repository's
 * slack-app-manifest.yml is this with placeholders (a test keeps them the same).
 */

/** Bot scopes, each with why Firewatch needs it (README "Connecting Slack" lists the same). */
export const BOT_SCOPES: Record<string, string> = {
  commands: 'the /firewatch command',
  'chat:write': "post the incident card, reports and answers in the app's channels",
  'chat:write.public': 'post notifications in public channels the app has not joined',
  'channels:manage': 'create, invite to and archive public incident channels',
  'groups:write': 'create, invite to and archive private channels of restricted incidents',
  'channels:read': 'see who joins public incident channels',
  'groups:read': 'see who joins private incident channels',
  'channels:history': 'mirror public incident channels into the incident conversation',
  'groups:history': 'mirror private incident channels into the incident conversation',
  'reactions:read': 'add a message to the timeline when it gets the 📌 reaction',
  'pins:write': 'pin the incident card',
  'bookmarks:write': 'bookmark the incident page, conference and documents',
  'users:read': "show people's names",
  'users:read.email': 'invite people by e-mail and know who wrote a message',
};

export const BOT_EVENTS = [
  'message.channels',
  'message.groups',
  'reaction_added',
  'reaction_removed',
  'member_joined_channel',
  'app_uninstalled',
  'tokens_revoked',
];

/** Where Slack sends events, commands and interactions, and where the install returns. */
export const slackUrls = (publicUrl: string, org: string) => {
  const base = `${publicUrl.replace(/\/$/, '')}/api/v1/${org}/slack`;
  return { events: `${base}/events`, commands: `${base}/commands`, interactions: `${base}/interactions`, redirect: `${base}/oauth/callback` };
};

/** The manifest in YAML (written by hand: its shape is fixed and small). */
export function renderManifest(o: { publicUrl: string; org: string; socket: boolean; command?: string }) {
  const urls = slackUrls(o.publicUrl, o.org);
  const command = o.command ?? '/firewatch';
  return [
    'display_information:',
    '  name: Firewatch',
    '  description: Incidents run from their Slack channel.',
    'features:',
    '  bot_user:',
    '    display_name: Firewatch',
    '    always_online: true',
    '  slash_commands:',
    `    - command: ${command}`,
    ...(o.socket ? [] : [`      url: ${urls.commands}`]),
    '      description: Declare and run incidents',
    '      usage_hint: declare | status | help',
    '      should_escape: false',
    'oauth_config:',
    '  redirect_urls:',
    `    - ${urls.redirect}`,
    '  scopes:',
    '    bot:',
    ...Object.keys(BOT_SCOPES).map((s) => `      - ${s}`),
    'settings:',
    '  event_subscriptions:',
    ...(o.socket ? [] : [`    request_url: ${urls.events}`]),
    '    bot_events:',
    ...BOT_EVENTS.map((e) => `      - ${e}`),
    '  interactivity:',
    '    is_enabled: true',
    ...(o.socket ? [] : [`    request_url: ${urls.interactions}`]),
    `  socket_mode_enabled: ${o.socket}`,
    '  org_deploy_enabled: false',
    '  token_rotation_enabled: false',
    '',
  ].join('\n');
}
