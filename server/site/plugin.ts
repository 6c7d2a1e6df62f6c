import fp from 'fastify-plugin';
import { registeredResources } from '../engine/registry.js';
import { registerSiteRoutes } from './routes.js';

/** The organization's public site, and the list of screens the admin app may open signed out. */
export default fp(
  async (scope) =>
    registerSiteRoutes(
      scope,
      registeredResources()
        .filter((r) => r.routes?.list !== false)
        .map((r) => r.path.replace(/^\//, '')),
    ),
  { name: 'site', dependencies: ['firewatch-resources'], fastify: '5.x' },
);
