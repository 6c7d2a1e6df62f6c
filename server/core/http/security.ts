import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * Browser hardening on every answer (admin app, API, docs). The session token lives in localStorage,
 * so scripts are limited to the app's own files: no inline or injected script can run.
 *
 * Styles allow 'unsafe-inline': MUI's emotion inserts <style> elements at run time, and a nonce would
 * mean rendering index.html per request and handing the nonce to emotion's cache. Inline CSS cannot run
 * script, and img-src/font-src/connect-src keep a style from loading anything from another origin.
 */
export const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  scriptSrcAttr: ["'none'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:', 'blob:'],
  fontSrc: ["'self'", 'data:'],
  // 'self' covers the same-origin ws:/wss: socket.
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  // Helmet adds upgrade-insecure-requests by default, which breaks the app served over plain http (localhost).
  upgradeInsecureRequests: null,
};

/** A year, subdomains included: sent only on answers that reached the browser over TLS. */
export const HSTS = 'max-age=31536000; includeSubDomains';

export async function registerSecurityHeaders(app: FastifyInstance) {
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    // Over plain http HSTS is ignored by browsers at best, and pins a TLS-less host at worst.
    strictTransportSecurity: false,
  });
  // req.protocol is 'https' when this server terminates TLS, or when a proxy trusted by `trustProxy` says so.
  app.addHook('onSend', async (req, reply) => {
    if (req.protocol === 'https') reply.header('strict-transport-security', HSTS);
  });
}
