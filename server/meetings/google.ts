import { importPKCS8, SignJWT } from 'jose';
import { jsonOf } from '../plugins/outside.js';
import type { LoadedPlugin } from '../plugins/registry.js';
import { serviceWords, type MeetingRequest } from './capabilities.js';
import { meetingsFetch } from './http.js';

const HINT = 'The service account needs domain-wide delegation with the calendar.events scope, impersonating the organizer.';
const words = serviceWords('Google Calendar', HINT);

/** A service account's access token: a signed JWT assertion exchanged at Google's token endpoint. */
async function accessToken(plugin: LoadedPlugin) {
  const tokenUrl = String(plugin.config.token_url ?? 'https://oauth2.googleapis.com/token');
  const key = await importPKCS8(String(plugin.config.private_key).replace(/\\n/g, '\n'), 'RS256');
  const assertion = await new SignJWT({ scope: 'https://www.googleapis.com/auth/calendar.events' })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer(String(plugin.config.client_email))
    .setSubject(String(plugin.config.organizer_email))
    .setAudience(tokenUrl)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(key);
  const res = await meetingsFetch('Google', plugin.outbound, tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
  });
  return (await jsonOf<{ access_token: string }>(res, words)).access_token;
}

interface CalendarEvent {
  id: string;
  hangoutLink?: string;
  conferenceData?: { entryPoints?: { entryPointType: string; uri: string }[] };
}

/** Calendar events.insert with conferenceDataVersion=1: the event gets a Meet link. */
export async function insertEvent(plugin: LoadedPlugin, m: MeetingRequest) {
  const api = String(plugin.config.api_url ?? 'https://www.googleapis.com/calendar/v3').replace(/\/+$/, '');
  const calendar = encodeURIComponent(String(plugin.config.calendar_id ?? 'primary'));
  const res = await meetingsFetch(
    'Google Calendar',
    plugin.outbound,
    `${api}/calendars/${calendar}/events?conferenceDataVersion=1&sendUpdates=${m.attendees.length ? 'all' : 'none'}`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${await accessToken(plugin)}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        summary: m.title,
        description: m.description,
        start: { dateTime: m.start.toISOString() },
        end: { dateTime: new Date(m.start.getTime() + m.minutes * 60_000).toISOString() },
        attendees: m.attendees.map((email) => ({ email })),
        conferenceData: { createRequest: { requestId: m.request_id, conferenceSolutionKey: { type: 'hangoutsMeet' } } },
      }),
    },
  );
  const event = await jsonOf<CalendarEvent>(res, words);
  const link = event.hangoutLink ?? event.conferenceData?.entryPoints?.find((e) => e.entryPointType === 'video')?.uri;
  if (!link) throw new Error(`Google Calendar made event ${event.id} without a Meet link: is Google Meet enabled for the organizer?`);
  return { weblink: link, meeting_id: event.id };
}
