import type { FastifyInstance } from 'fastify';
import { allPlugins } from './registry.js';
import { answers, arrayOf, int, objectOf, str } from '../engine/answers.js';

const plugin = objectOf({ slug: str, type: str, title: str, description: str, capabilities: arrayOf(str), configuration_schema: { type: 'object' } });

/** Spec §7 /plugins: the catalog of plugins this server knows. */
export function registerPluginRoutes(scope: FastifyInstance) {
  scope.get(
    '/plugins',
    {
      schema: {
        tags: ['Plugin'],
        summary: 'The plugins that can be configured, each with its configuration JSON schema',
        ...answers(200, objectOf({ items: arrayOf(plugin), total: int, page: int, itemsPerPage: int })),
      },
    },
    async () => {
      const items = allPlugins();
      return { items, total: items.length, page: 1, itemsPerPage: items.length };
    },
  );
}
