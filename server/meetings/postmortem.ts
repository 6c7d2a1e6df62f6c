import { and, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { RequestContext } from '../core/context.js';
import { subscribe } from '../core/events.js';
import { BACKGROUND_LANE, defineJob, enqueueJobs, NotReady, type JobDefinition } from '../core/jobs/define.js';
import { addEvent } from '../timeline/events.js';
import { incidentParticipants, incidentResources, incidents } from '../incidents/tables.js';
import { incidentPriorities } from '../incidents/settings-tables.js';
import { honouringRateLimits, ServiceRefused } from '../plugins/outside.js';
import { capabilityOf, loadPlugin, pluginWith } from '../plugins/registry.js';
import { recordPluginEvent } from '../plugins/runtime.js';
import './capabilities.js';
import { meetings } from './tables.js';

const Payload = z.object({ incident_id: z.number().int() });
/** The review is two days after the incident turned stable, on the hour, for an hour. */
const REVIEW_AFTER_MS = 2 * 86_400_000;

export const postmortemMeetingJob: JobDefinition<typeof Payload> = defineJob({
  name: 'meetings.postmortem',
  lane: BACKGROUND_LANE,
  payload: Payload,
  run: (data, job) => honouringRateLimits(job.tenant, postmortemMeetingJob, data, () => job.tenant((ctx) => schedulePostmortem(ctx, data.incident_id))),
});

export async function schedulePostmortem(ctx: RequestContext, incidentId: number) {
  const [incident] = await ctx.tx
    .select()
    .from(incidents)
    .where(and(eq(incidents.organization_id, ctx.orgId), eq(incidents.id, incidentId)));
  if (!incident) throw new NotReady();
  const chosen = await pluginWith(ctx, 'schedule_meeting', incident.project_id);
  if (!chosen) return;
  await ctx.tx
    .insert(meetings)
    .values({ organization_id: ctx.orgId, incident_id: incidentId, purpose: 'postmortem', plugin_instance_id: chosen.plugin.id })
    .onConflictDoNothing();
  const [row] = await ctx.tx
    .select()
    .from(meetings)
    .where(and(eq(meetings.organization_id, ctx.orgId), eq(meetings.incident_id, incidentId), eq(meetings.purpose, 'postmortem')))
    .for('update');
  if (!row || row.meeting_id) return;
  const plugin = (await loadPlugin(ctx, row.plugin_instance_id)) ?? chosen.plugin;
  const people = await ctx.tx
    .select({ email: incidentParticipants.email })
    .from(incidentParticipants)
    .where(and(eq(incidentParticipants.organization_id, ctx.orgId), eq(incidentParticipants.incident_id, incidentId)));
  const start = new Date(Math.ceil((Date.now() + REVIEW_AFTER_MS) / 3_600_000) * 3_600_000);
  try {
    const made = await capabilityOf(plugin, 'schedule_meeting')!(plugin, {
      title: `Postmortem review: ${incident.name} ${incident.title}`,
      description: `Review of incident ${incident.name}.`,
      start,
      minutes: 60,
      attendees: people.map((p) => p.email),
      request_id: `${ctx.orgSlug}-${incident.name}-postmortem`,
    });
    await ctx.tx
      .update(meetings)
      .set({ meeting_id: made.meeting_id, weblink: made.weblink, starts_at: start, error: null, updated_at: sql`now()` })
      .where(eq(meetings.id, row.id));
    await ctx.tx.insert(incidentResources).values({
      organization_id: ctx.orgId,
      incident_id: incidentId,
      resource_type: 'postmortem-meeting',
      name: `Postmortem review meeting (${start.toISOString().slice(0, 16).replace('T', ' ')} UTC)`,
      weblink: made.weblink,
      description: `Invited: ${people.map((p) => p.email).join(', ')}`,
    });
    const description = `Postmortem review scheduled in ${plugin.title} for ${start.toISOString()} with ${people.length} participant(s): ${made.weblink}`;
    await addEvent(ctx, { incident_id: incidentId, type: 'Resource updated', description });
    await recordPluginEvent(ctx, plugin, { name: 'Meeting scheduled', description, incident_id: incidentId, details: { ...made } });
  } catch (err) {
    if (!(err instanceof ServiceRefused)) throw err;
    await ctx.tx
      .update(meetings)
      .set({ error: err.message, updated_at: sql`now()` })
      .where(eq(meetings.id, row.id));
    await addEvent(ctx, {
      incident_id: incidentId,
      type: 'Resource updated',
      description: `${plugin.title} could not schedule the postmortem review: ${err.message}`,
    });
  }
}

/** An incident of a priority with auto_schedule_postmortem_meeting gets its review once it is stable or closed. */
subscribe(async (ctx, events) => {
  if (events.type !== 'incident.updated') return;
  const due = await ctx.tx
    .select({ id: incidents.id })
    .from(incidents)
    .innerJoin(
      incidentPriorities,
      and(eq(incidentPriorities.organization_id, incidents.organization_id), eq(incidentPriorities.id, incidents.incident_priority_id)),
    )
    .leftJoin(
      meetings,
      and(eq(meetings.organization_id, incidents.organization_id), eq(meetings.incident_id, incidents.id), eq(meetings.purpose, 'postmortem')),
    )
    .where(
      and(
        eq(incidents.organization_id, ctx.orgId),
        inArray(incidents.id, events.ids),
        inArray(incidents.status, ['Stable', 'Closed']),
        eq(incidentPriorities.auto_schedule_postmortem_meeting, true),
        sql`${meetings.id} is null`,
      ),
    );
  await enqueueJobs(
    ctx,
    postmortemMeetingJob,
    due.map((d) => ({ incident_id: d.id })),
  );
});
