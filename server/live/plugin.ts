import fastifyWebsocket from '@fastify/websocket';
import fp from 'fastify-plugin';
import type { Database } from '../core/db/client.js';
import { UNAUTHENTICATED_FRAME_BYTES } from '../ai/limits.js';
import { startLiveFeed } from './changes.js';

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
    await app.register(fastifyWebsocket, { options: { maxPayload: UNAUTHENTICATED_FRAME_BYTES } });
  },
  { name: 'firewatch-live', fastify: '5.x' },
);
