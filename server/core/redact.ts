import type { FastifyRequest } from 'fastify';

/** Query values that are secrets: socket tickets, visitors' anonymous keys, and any token sent the old way. */
const SECRET_PARAMS = /([?&](?:token|key|ticket|access_token)=)[^&#]*/gi;
/** Anonymous keys also travel in paths (`/projects/anonymous/fwanon_…`). */
const ANONYMOUS_KEY = /fwanon_[A-Za-z0-9_-]+/g;

/** A URL fit for the log: secrets in the query and anonymous keys in the path are replaced. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, '$1[redacted]').replace(ANONYMOUS_KEY, 'fwanon_[redacted]');
}

/** pino's `req` serializer: Fastify's own fields, with the URL redacted. */
export function serializeRequest(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
