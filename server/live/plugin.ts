import fastifyWebsocket from '@fastify/websocket';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { WebSocket } from 'ws';
import type { Database } from '../core/db/client.js';
import { UNAUTHENTICATED_FRAME_BYTES } from '../billing/limits.js';
import { startLiveFeed } from './changes.js';

/**
 * A socket's error: ws refusing what the client sent (a frame over the limit, 1009; a bad opcode or
 * UTF-8; its codes start WS_ERR_) is the client's doing, logged at info without a stack, so that no
 * visitor can fill the error log; anything else is the server's, logged as an error.
 */
function socketError(error: Error & { code?: string; closeCode?: number }, socket: WebSocket, req: FastifyRequest) {
  if (error.code?.startsWith('WS_ERR_'))
    req.log.info({ code: error.code, closeCode: error.closeCode, reason: error.message }, 'socket closed: the client sent a frame it may not');
  else req.log.error({ err: error }, 'socket failed');
  socket.terminate();
}

/**
 * What the live socket stands on: incident and case changes committed by any process reach this
 * one's sockets (changes.ts), and the websocket server, whose frames are small until a socket knows
 * its caller (it then raises the limit to the caller's plan).
 */
export const livePlugin = fp<{ database: Database }>(
  async (app, { database }) => {
    const live = await startLiveFeed(database, (err) => app.log.warn({ err }, 'bad live change notification'));
    app.decorate('live', live);
    app.addHook('preClose', async () => {
      await live.stop().catch((err) => app.log.warn({ err }, 'live feed did not stop cleanly'));
    });
    await app.register(fastifyWebsocket, { options: { maxPayload: UNAUTHENTICATED_FRAME_BYTES }, errorHandler: socketError });
  },
  { name: 'firewatch-live', fastify: '5.x' },
);
