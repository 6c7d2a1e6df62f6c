import { and, eq, inArray, max, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { systemActor, type RequestContext } from '../core/context.js';
import { organizations } from '../core/db/tables.js';
import { BACKGROUND_LANE, defineJob, enqueueJob, type JobRun } from '../core/jobs/define.js';
import { runInTenant } from '../core/tenancy.js';
import { incidentTypes } from '../incidents/settings-tables.js';
import { RateLimited } from '../core/http/outbound.js';
import { honouringRateLimits, ServiceRefused } from '../plugins/outside.js';
import { capabilityOf, loadPlugin, pluginWith, slugsWith } from '../plugins/registry.js';
import { pluginInstances } from '../plugins/tables.js';
import { parseRepository, type Repository } from './capabilities.js';
import { commits, commitSyncs } from './tables.js';

export const COMMIT_SYNC_CRON = '*/15 * * * *';
const DAY_MS = 86_400_000;

interface Tracked {
  repo: Repository;
  project_id: number | null;
  plugin_instance_id: number;
}

/** The repositories to sync: the incident types' repo_urls and each commit plugin's own list, each with its plugin. */
export async function trackedRepositories(ctx: RequestContext): Promise<Tracked[]> {
  const byUrl = new Map<string, Tracked>();
  const instances = await ctx.tx
    .select()
    .from(pluginInstances)
    .where(
      and(eq(pluginInstances.organization_id, ctx.orgId), eq(pluginInstances.enabled, true), inArray(pluginInstances.plugin_slug, slugsWith('sync_commits'))),
    )
    .orderBy(pluginInstances.id);
  for (const instance of instances) {
    // repo_urls is no secret: read from the plain configuration.
    for (const url of (instance.configuration.repo_urls as string[] | undefined) ?? []) {
      const repo = parseRepository(url);
      if (repo && !byUrl.has(repo.url)) byUrl.set(repo.url, { repo, project_id: instance.project_id, plugin_instance_id: instance.id });
    }
  }
  const types = await ctx.tx
    .select({ repo_urls: incidentTypes.repo_urls, project_id: incidentTypes.project_id })
    .from(incidentTypes)
    .where(eq(incidentTypes.organization_id, ctx.orgId));
  for (const type of types)
    for (const url of type.repo_urls) {
      const repo = parseRepository(url);
      if (!repo || byUrl.has(repo.url)) continue;
      const found = await pluginWith(ctx, 'sync_commits', type.project_id);
      if (found) byUrl.set(repo.url, { repo, project_id: type.project_id, plugin_instance_id: found.plugin.id });
    }
  return [...byUrl.values()];
}

const Payload = z.object({ repository_url: z.string().optional() });

/** Syncs the organization's repositories (or the one named); a rate limit defers that repository to GitHub's reset. */
export const commitSyncJob = defineJob({
  name: 'commits.sync',
  lane: BACKGROUND_LANE,
  payload: Payload,
  run: async (data, job) => {
    const tracked = (await job.tenant(trackedRepositories)).filter((t) => !data.repository_url || t.repo.url === data.repository_url);
    for (const t of tracked) await honouringRateLimits(job.tenant, commitSyncJob, { repository_url: t.repo.url }, () => syncRepository(job, t));
  },
});

/** The schedule: every organization with an enabled commit plugin gets a sync. */
export const commitScheduleJob = defineJob({
  name: 'commits.schedule',
  payload: z.object({}),
  cron: () => COMMIT_SYNC_CRON,
  run: (_data, { app }) => scheduleEveryOrganization(app),
});

async function scheduleEveryOrganization(app: FastifyInstance) {
  const orgs = await app.db.select({ id: organizations.id, slug: organizations.slug }).from(organizations).orderBy(organizations.id);
  for (const org of orgs)
    await runInTenant(app.db, app.config, systemActor({ orgId: org.id, orgSlug: org.slug }), async (ctx) => {
      const [any] = await ctx.tx
        .select({ id: pluginInstances.id })
        .from(pluginInstances)
        .where(
          and(
            eq(pluginInstances.organization_id, ctx.orgId),
            eq(pluginInstances.enabled, true),
            inArray(pluginInstances.plugin_slug, slugsWith('sync_commits')),
          ),
        )
        .limit(1);
      if (any) await enqueueJob(ctx, commitSyncJob, {}, { singletonKey: 'commits.sync' });
    });
}

/** One repository: pages since its newest stored commit, each stored as it comes, marked complete only after the last. */
export async function syncRepository(job: Pick<JobRun, 'tenant'>, t: Tracked) {
  const start = await job.tenant(async (ctx) => {
    const [state] = await ctx.tx
      .insert(commitSyncs)
      .values({ organization_id: ctx.orgId, project_id: t.project_id, plugin_instance_id: t.plugin_instance_id, repository_url: t.repo.url })
      .onConflictDoUpdate({ target: [commitSyncs.organization_id, commitSyncs.repository_url], set: { plugin_instance_id: t.plugin_instance_id } })
      .returning();
    if (state!.wait_until && state!.wait_until > new Date()) return null;
    const plugin = await loadPlugin(ctx, t.plugin_instance_id);
    const [newest] = await ctx.tx
      .select({ at: max(commits.commit_date) })
      .from(commits)
      // Only completed syncs move the start forward: pages an interrupted sync never reached are asked again.
      .where(and(eq(commits.organization_id, ctx.orgId), eq(commits.repository_url, t.repo.url), eq(commits.sync_completed, true)));
    await ctx.tx
      .update(commitSyncs)
      .set({ started_at: sql`now()` })
      .where(eq(commitSyncs.id, state!.id));
    const lookback = Number(plugin?.config.lookback_days ?? 14) * DAY_MS;
    return plugin && { state: state!, plugin, since: newest?.at ?? new Date(Math.floor((Date.now() - lookback) / DAY_MS) * DAY_MS) };
  });
  if (!start) return;
  const { state, plugin, since } = start;
  const fetchPage = capabilityOf(plugin, 'sync_commits')!;
  const sameUrl = state.since?.getTime() === since.getTime();
  const setState = (values: Partial<typeof commitSyncs.$inferInsert>) =>
    job.tenant((ctx) =>
      ctx.tx
        .update(commitSyncs)
        .set({ ...values, updated_at: sql`now()` })
        .where(eq(commitSyncs.id, state.id)),
    );
  let etag: string | null = null;
  try {
    let next: string | null = null;
    do {
      const page = await fetchPage(plugin, t.repo, { since: since.toISOString(), etag: !next && sameUrl ? state.etag : null, next });
      if (page.not_modified) {
        etag = state.etag;
        break;
      }
      if (!next) etag = page.etag;
      next = page.next;
      if (page.commits.length) await job.tenant((ctx) => storePage(ctx, t, page.commits));
    } while (next);
  } catch (err) {
    if (err instanceof RateLimited) await setState({ wait_until: new Date(Date.now() + err.retryAfterSeconds * 1000), error: err.message });
    else if (err instanceof ServiceRefused) return void (await setState({ error: err.message }));
    throw err;
  }
  await job.tenant(async (ctx) => {
    await ctx.tx
      .update(commits)
      .set({ sync_completed: true, sync_completed_at: sql`now()` })
      .where(and(eq(commits.organization_id, ctx.orgId), eq(commits.repository_url, t.repo.url), eq(commits.sync_completed, false)));
    await ctx.tx
      .update(commitSyncs)
      .set({ etag, since, completed_at: sql`now()`, wait_until: null, error: null, updated_at: sql`now()` })
      .where(eq(commitSyncs.id, state.id));
  });
}

async function storePage(
  ctx: RequestContext,
  t: Tracked,
  page: { commit_id: string; commit_message: string | null; commit_author: string | null; commit_date: string | null }[],
) {
  await ctx.tx
    .insert(commits)
    .values(
      page.map((c) => ({
        organization_id: ctx.orgId,
        project_id: t.project_id,
        ...c,
        commit_date: c.commit_date ? new Date(c.commit_date) : null,
        repository_url: t.repo.url,
        repository_name: `${t.repo.owner}/${t.repo.name}`,
        repository_branch: t.repo.branch ?? null,
        source: 'GitHub',
        sync_completed: false,
      })),
    )
    .onConflictDoUpdate({
      target: [commits.organization_id, commits.repository_url, commits.commit_id],
      set: { commit_message: sql`excluded.commit_message`, commit_author: sql`excluded.commit_author`, commit_date: sql`excluded.commit_date` },
    });
}
