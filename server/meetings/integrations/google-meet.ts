import { randomUUID } from 'node:crypto';
import { definePlugin } from '../../plugins/registry.js';
import { insertEvent } from '../google.js';
import '../capabilities.js';

export default definePlugin({
  slug: 'google-meet',
  type: 'conference',
  title: 'Google Meet (Calendar)',
  description:
    'Gives each new incident a Google Meet (a Calendar event with conferenceDataVersion=1) and schedules postmortem reviews with the participants. A service account with domain-wide delegation for the calendar.events scope acts as the organizer.',
  configuration_schema: {
    type: 'object',
    properties: {
      client_email: { type: 'string', minLength: 3, title: 'Service account e-mail' },
      private_key: { type: 'string', minLength: 1, writeOnly: true, title: 'Service account private key (PEM)' },
      organizer_email: { type: 'string', minLength: 3, title: 'Organizer (the user impersonated)' },
      calendar_id: { type: 'string', default: 'primary', title: 'Calendar' },
      token_url: { type: 'string', format: 'uri', default: 'https://oauth2.googleapis.com/token', title: 'Token URL' },
      api_url: { type: 'string', format: 'uri', default: 'https://www.googleapis.com/calendar/v3', title: 'Calendar API URL' },
    },
    required: ['client_email', 'private_key', 'organizer_email'],
    additionalProperties: false,
  },
  implements: {
    create_conference: (plugin, incident) =>
      insertEvent(plugin, {
        title: `${incident.name}: ${incident.title ?? 'incident bridge'}`,
        description: `Bridge of incident ${incident.name}`,
        start: new Date(),
        minutes: 60,
        attendees: [],
        request_id: randomUUID(),
      }).then((m) => ({ weblink: m.weblink, conference_id: m.meeting_id })),
    schedule_meeting: insertEvent,
  },
});
