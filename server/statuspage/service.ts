import { and, eq, inArray, isNotNull, ne, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { RequestContext } from '../core/context.js';
import { subscribe } from '../core/events.js';
import { BACKGROUND_LANE, defineJob, enqueueJobs, NotReady, type JobDefinition } from '../core/jobs/define.js';
import { addEvent } from '../timeline/events.js';
import { incidentResources, incidents } from '../incidents/tables.js';
import { incidentPriorities } from '../incidents/settings-tables.js';
import { honouringRateLimits, ServiceRefused } from '../plugins/outside.js';
import { capabilityOf, loadPlugin, pluginWith, type LoadedPlugin } from '../plugins/registry.js';
import { recordPluginEvent } from '../plugins/runtime.js';
import { PAGE_STATUSES, type StatusUpdate } from './capabilities.js';
import { statusPosts } from './tables.js';

export const Update = z.object({
  name: z.string().trim().min(1).max(255),
  status: z.enum(PAGE_STATUSES),
  body: z.string().trim().min(1).max(10_000),
  components: z.record(z.string(), z.string()).default({}),
});
const Post = Update.extend({ incident_id: z.number().int() });

/** Stock wording for the automatic steps (Statuspage's own templates say much the same). */
export const WORDING = {
  investigating: 'We are investigating an issue affecting some of our services. We will post an update as soon as we know more.',
  monitoring: 'A fix has been implemented and we are monitoring the results.',
  resolved: 'This incident has been resolved.',
};

/** Posts, follows up or resolves the incident on the status page; a re-run never opens a second one. */
export const statusPostJob: JobDefinition<typeof Post> = defineJob({
  name: 'statuspage.post',
  lane: BACKGROUND_LANE,
  payload: Post,
  run: (data, job) =>
    honouringRateLimits(
      job.tenant,
      statusPostJob,
      data,
      () => job.tenant((ctx) => pushStatus(ctx, data)),
      (ctx, err) =>
        addEvent(ctx, { incident_id: data.incident_id, type: 'Resource updated', source: 'Statuspage', description: err.message }).then(() => undefined),
    ),
});

async function rowFor(ctx: RequestContext, incidentId: number, projectId: number) {
  const lockRow = async () =>
    (
      await ctx.tx
        .select()
        .from(statusPosts)
        .where(and(eq(statusPosts.organization_id, ctx.orgId), eq(statusPosts.incident_id, incidentId)))
        .for('update')
    )[0];
  const found = await lockRow();
  if (found) return found;
  const chosen = await pluginWith(ctx, 'post_status', projectId);
  if (!chosen) return null;
  await ctx.tx.insert(statusPosts).values({ organization_id: ctx.orgId, incident_id: incidentId, plugin_instance_id: chosen.plugin.id }).onConflictDoNothing();
  return lockRow();
}

const sameAs = (row: typeof statusPosts.$inferSelect, u: StatusUpdate) =>
  row.status === u.status && row.body === u.body && JSON.stringify(row.components) === JSON.stringify(u.components);

async function say(ctx: RequestContext, plugin: LoadedPlugin, incidentId: number, name: string, description: string, details: Record<string, unknown> = {}) {
  await addEvent(ctx, { incident_id: incidentId, type: 'Resource updated', source: 'Statuspage', description, details });
  await recordPluginEvent(ctx, plugin, { name, description, incident_id: incidentId, details });
}

export async function pushStatus(ctx: RequestContext, { incident_id, ...update }: z.infer<typeof Post>) {
  const [incident] = await ctx.tx
    .select({ id: incidents.id, name: incidents.name, project_id: incidents.project_id })
    .from(incidents)
    .where(and(eq(incidents.organization_id, ctx.orgId), eq(incidents.id, incident_id)));
  if (!incident) throw new NotReady();
  const row = await rowFor(ctx, incident_id, incident.project_id);
  const plugin = row && (await loadPlugin(ctx, row.plugin_instance_id));
  if (!row || !plugin) return;
  // A repeated job (a retry, a second click) changes nothing; a resolve before any post posts nothing.
  if (row.page_incident_id ? sameAs(row, update) || row.status === 'resolved' : update.status === 'resolved') return;
  let { page_incident_id: pageId, weblink } = row;
  try {
    if (!pageId) {
      ({ id: pageId, weblink } = await capabilityOf(plugin, 'post_status')!(plugin, update));
      await ctx.tx.insert(incidentResources).values({
        organization_id: ctx.orgId,
        incident_id,
        resource_type: 'statuspage',
        name: `Status page: ${update.name}`.slice(0, 500),
        weblink,
        description: `Public incident ${pageId}`,
      });
      await say(ctx, plugin, incident_id, 'Status page posted', `Posted to ${plugin.title} as "${update.status}": ${weblink}`, { id: pageId });
    } else {
      const { status: _s, ...rest } = update;
      if (update.status === 'resolved') await capabilityOf(plugin, 'resolve_status')!(plugin, pageId, rest);
      else await capabilityOf(plugin, 'update_status')!(plugin, pageId, update);
      await say(ctx, plugin, incident_id, 'Status page updated', `${plugin.title} updated: ${update.status}`, { id: pageId });
    }
    await ctx.tx
      .update(statusPosts)
      .set({ page_incident_id: pageId, weblink, ...update, error: null, updated_at: sql`now()` })
      .where(eq(statusPosts.id, row.id));
  } catch (err) {
    if (!(err instanceof ServiceRefused)) throw err;
    await ctx.tx
      .update(statusPosts)
      .set({ error: err.message, updated_at: sql`now()` })
      .where(eq(statusPosts.id, row.id));
    await say(ctx, plugin, incident_id, 'Status page refused', `${plugin.title} refused the update: ${err.message}`, { status: err.status });
  }
}

/** Priorities with auto_post_to_status_page post new incidents; Stable and Closed follow up on the page. */
subscribe(async (ctx, events) => {
  if (events.type === 'incident.created') {
    const due = await ctx.tx
      .select({ id: incidents.id, title: incidents.title, project_id: incidents.project_id })
      .from(incidents)
      .innerJoin(
        incidentPriorities,
        and(eq(incidentPriorities.organization_id, incidents.organization_id), eq(incidentPriorities.id, incidents.incident_priority_id)),
      )
      .where(and(eq(incidents.organization_id, ctx.orgId), inArray(incidents.id, events.ids), eq(incidentPriorities.auto_post_to_status_page, true)));
    const posts = [];
    for (const i of due) {
      const found = await pluginWith(ctx, 'post_status', i.project_id);
      if (!found) continue;
      const ids = (found.plugin.config.component_ids as string[] | undefined) ?? [];
      const status = String(found.plugin.config.component_status ?? 'partial_outage');
      posts.push({
        incident_id: i.id,
        name: i.title,
        status: 'investigating' as const,
        body: WORDING.investigating,
        components: Object.fromEntries(ids.map((c) => [c, status])),
      });
    }
    await enqueueJobs(ctx, statusPostJob, posts);
    return;
  }
  if (events.type !== 'incident.updated') return;
  const open = await ctx.tx
    .select({ post: statusPosts, status: incidents.status })
    .from(statusPosts)
    .innerJoin(incidents, and(eq(incidents.organization_id, statusPosts.organization_id), eq(incidents.id, statusPosts.incident_id)))
    .where(
      and(
        eq(statusPosts.organization_id, ctx.orgId),
        inArray(statusPosts.incident_id, events.ids),
        isNotNull(statusPosts.page_incident_id),
        ne(statusPosts.status, 'resolved'),
      ),
    );
  const follow = open.flatMap(({ post, status }): z.input<typeof Post>[] => {
    const base = { incident_id: post.incident_id, name: post.name ?? '', components: post.components };
    if (status === 'Closed')
      return [
        { ...base, status: 'resolved', body: WORDING.resolved, components: Object.fromEntries(Object.keys(post.components).map((c) => [c, 'operational'])) },
      ];
    if (status === 'Stable' && post.status !== 'monitoring') return [{ ...base, status: 'monitoring', body: WORDING.monitoring }];
    return [];
  });
  await enqueueJobs(ctx, statusPostJob, follow);
});
