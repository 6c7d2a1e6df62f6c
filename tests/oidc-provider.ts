import { OAuth2Server } from 'oauth2-mock-server';

/**
 * A local OpenID Connect provider speaking the real protocol (oauth2-mock-server): discovery document,
 * JWKS, /authorize (which approves at once, as the person's account), /token with PKCE checked, and ID
 * tokens carrying the nonce of the authorization request. `claims` shapes the next ID tokens: the
 * person's e-mail, and whatever a test wants wrong (aud, iss, exp, nonce, email_verified, hd).
 */
export async function startOidcProvider(host = '127.0.0.1', port = 0) {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(port, host);
  const provider = {
    server,
    issuer: server.issuer.url!,
    /** Applied to every ID token the provider signs (after its own claims). */
    claims: { email: 'person@example.com', email_verified: true } as Record<string, unknown>,
    /** Applied to the ID token's JOSE header (e.g. a `kid` the provider does not publish). */
    header: {} as Record<string, unknown>,
    /** How many authorization codes the token endpoint has exchanged. */
    exchanges: 0,
    /** How many times its signing keys (JWKS) were fetched. */
    keyFetches: 0,
    stop: () => server.stop(),
  };
  server.service.on('beforeTokenSigning', (token: { header: Record<string, unknown>; payload: Record<string, unknown> }) => {
    // Both the access and the ID token pass here; only the ID token carries `aud` = the client id.
    if (token.payload.aud === undefined) return;
    Object.assign(token.payload, provider.claims);
    Object.assign(token.header, provider.header);
  });
  server.service.on('beforeResponse', () => void provider.exchanges++);
  // Counted ahead of the provider's own routes (express: the new layer is moved to the front of the stack).
  const app = server.service.requestHandler as unknown as {
    use(fn: (req: { path: string }, res: unknown, next: () => void) => void): void;
    router: { stack: unknown[] };
  };
  app.use((req, _res, next) => {
    if (req.path === '/jwks') provider.keyFetches++;
    next();
  });
  app.router.stack.unshift(app.router.stack.pop());
  return provider;
}
