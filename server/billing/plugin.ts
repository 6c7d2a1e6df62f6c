import fp from 'fastify-plugin';
import { registerBillingRoutes } from './routes.js';

/** Plans and billing (the Stripe webhook is registered outside the organization's prefix, in app.ts). */
export default fp(
  async (scope) => {
    await registerBillingRoutes(scope);
  },
  { name: 'billing', dependencies: ['firewatch-tenancy'], fastify: '5.x' },
);
