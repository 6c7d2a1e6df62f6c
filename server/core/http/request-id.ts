import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** A caller's id is kept when it is short and plain, so it cannot forge log fields or split headers. */
const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Fastify options: each request's id (its log lines carry it as `reqId`, Fastify's default label) is the caller's X-Request-Id,
 * or a new UUID.
 */
export const requestIdOptions = {
  requestIdHeader: false as const,
  genReqId(req: IncomingMessage) {
    const given = req.headers['x-request-id'];
    return typeof given === 'string' && SANE_ID.test(given) ? given : randomUUID();
  },
};

/** Every answer names its request, so a caller can quote it when something went wrong. */
export function registerRequestId(app: FastifyInstance) {
  app.addHook('onRequest', async (req, reply) => void reply.header('x-request-id', req.id));
}
