import { definePlugin } from '../../plugins/registry.js';
import { createMeeting } from '../zoom.js';
import '../capabilities.js';

export default definePlugin({
  slug: 'zoom-meeting',
  type: 'conference',
  title: 'Zoom',
  description:
    'Gives each new incident a Zoom meeting and schedules postmortem reviews, through a Server-to-Server OAuth app (scope meeting:write:meeting:admin or meeting:write).',
  configuration_schema: {
    type: 'object',
    properties: {
      account_id: { type: 'string', minLength: 1, title: 'Account ID' },
      client_id: { type: 'string', minLength: 1, title: 'Client ID' },
      client_secret: { type: 'string', minLength: 1, writeOnly: true, title: 'Client secret' },
      oauth_url: { type: 'string', format: 'uri', default: 'https://zoom.us/oauth/token', title: 'OAuth URL' },
      api_url: { type: 'string', format: 'uri', default: 'https://api.zoom.us/v2', title: 'API URL' },
    },
    required: ['account_id', 'client_id', 'client_secret'],
    additionalProperties: false,
  },
  implements: {
    create_conference: (plugin, incident) =>
      createMeeting(plugin, {
        title: `${incident.name}: ${incident.title ?? 'incident bridge'}`,
        description: `Bridge of incident ${incident.name}`,
        start: new Date(),
        minutes: 60,
        attendees: [],
        request_id: incident.name,
      }).then((m) => ({ weblink: m.weblink, conference_id: m.meeting_id })),
    schedule_meeting: createMeeting,
  },
});
