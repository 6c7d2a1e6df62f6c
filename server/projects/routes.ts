import type { FastifyInstance } from 'fastify';
import { organizationProjects } from './service.js';
import { answers, arrayOf, int, objectOf, recordOf } from '../engine/answers.js';
import { projectResource } from './resources.js';

/** The projects the caller can pick from (every project of the organization). */
export function registerProjectRoutes(scope: FastifyInstance) {
  scope.get(
    '/projects/user',
    {
      schema: {
        tags: ['Project'],
        summary: "The caller's projects",
        ...answers(200, objectOf({ items: arrayOf(recordOf(projectResource)), itemsPerPage: int, page: int, total: int })),
      },
    },
    async (req) => {
      const items = await organizationProjects(scope.db, req.caller.orgId);
      return { items, itemsPerPage: -1, page: 1, total: items.length };
    },
  );
}
