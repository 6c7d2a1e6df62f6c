import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Shutdown's first step: from now on every request is answered 503 with `Connection: close`, and
     * this resolves once the HTTP connections have closed (their last answers sent) or after `graceMs`.
     */
    drain(graceMs: number): Promise<void>;
  }
}

/**
 * A graceful stop that answers instead of resetting. Closing the listener at once (fastify's close)
 * also destroys idle keep-alive connections, so a request a client sends on one at that moment meets a
 * reset. Draining keeps those connections open for a short grace and answers whatever arrives 503,
 * which tells the client (or load balancer) to go elsewhere; requests already running finish.
 */
export function registerDrain(app: FastifyInstance) {
  let draining = false;
  // Plain HTTP connections; upgraded ones (the live socket) are closed by the app itself.
  const open = new Set<Socket>();
  let settle: (() => void) | null = null;
  app.server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      if (settle && open.size === 0) settle();
    });
  });
  app.server.on('upgrade', (_req, socket: Socket) => {
    open.delete(socket);
    if (settle && open.size === 0) settle();
  });

  app.addHook('onRequest', async (req, reply) => {
    if (!draining) return;
    reply.header('connection', 'close');
    return reply.status(503).send({ detail: [{ msg: 'The server is shutting down. Please retry.', loc: [], type: 'shutting_down' }] });
  });
  // app.close() without a drain first (tests) answers the same way.
  app.addHook('preClose', async () => void (draining = true));
  app.addHook('onSend', async (_req, reply) => void (draining && reply.header('connection', 'close')));

  app.decorate('drain', (graceMs: number) => {
    draining = true;
    if (open.size === 0 || graceMs <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, graceMs);
      timer.unref();
      function done() {
        clearTimeout(timer);
        settle = null;
        resolve();
      }
      settle = done;
    });
  });
}
