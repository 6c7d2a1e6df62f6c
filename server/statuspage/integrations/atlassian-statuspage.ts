import { definePlugin } from '../../plugins/registry.js';
import { listComponents, postIncident, updateIncident } from '../atlassian.js';
import { COMPONENT_STATUSES } from '../capabilities.js';

export default definePlugin({
  slug: 'atlassian-statuspage',
  type: 'statuspage',
  title: 'Atlassian Statuspage',
  description:
    "Posts an incident to a public status page with the wording and component statuses chosen on the incident's page (never its internal notes), follows up, and resolves it with the incident. Priorities with auto_post_to_status_page post on their own. The API key's user needs a page role that may create incidents.",
  configuration_schema: {
    type: 'object',
    properties: {
      api_key: { type: 'string', minLength: 1, writeOnly: true, title: 'API key' },
      page_id: { type: 'string', minLength: 1, title: 'Page id' },
      api_url: { type: 'string', format: 'uri', default: 'https://api.statuspage.io/v1', title: 'API URL' },
      page_url: { type: 'string', format: 'uri', title: 'Public page URL' },
      component_ids: { type: 'array', items: { type: 'string' }, default: [], title: 'Components an automatic post names' },
      component_status: { type: 'string', enum: [...COMPONENT_STATUSES], default: 'partial_outage', title: 'Their status in an automatic post' },
      deliver_notifications: { type: 'boolean', default: true, title: "Notify the page's subscribers" },
    },
    required: ['api_key', 'page_id'],
    additionalProperties: false,
  },
  implements: {
    list_status_components: listComponents,
    post_status: postIncident,
    update_status: updateIncident,
    resolve_status: (plugin, id, u) => updateIncident(plugin, id, { ...u, status: 'resolved' }),
  },
});
