import fp from 'fastify-plugin';
import { registerTimelineRoutes } from './routes.js';

/** The timeline: events, comments and the conversation of incidents and cases. */
export default fp(
  async (scope) => {
    registerTimelineRoutes(scope);
  },
  { name: 'timeline', dependencies: ['firewatch-tenancy'], fastify: '5.x' },
);
