import fp from 'fastify-plugin';
import { registerProjectRoutes } from './routes.js';

/** Projects: the caller's projects and switching between them. */
export default fp(
  async (scope) => {
    registerProjectRoutes(scope);
  },
  { name: 'projects', dependencies: ['firewatch-tenancy'], fastify: '5.x' },
);
