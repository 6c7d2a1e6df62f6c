import fp from 'fastify-plugin';
import { registerFeedbackRoutes } from './routes.js';

/** Feedback on incidents and on services: its routes beyond CRUD (pair deletes, project summaries). */
export default fp(async (scope) => registerFeedbackRoutes(scope), {
  name: 'feedback',
  dependencies: ['firewatch-resources'],
  fastify: '5.x',
});
