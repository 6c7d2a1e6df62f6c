import fp from 'fastify-plugin';
import { registerDashboardRoutes } from './routes.js';

/** Dashboards: figures read across the domains, owned by none of them. */
export default fp(
  async (scope) => {
    registerDashboardRoutes(scope);
  },
  { name: 'dashboards', dependencies: ['firewatch-tenancy'], fastify: '5.x' },
);
