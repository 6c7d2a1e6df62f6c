import fp from 'fastify-plugin';
import { registerInvitationRoutes } from './invitation-routes.js';
import { registerOidcRoutes, type OidcProviders } from './oidc.js';
import { registerAuthRoutes } from './routes.js';

/** Sign-in (password, e-mail code, OIDC), sessions and invitations. */
export default fp<{ secret: string; oidc: OidcProviders }>(
  async (scope, { secret, oidc }) => {
    registerAuthRoutes(scope, { mailer: scope.mailer, secret });
    registerOidcRoutes(scope, oidc);
    registerInvitationRoutes(scope);
  },
  { name: 'accounts', dependencies: ['firewatch-tenancy'], fastify: '5.x' },
);
