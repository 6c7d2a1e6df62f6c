import fp from 'fastify-plugin';
import { registerSearchRoutes } from './routes.js';

/** Search across the organization's records. */
export default fp(
  async (scope) => {
    registerSearchRoutes(scope);
  },
  { name: 'search', dependencies: ['firewatch-tenancy'], fastify: '5.x' },
);
