import fp from 'fastify-plugin';
import { registerCrud } from './crud.js';
import type { ResourceDefinition } from './define.js';
import { registerMetaRoutes } from './meta.js';
import { registerResources } from './registry.js';
import { registerRowVisibility, type RowVisibility } from './visibility.js';

/**
 * The generic engine under /api/v1/{organization}: every definition's CRUD routes and the metadata
 * the admin app builds its screens from. The app hands it every domain's definitions and row
 * visibility rules; plugins that look definitions up by name depend on it.
 */
export const resourcesPlugin = fp<{ resources: ResourceDefinition[]; visibility: RowVisibility[] }>(
  async (scope, { resources, visibility }) => {
    registerResources(resources);
    for (const rule of visibility) registerRowVisibility(rule);
    registerMetaRoutes(scope, resources);
    for (const def of resources) registerCrud(scope, def);
  },
  { name: 'firewatch-resources', dependencies: ['firewatch-tenancy'], fastify: '5.x' },
);
