import { definePlugin } from '../../plugins/registry.js';
import { createIssue, jiraHealth, moveIssue } from '../jira.js';
import '../capabilities.js';

export default definePlugin({
  slug: 'jira-ticket',
  type: 'ticket',
  title: 'Jira Cloud',
  description:
    "Opens a Jira issue for each new incident and case (project and issue type from its type's plugin metadata, else these settings), moves it by status category as the record's status changes, and puts Jira's moves and comments on the timeline (webhook). The account needs Browse projects, Create issues, Edit issues, Transition issues and Add comments.",
  configuration_schema: {
    type: 'object',
    properties: {
      site_url: { type: 'string', format: 'uri', title: 'Site URL', description: 'https://your-site.atlassian.net' },
      email: { type: 'string', minLength: 3, title: 'Account e-mail' },
      api_token: { type: 'string', minLength: 1, writeOnly: true, title: 'API token' },
      project_key: { type: 'string', pattern: '^[A-Z][A-Z0-9_]+$', title: 'Default project key' },
      issue_type: { type: 'string', default: 'Task', title: 'Default issue type' },
      // Optional: the form starts it empty (spec §5), and empty means Jira's webhook is not taken.
      webhook_secret: {
        type: 'string',
        pattern: '^(.{16,})?$',
        writeOnly: true,
        title: 'Webhook secret',
        description: "The secret of Jira's webhook (X-Hub-Signature): at least 16 characters; empty for no webhook",
      },
    },
    required: ['site_url', 'email', 'api_token', 'project_key'],
    additionalProperties: false,
  },
  implements: {
    create_ticket: createIssue,
    update_ticket: (plugin, key, { category }) => moveIssue(plugin, key, category),
    check_ticket_health: jiraHealth,
  },
});
