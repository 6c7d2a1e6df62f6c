import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { RequestContext } from '../core/context.js';
import { subscribe } from '../core/events.js';
import { BACKGROUND_LANE, defineJob, enqueueJobs, NotReady, type JobDefinition } from '../core/jobs/define.js';
import { addEvent } from '../timeline/events.js';
import { cases } from '../cases/tables.js';
import { incidentResources, incidents } from '../incidents/tables.js';
import { pluginInstances } from '../plugins/tables.js';
import { capabilityOf, loadPlugin, pluginWith, slugsWith, type LoadedPlugin } from '../plugins/registry.js';
import { recordPluginEvent } from '../plugins/runtime.js';
import type { RateLimited } from '../core/http/outbound.js';
import { honouringRateLimits, ServiceRefused } from '../plugins/outside.js';
import { categoryOf, type TicketRef } from './capabilities.js';
import { loadOutsideRecord, metadataFor, type Kind, type OutsideRecord } from './records.js';
import { ticketDeliveries, tickets } from './tables.js';

const Sync = z.object({ kind: z.enum(['incident', 'case']), id: z.number().int() });

/** Opens the record's ticket if it has none, then moves it to its record's status category. */
export const ticketSyncJob: JobDefinition<typeof Sync> = defineJob({
  name: 'tickets.sync',
  lane: BACKGROUND_LANE,
  payload: Sync,
  run: (data, job) =>
    honouringRateLimits(
      job.tenant,
      ticketSyncJob,
      data,
      () => job.tenant((ctx) => syncTicket(ctx, data.kind, data.id)),
      (ctx, err) => saidOnTimeline(ctx, data, err),
    ),
});

/** Jira's retries of a delivery follow it closely: a week of delivery ids recognizes them with room to spare. */
export const pruneTicketDeliveriesJob = defineJob({
  name: 'tickets.prune_deliveries',
  payload: z.object({}),
  cron: () => '23 * * * *',
  run: async (_data, { app }) => {
    await app.db.delete(ticketDeliveries).where(lt(ticketDeliveries.received_at, sql`now() - interval '7 days'`));
  },
});

const owner = (kind: Kind, id: number) => (kind === 'incident' ? { incident_id: id } : { case_id: id });
const ownerIs = (kind: Kind, id: number) => (kind === 'incident' ? eq(tickets.incident_id, id) : eq(tickets.case_id, id));

async function saidOnTimeline(ctx: RequestContext, data: { kind: Kind; id: number }, err: RateLimited) {
  await addEvent(ctx, { ...owner(data.kind, data.id), type: 'Resource updated', source: 'Jira', description: err.message });
}

/** The ticket row of a record, locked; created (for the project's ticket plugin) when it has none. */
async function ticketRowOf(ctx: RequestContext, record: OutsideRecord) {
  const lockRow = async () =>
    (
      await ctx.tx
        .select()
        .from(tickets)
        .where(and(eq(tickets.organization_id, ctx.orgId), ownerIs(record.kind, record.id)))
        .for('update')
    )[0];
  const found = await lockRow();
  if (found) return found;
  const chosen = await pluginWith(ctx, 'create_ticket', record.project_id);
  if (!chosen) return null;
  await ctx.tx
    .insert(tickets)
    .values({ organization_id: ctx.orgId, ...owner(record.kind, record.id), plugin_instance_id: chosen.plugin.id, resource_type: chosen.plugin.slug })
    .onConflictDoNothing();
  return lockRow();
}

/** The ticket as the record shows it: an incident's resource (its `ticket`), a case's `ticket` column. */
async function showTicket(ctx: RequestContext, record: OutsideRecord, ref: TicketRef) {
  const resource = { resource_type: ref.resource_type, resource_id: ref.resource_id, weblink: ref.weblink };
  if (record.kind === 'case') {
    await ctx.tx
      .update(cases)
      .set({ ticket: resource })
      .where(and(eq(cases.organization_id, ctx.orgId), eq(cases.id, record.id)));
    return;
  }
  await ctx.tx.insert(incidentResources).values({
    organization_id: ctx.orgId,
    incident_id: record.id,
    resource_type: ref.resource_type,
    name: `${ref.resource_id}: ${record.title}`.slice(0, 500),
    weblink: ref.weblink,
    description: `Jira issue ${ref.resource_id} of ${record.name}`,
  });
}

async function refused(ctx: RequestContext, plugin: LoadedPlugin, record: OutsideRecord, ticketId: number, what: string, err: ServiceRefused) {
  await ctx.tx
    .update(tickets)
    .set({ error: err.message, updated_at: sql`now()` })
    .where(eq(tickets.id, ticketId));
  const description = `${plugin.title} could not ${what}: ${err.message}`;
  await addEvent(ctx, { ...owner(record.kind, record.id), type: 'Resource updated', source: 'Jira', description });
  await recordPluginEvent(ctx, plugin, { name: 'Ticket refused', description, ...owner(record.kind, record.id), details: { status: err.status } });
}

export async function syncTicket(ctx: RequestContext, kind: Kind, id: number) {
  const record = await loadOutsideRecord(ctx, kind, id);
  if (!record) throw new NotReady();
  const row = await ticketRowOf(ctx, record);
  const plugin = row && (await loadPlugin(ctx, row.plugin_instance_id));
  if (!row || !plugin) return;
  let key = row.resource_id;
  if (!key) {
    const create = capabilityOf(plugin, 'create_ticket');
    if (!create) return;
    try {
      const ref = await create(plugin, { ...record, organization: ctx.orgSlug, metadata: metadataFor(record.plugin_metadata, plugin.slug) });
      key = ref.resource_id;
      await ctx.tx
        .update(tickets)
        .set({ resource_type: ref.resource_type, resource_id: key, weblink: ref.weblink, error: ref.warning ?? null, updated_at: sql`now()` })
        .where(eq(tickets.id, row.id));
      await showTicket(ctx, record, ref);
      const description = `Ticket ${key} opened in ${plugin.title}: ${ref.weblink}${ref.warning ? `. ${ref.warning}` : ''}`;
      await addEvent(ctx, { ...owner(kind, id), type: 'Resource updated', source: 'Jira', description, details: { ...ref } });
      await recordPluginEvent(ctx, plugin, { name: 'Ticket created', description, ...owner(kind, id), details: { ...ref } });
    } catch (err) {
      if (!(err instanceof ServiceRefused)) throw err;
      return refused(ctx, plugin, record, row.id, 'open a ticket', err);
    }
  }
  if (row.synced_status === record.status) return;
  const category = categoryOf(kind, record.status);
  try {
    const moved = await capabilityOf(plugin, 'update_ticket')?.(plugin, key, { category, note: `${record.name} is ${record.status}` });
    await ctx.tx
      .update(tickets)
      .set({ synced_status: record.status, status_category: category, updated_at: sql`now()` })
      .where(eq(tickets.id, row.id));
    if (moved && row.synced_status)
      await addEvent(ctx, {
        ...owner(kind, id),
        type: 'Resource updated',
        source: 'Jira',
        description: `Ticket ${key} moved to ${moved.status} (${record.status})`,
      });
  } catch (err) {
    if (!(err instanceof ServiceRefused)) throw err;
    await refused(ctx, plugin, record, row.id, `move ${key}`, err);
  }
}

/**
 * New incidents and cases get a ticket when a ticket plugin is enabled; a status change moves the
 * ticket. Both are jobs (the call leaves the request), queued in the request's transaction.
 */
subscribe(async (ctx, events) => {
  const [subject, change] = events.type.split('.') as [string, string];
  if (subject !== 'incident' && subject !== 'case') return;
  const kind = subject as Kind;
  const slugs = slugsWith('create_ticket');
  if (change === 'created') {
    const [any] = await ctx.tx
      .select({ id: pluginInstances.id })
      .from(pluginInstances)
      .where(and(eq(pluginInstances.organization_id, ctx.orgId), eq(pluginInstances.enabled, true), inArray(pluginInstances.plugin_slug, slugs)))
      .limit(1);
    if (any)
      await enqueueJobs(
        ctx,
        ticketSyncJob,
        events.ids.map((id) => ({ kind, id })),
      );
    return;
  }
  if (change !== 'updated') return;
  const t = kind === 'incident' ? incidents : cases;
  const moved = await ctx.tx
    .select({ id: t.id })
    .from(tickets)
    .innerJoin(t, and(eq(t.organization_id, tickets.organization_id), eq(t.id, kind === 'incident' ? tickets.incident_id : tickets.case_id)))
    .where(and(eq(tickets.organization_id, ctx.orgId), inArray(t.id, events.ids), sql`${tickets.synced_status} is distinct from ${t.status}`));
  await enqueueJobs(
    ctx,
    ticketSyncJob,
    moved.map((m) => ({ kind, id: m.id })),
  );
});
