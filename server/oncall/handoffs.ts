import { and, asc, desc, eq, gte, inArray, lte, or, sql } from 'drizzle-orm';
import { incidentParticipants, incidents } from '../incidents/tables.js';
import { tasks } from '../tasks/tables.js';
import { incidentPriorities } from '../incidents/settings-tables.js';
import { oncallHandoffs } from './tables.js';
import type { RequestContext } from '../core/context.js';
import { handoffResource } from './resources.js';
import { addEvent } from '../timeline/events.js';
import { incidentScope, loadIncident } from '../incidents/scope.js';
import { linkedRows } from '../engine/visibility.js';
import { actorOf, callerEmail } from '../core/caller.js';

/** A shift with no earlier handoff to the caller is taken to have started this long ago. */
export const DEFAULT_SHIFT_HOURS = 12;
/** At most this many incidents are summed up in one handoff. */
const MAX_INCIDENTS = 50;

const day = (d: Date | null) => (d ? `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC` : null);

/**
 * What the handoff dialog starts from. From an incident: that incident. From the shift: the
 * Active and Stable incidents the caller takes part in (or commands). The shift runs from the end of
 * the last handoff made to the caller (else 12 hours ago) until now; pending tasks are the open tasks
 * of those incidents (plus, for a shift, the caller's own), completed ones those resolved in the shift.
 */
export async function handoffPrefill(ctx: RequestContext, incidentId?: number, now = new Date()) {
  const me = await callerEmail(ctx);
  const [last] = me
    ? await ctx.tx
        .select({ end_time: oncallHandoffs.end_time })
        .from(oncallHandoffs)
        .where(and(eq(oncallHandoffs.organization_id, ctx.orgId), eq(oncallHandoffs.handover_to, me), lte(oncallHandoffs.end_time, now)))
        .orderBy(desc(oncallHandoffs.end_time))
        .limit(1)
    : [];
  const start = last?.end_time ?? new Date(now.getTime() - DEFAULT_SHIFT_HOURS * 3600_000);

  const priority = sql<
    string | null
  >`(select ${incidentPriorities.name} from ${incidentPriorities} where ${incidentPriorities.organization_id} = ${incidents.organization_id} and ${incidentPriorities.id} = ${incidents.incident_priority_id})`;
  const mine = me
    ? or(
        eq(incidents.commander_email, me),
        sql`exists (select 1 from ${incidentParticipants} where ${incidentParticipants.organization_id} = ${ctx.orgId} and ${incidentParticipants.incident_id} = ${incidents.id} and ${incidentParticipants.email} = ${me})`,
      )
    : sql`false`;
  if (incidentId !== undefined) await loadIncident(ctx, incidentId);
  const chosen = await ctx.tx
    .select({
      id: incidents.id,
      name: incidents.name,
      title: incidents.title,
      status: incidents.status,
      commander_email: incidents.commander_email,
      project_id: incidents.project_id,
      priority,
    })
    .from(incidents)
    .where(
      incidentId !== undefined
        ? and(incidentScope(ctx), eq(incidents.id, incidentId))
        : and(incidentScope(ctx), inArray(incidents.status, ['Active', 'Stable']), mine),
    )
    .orderBy(asc(incidents.reported_at), asc(incidents.id))
    .limit(MAX_INCIDENTS);
  const ids = chosen.map((i) => i.id);
  const names = new Map(chosen.map((i) => [i.id, i.name]));

  const ofIncidents = ids.length ? inArray(tasks.incident_id, ids) : sql`false`;
  const owned = me && incidentId === undefined ? or(eq(tasks.owner_email, me), sql`${me} = any(${tasks.assignees})`) : sql`false`;
  const taskRows = await ctx.tx
    .select({
      description: tasks.description,
      status: tasks.status,
      incident_id: tasks.incident_id,
      resolve_by: tasks.resolve_by,
      resolved_at: tasks.resolved_at,
    })
    .from(tasks)
    // The caller's own tasks only where they may see their incident or case (a restricted one's task stays hidden).
    .where(
      and(eq(tasks.organization_id, ctx.orgId), or(ofIncidents, owned), or(eq(tasks.status, 'Open'), gte(tasks.resolved_at, start)), linkedRows(ctx, tasks)),
    )
    .orderBy(asc(tasks.created_at), asc(tasks.id))
    .limit(200);
  const line = (t: (typeof taskRows)[number]) => {
    const where = [t.incident_id ? names.get(t.incident_id) : null, t.status === 'Open' && t.resolve_by ? `due ${day(t.resolve_by)}` : null]
      .filter(Boolean)
      .join(', ');
    return `- ${t.description}${where ? ` (${where})` : ''}`;
  };
  const participants = ids.length
    ? await ctx.tx
        .selectDistinct({ email: incidentParticipants.email })
        .from(incidentParticipants)
        .where(and(eq(incidentParticipants.organization_id, ctx.orgId), inArray(incidentParticipants.incident_id, ids)))
        .orderBy(asc(incidentParticipants.email))
    : [];

  return {
    handover_from: me ?? '',
    start_time: start.toISOString(),
    end_time: now.toISOString(),
    project_id: incidentId !== undefined ? (chosen[0]?.project_id ?? null) : null,
    critical_ongoing_issues: chosen
      .map((i) => `${i.name} ${i.title}: ${i.status}${i.priority ? `, priority ${i.priority}` : ''}, commander ${i.commander_email ?? 'unassigned'}`)
      .join('\n'),
    pending_tasks: taskRows
      .filter((t) => t.status === 'Open')
      .map(line)
      .join('\n'),
    tasks_completed: taskRows
      .filter((t) => t.status !== 'Open')
      .map(line)
      .join('\n'),
    mentions: participants
      .map((p) => p.email)
      .filter((e) => e !== me)
      .join(', '),
    incidents: chosen.map((i) => i.name),
  };
}

/** A handoff made from an incident: the /oncall/handoffs record (in the incident's project) and a timeline entry. */
export async function createIncidentHandoff(ctx: RequestContext, incidentId: number, body: Record<string, unknown>) {
  const incident = await loadIncident(ctx, incidentId);
  const data = (await handoffResource.hooks!.beforeCreate!(ctx, { ...body, project_id: incident.project_id })) as typeof oncallHandoffs.$inferInsert;
  const [row] = await ctx.tx
    .insert(oncallHandoffs)
    .values({ ...data, organization_id: ctx.orgId })
    .returning();
  await addEvent(ctx, {
    incident_id: incidentId,
    type: 'Participant updated',
    description: `On-call handoff from ${row!.handover_from} to ${row!.handover_to} recorded by ${await actorOf(ctx)}`,
    owner: await callerEmail(ctx),
    details: { handoff_id: row!.id },
  });
  return row!;
}
