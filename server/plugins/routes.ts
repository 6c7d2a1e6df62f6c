import type { FastifyInstance } from 'fastify';
import { PLUGINS } from './catalog.js';

/** Spec §7 /plugins: the catalog of plugins this server knows. */
export function registerPluginRoutes(scope: FastifyInstance) {
  scope.get('/plugins', { schema: { tags: ['Plugin'], summary: 'The plugins that can be configured, each with its configuration JSON schema' } }, async () => ({
    items: PLUGINS,
    total: PLUGINS.length,
    page: 1,
    itemsPerPage: PLUGINS.length,
  }));
}
