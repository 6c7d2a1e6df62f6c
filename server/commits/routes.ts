import { and, asc, desc, eq, gte, inArray, isNull, lte, or } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { enqueueJob } from '../core/jobs/define.js';
import { inTenant } from '../core/tenancy.js';
import { answers, arrayOf, int, messageAnswer, nullableStr, objectOf, str } from '../engine/answers.js';
import { loadIncident } from '../incidents/scope.js';
import { incidentTypes } from '../incidents/settings-tables.js';
import { commitSyncJob } from './sync.js';
import { commits, commitSyncs } from './tables.js';
import { pluginInstances } from '../plugins/tables.js';
import { slugsWith } from '../plugins/registry.js';

const tags = ['Commit'];

export function registerCommitRoutes(scope: FastifyInstance) {
  registerSyncRoutes(scope);
  registerSuspectCommitRoutes(scope);
}

/** Syncing the repositories' commits, and how each sync went. */
function registerSyncRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/commits/sync',
    {
      schema: {
        tags,
        summary: "Syncs the repositories' commits now (all, or the one named), in the background",
        body: z.strictObject({ repository_url: z.url().optional() }).default({}),
        ...messageAnswer({}, 202),
      },
    },
    async (req, reply) => {
      await inTenant(req, (ctx) => enqueueJob(ctx, commitSyncJob, req.body.repository_url ? { repository_url: req.body.repository_url } : {}));
      return reply.status(202).send({ message: 'The commits are being synced.' });
    },
  );

  app.get(
    '/commits/syncs',
    {
      schema: {
        tags,
        summary: "Each repository's sync: when it completed, and its last failure in words",
        ...answers(
          200,
          objectOf({ items: arrayOf(objectOf({ repository_url: str, completed_at: nullableStr, wait_until: nullableStr, error: nullableStr })) }),
        ),
      },
    },
    (req) =>
      inTenant(req, async (ctx) => {
        const rows = await ctx.tx.select().from(commitSyncs).where(eq(commitSyncs.organization_id, ctx.orgId)).orderBy(asc(commitSyncs.repository_url));
        const iso = (d: Date | null) => d?.toISOString() ?? null;
        return {
          items: rows.map((r) => ({ repository_url: r.repository_url, completed_at: iso(r.completed_at), wait_until: iso(r.wait_until), error: r.error })),
        };
      }),
  );
}

/** The commits that may have caused an incident. */
function registerSuspectCommitRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/iaos/:id/suspect-commits',
    {
      schema: {
        tags,
        summary: "Commits to the incident's repositories in the hours before it was reported (newest first): suspects",
        params: z.object({ id: z.coerce.number().int().positive() }),
        querystring: z.strictObject({
          hours: z.coerce
            .number()
            .int()
            .min(1)
            .max(24 * 14)
            .default(24),
        }),
        ...answers(
          200,
          objectOf({
            items: arrayOf(
              objectOf({ commit_id: str, commit_message: nullableStr, commit_author: nullableStr, commit_date: str, repository_url: str, minutes_before: int }),
            ),
          }),
        ),
      },
    },
    (req) =>
      inTenant(req, async (ctx) => {
        const incident = await loadIncident(ctx, req.params.id);
        const [type] = incident.incident_type_id
          ? await ctx.tx
              .select({ repo_urls: incidentTypes.repo_urls })
              .from(incidentTypes)
              .where(and(eq(incidentTypes.organization_id, ctx.orgId), eq(incidentTypes.id, incident.incident_type_id)))
          : [];
        const own = await ctx.tx
          .select({ configuration: pluginInstances.configuration })
          .from(pluginInstances)
          .where(
            and(
              eq(pluginInstances.organization_id, ctx.orgId),
              or(eq(pluginInstances.project_id, incident.project_id), isNull(pluginInstances.project_id)),
              eq(pluginInstances.enabled, true),
              inArray(pluginInstances.plugin_slug, slugsWith('sync_commits')),
            ),
          );
        const repos = [...(type?.repo_urls ?? []), ...own.flatMap((p) => (p.configuration.repo_urls as string[] | undefined) ?? [])];
        if (!repos.length) return { items: [] };
        const start = incident.reported_at;
        const rows = await ctx.tx
          .select()
          .from(commits)
          .where(
            and(
              eq(commits.organization_id, ctx.orgId),
              inArray(commits.repository_url, repos),
              gte(commits.commit_date, new Date(start.getTime() - req.query.hours * 3_600_000)),
              lte(commits.commit_date, new Date(start.getTime() + 15 * 60_000)),
            ),
          )
          .orderBy(desc(commits.commit_date))
          .limit(25);
        return {
          items: rows.map((c) => ({
            commit_id: c.commit_id,
            commit_message: c.commit_message,
            commit_author: c.commit_author,
            commit_date: c.commit_date!.toISOString(),
            repository_url: c.repository_url!,
            minutes_before: Math.round((start.getTime() - c.commit_date!.getTime()) / 60_000),
          })),
        };
      }),
  );
}
