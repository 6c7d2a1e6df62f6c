import fp from 'fastify-plugin';
import { registerPluginRoutes } from './routes.js';

/** Plugin instances: their catalog and test routes. */
export default fp(async (scope) => registerPluginRoutes(scope), {
  name: 'plugins',
  dependencies: ['firewatch-tenancy', 'firewatch-secrets'],
  fastify: '5.x',
});
