import { jsonOf } from '../plugins/outside.js';
import type { LoadedPlugin } from '../plugins/registry.js';
import { serviceWords, type MeetingRequest } from './capabilities.js';
import { meetingsFetch } from './http.js';

const HINT = 'The Server-to-Server OAuth app needs the meeting:write:meeting:admin (or meeting:write) scope and must be activated.';
const words = serviceWords('Zoom', HINT);

/** Server-to-Server OAuth: account_credentials with the app's id and secret as Basic auth. */
async function accessToken(plugin: LoadedPlugin) {
  const url = new URL(String(plugin.config.oauth_url ?? 'https://zoom.us/oauth/token'));
  url.searchParams.set('grant_type', 'account_credentials');
  url.searchParams.set('account_id', String(plugin.config.account_id));
  const basic = Buffer.from(`${String(plugin.config.client_id)}:${String(plugin.config.client_secret)}`).toString('base64');
  const res = await meetingsFetch('Zoom', plugin.outbound, url.toString(), { method: 'POST', headers: { authorization: `Basic ${basic}` } });
  return (await jsonOf<{ access_token: string }>(res, words)).access_token;
}

/** POST /users/me/meetings: a scheduled meeting (type 2) with its join URL. */
export async function createMeeting(plugin: LoadedPlugin, m: MeetingRequest) {
  const api = String(plugin.config.api_url ?? 'https://api.zoom.us/v2').replace(/\/+$/, '');
  const res = await meetingsFetch('Zoom', plugin.outbound, `${api}/users/me/meetings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await accessToken(plugin)}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      topic: m.title.slice(0, 200),
      type: 2,
      start_time: m.start.toISOString(),
      duration: m.minutes,
      agenda: m.description.slice(0, 2000),
      settings: { join_before_host: true, meeting_invitees: m.attendees.map((email) => ({ email })) },
    }),
  });
  const made = await jsonOf<{ id: number | string; join_url: string }>(res, words);
  return { weblink: made.join_url, meeting_id: String(made.id) };
}
