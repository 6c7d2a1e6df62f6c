import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { defineJob, NotReady } from '../core/jobs/define.js';
import { capabilityOf, loadPlugin } from '../plugins/registry.js';
import { recordPluginEvent } from '../plugins/runtime.js';
import { services } from '../people/tables.js';
import type { RequestContext } from '../core/context.js';
import { oncallPages } from './tables.js';

async function pageAndPlugin(ctx: RequestContext, id: number) {
  const [page] = await ctx.tx
    .select()
    .from(oncallPages)
    .where(and(eq(oncallPages.organization_id, ctx.orgId), eq(oncallPages.id, id)));
  if (!page?.plugin_instance_id) throw new NotReady();
  const plugin = await loadPlugin(ctx, page.plugin_instance_id);
  if (!plugin) throw new NotReady();
  const [service] = page.service_id
    ? await ctx.tx
        .select({ id: services.id, name: services.name, type: services.type, external_id: services.external_id })
        .from(services)
        .where(and(eq(services.organization_id, ctx.orgId), eq(services.id, page.service_id)))
    : [];
  return { page, plugin, service: service ?? null };
}

const pagePayload = z.object({ page_id: z.number().int() });
const retries = () => ({ retryLimit: 8, retryDelaySeconds: 10 });

/** A page carried by another on-call plugin (PagerDuty): sent from the queue, outside any transaction. */
export const externalPageJob = defineJob({
  name: 'oncall-external-page',
  payload: pagePayload,
  retries,
  run: async ({ page_id }, job) => {
    const { page, plugin, service } = await job.tenant((ctx) => pageAndPlugin(ctx, page_id));
    if (page.state !== 'triggered' || page.external_id) return;
    const answer = await capabilityOf(plugin, 'page')!(
      plugin,
      { page_id, key: page.key, title: page.title, details: page.details, service },
      { tenant: job.tenant },
    );
    await job.tenant(async (ctx) => {
      await ctx.tx
        .update(oncallPages)
        .set({ external_id: answer.external_id, updated_at: sql`now()` })
        .where(and(eq(oncallPages.organization_id, ctx.orgId), eq(oncallPages.id, page_id)));
      await recordPluginEvent(ctx, plugin, {
        name: 'Paged',
        description: `${plugin.title}: ${page.title} (${answer.external_id ?? 'no id'})`,
        incident_id: page.incident_id,
        case_id: page.case_id,
        details: { page_id },
      });
    });
  },
});

/** Resolves a page at its plugin once it is resolved here (its incident or case closed). */
export const resolveExternalJob = defineJob({
  name: 'oncall-external-resolve',
  payload: pagePayload,
  retries,
  run: async ({ page_id }, job) => {
    const { page, plugin } = await job.tenant((ctx) => pageAndPlugin(ctx, page_id));
    const resolve = capabilityOf(plugin, 'resolve_page');
    if (!resolve) return;
    // Not yet sent there (its page job still to run): that job sees the page resolved and sends nothing.
    if (!page.external_id) return;
    await resolve(plugin, { key: page.key, external_id: page.external_id });
    await job.tenant((ctx) =>
      recordPluginEvent(ctx, plugin, {
        name: 'Page resolved',
        description: `${plugin.title}: ${page.title}`,
        incident_id: page.incident_id,
        case_id: page.case_id,
        details: { page_id },
      }),
    );
  },
});
