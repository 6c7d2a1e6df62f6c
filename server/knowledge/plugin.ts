import fp from 'fastify-plugin';
import { registeredResources } from '../engine/registry.js';
import { registerCatalogRoutes } from './routes.js';

/** The knowledge catalog's routes beyond CRUD: tag recommendations. */
export default fp(async (scope) => registerCatalogRoutes(scope, registeredResources()), {
  name: 'knowledge',
  dependencies: ['firewatch-resources'],
  fastify: '5.x',
});
