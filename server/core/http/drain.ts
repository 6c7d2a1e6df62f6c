import net, { type Socket } from 'node:net';
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

/** How long connections accepted before the listener stopped may take to send their request. */
const LINGER_MS = 1_000;
/** How long answers are held back before the listener stops, so that no client is reconnecting then. */
const HOLD_MS = 50;

/**
 * A graceful stop that answers instead of resetting. Closing the listener at once (fastify's close)
 * also destroys idle keep-alive connections, so a request a client sends on one at that moment meets a
 * reset. Draining keeps those connections open for a short grace and answers whatever arrives 503,
 * which tells the client (or load balancer) to go elsewhere; requests already running finish.
 */
export function registerDrain(app: FastifyInstance) {
  let draining = false;
  // While set, answers wait here (see drain()).
  let held: (() => void)[] | null = null;
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

  // The 503 waits for the request's body: a connection closed with bytes of it still unread is reset
  // by the kernel (RST, not FIN), and the client loses the answer with it (review F19).
  app.addHook('onRequest', (req, reply, done) => {
    if (!draining) return done();
    const answer = () => {
      reply.header('connection', 'close').header('retry-after', '1');
      reply.status(503).send({ detail: [{ msg: 'The server is shutting down. Please retry.', loc: [], type: 'shutting_down' }] });
    };
    if (req.raw.complete) return answer();
    req.raw.once('end', answer);
    req.raw.resume();
  });
  // app.close() without a drain first (tests) answers the same way.
  app.addHook('preClose', async () => void (draining = true));
  app.addHook('onSend', async (_req, reply) => {
    if (!draining) return;
    reply.header('connection', 'close');
    // Just before the listener closes, every answer waits (see drain()).
    const waiting = held;
    if (waiting) await new Promise<void>((resolve) => waiting.push(resolve));
  });

  /** Resolves once no plain HTTP connection is open, or after `ms`. */
  const settled = (ms: number) =>
    open.size === 0 || ms <= 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const timer = setTimeout(done, ms);
          timer.unref();
          function done() {
            clearTimeout(timer);
            settle = null;
            resolve();
          }
          settle = done;
        });

  app.decorate('drain', async (graceMs: number) => {
    draining = true;
    await settled(graceMs);
    // Then the listener stops (new connections are refused: nothing sent, nothing lost) without
    // Node's close() destroying idle connections: one accepted a moment ago may be carrying a request,
    // and gets its 503 during the linger. Only what is still open after it is closed by app.close().
    // close()'s callback waits for every connection to end, idle keep-alive ones included: not awaited.
    //
    // Connections the kernel has completed but Node has not accepted yet are reset when the listener
    // closes (the client has sent its request and gets ECONNRESET). A client that reconnects as soon
    // as it gets its answer is in that queue most of the time: each event-loop turn answers every
    // connection and the clients are back before the next one. So answers are held for a moment
    // first: the clients wait on open connections, the queue empties (each turn accepts all of it),
    // and the listener closes in the check phase right after a turn's accepts. The held answers then
    // go out, and a client reconnecting after one is refused (ECONNREFUSED: nothing was sent).
    held = [];
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
    await new Promise((resolve) => setImmediate(resolve));
    if (app.server.listening) net.Server.prototype.close.call(app.server);
    const release = held;
    held = null;
    for (const answer of release) answer();
    app.log.info({ open: open.size, answered: release.length }, 'listener closed');
    await settled(LINGER_MS);
  });
}
