import { definePlugin } from '../registry.js';
import { fillConferenceTemplate } from '../conference.js';

export default definePlugin({
  slug: 'conference-link',
  type: 'conference',
  title: 'Conference link',
  description:
    "Gives each new incident its conference link from a template ({organization} and {name} are filled in). An instance of the incident's project wins over one without a project; with none, the server's CONFERENCE_URL_TEMPLATE is used.",
  configuration_schema: {
    type: 'object',
    properties: {
      url_template: { type: 'string', format: 'uri', default: 'https://meet.jit.si/firewatch-{organization}-{name}', title: 'Conference URL template' },
    },
    required: ['url_template'],
    additionalProperties: false,
  },
  implements: {
    async create_conference(plugin, incident) {
      return { weblink: fillConferenceTemplate(String(plugin.config.url_template), incident.organization, incident.name) };
    },
  },
});
