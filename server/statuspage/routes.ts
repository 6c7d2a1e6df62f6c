import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { httpError } from '../core/errors.js';
import { enqueueJob } from '../core/jobs/define.js';
import { inTenant } from '../core/tenancy.js';
import { answers, arrayOf, bool, messageAnswer, nullableStr, objectOf, str } from '../engine/answers.js';
import { loadIncident } from '../incidents/scope.js';
import { pluginWith } from '../plugins/registry.js';
import { statusPostJob, Update, WORDING } from './service.js';
import { statusPosts } from './tables.js';
import type { PageStatus } from './capabilities.js';

const tags = ['Status page'];
const params = z.object({ id: z.coerce.number().int().positive() });
const NEXT: Record<string, PageStatus> = { Active: 'investigating', Stable: 'monitoring', Closed: 'resolved' };

export function registerStatuspageRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/iaos/:id/statuspage/preview',
    {
      schema: {
        tags,
        summary: 'What "Post to status page" would say: the public wording and the components with their status now and as proposed; internal notes apart',
        params,
        ...answers(
          200,
          objectOf({
            plugin: str,
            posted: bool,
            weblink: nullableStr,
            name: str,
            status: str,
            body: str,
            components: arrayOf(objectOf({ id: str, name: str, status: str, proposed: str })),
            internal_notes: nullableStr,
            error: nullableStr,
          }),
        ),
      },
    },
    (req) =>
      inTenant(req, async (ctx) => {
        const incident = await loadIncident(ctx, req.params.id);
        const found = await pluginWith(ctx, 'list_status_components', incident.project_id);
        if (!found) throw httpError(409, 'No status page plugin is enabled for this project: add one under Plugins.', 'conflict');
        const [post] = await ctx.tx
          .select()
          .from(statusPosts)
          .where(and(eq(statusPosts.organization_id, ctx.orgId), eq(statusPosts.incident_id, incident.id)));
        const components = await found.call(found.plugin);
        const wanted = post?.components ?? {};
        const defaults = (found.plugin.config.component_ids as string[] | undefined) ?? [];
        const status = NEXT[incident.status]!;
        return {
          plugin: found.plugin.title,
          posted: !!post?.page_incident_id,
          weblink: post?.weblink ?? null,
          name: post?.name ?? incident.title,
          status,
          body: post?.body && post.status === status ? post.body : WORDING[status === 'identified' ? 'investigating' : status],
          components: components.map((c) => ({
            ...c,
            proposed: wanted[c.id] ?? (defaults.includes(c.id) ? String(found.plugin.config.component_status ?? 'partial_outage') : c.status),
          })),
          // Shown beside the preview so the writer sees what stays inside; never sent to the page.
          internal_notes: incident.description,
          error: post?.error ?? null,
        };
      }),
  );

  app.post(
    '/iaos/:id/statuspage',
    {
      schema: {
        tags,
        summary: 'Post the incident to the status page, or a follow-up update of it (sent in the background)',
        params,
        body: Update.strict(),
        ...messageAnswer({}, 202),
      },
    },
    async (req, reply) => {
      await inTenant(req, async (ctx) => {
        const incident = await loadIncident(ctx, req.params.id);
        if (!(await pluginWith(ctx, 'post_status', incident.project_id)))
          throw httpError(409, 'No status page plugin is enabled for this project: add one under Plugins.', 'conflict');
        await enqueueJob(ctx, statusPostJob, { incident_id: incident.id, ...req.body });
      });
      return reply.status(202).send({ message: 'The status page is being updated.' });
    },
  );
}
