import { definePlugin } from '../../plugins/registry.js';
import { commitPage } from '../github.js';
import '../capabilities.js';

export default definePlugin({
  slug: 'github-commits',
  type: 'commits',
  title: 'GitHub commits',
  description:
    "Syncs the commits of the incident types' repo_urls and of this instance's own list (every 15 minutes, and on demand), so an incident's page offers the commits made just before it started as suspects. The token needs read access to the repositories' contents.",
  configuration_schema: {
    type: 'object',
    properties: {
      token: { type: 'string', minLength: 1, writeOnly: true, title: 'Token' },
      api_url: { type: 'string', format: 'uri', default: 'https://api.github.com', title: 'API URL', description: 'GitHub Enterprise: https://HOST/api/v3' },
      repo_urls: { type: 'array', items: { type: 'string', format: 'uri' }, default: [], title: 'Repositories of this project' },
      branch: { type: 'string', title: 'Branch (default: the default branch)' },
      lookback_days: { type: 'integer', minimum: 1, maximum: 365, default: 14, title: 'First sync reaches back (days)' },
    },
    required: ['token'],
    additionalProperties: false,
  },
  implements: { sync_commits: commitPage },
});
