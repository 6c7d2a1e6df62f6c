import { and, eq, sql } from 'drizzle-orm';
import { comments, conversationMessages, events } from '../timeline/tables.js';
import { incidentCosts, incidentParticipants, incidents } from './tables.js';
import { costModels } from '../cost-models/tables.js';
import { projects } from '../core/db/projects.js';
import type { RequestContext } from '../core/context.js';

/** One tracked participant activity: who, when (ms since epoch), and the response time it costs. */
export interface Activity {
  participant: string;
  at: number;
  responseSeconds: number;
}

export interface CostBreakdown {
  hourly_rate: number;
  hours: number;
  amount: number;
  participants: { email: string; hours: number; windows: { start: string; end: string }[] }[];
}

/**
 * The response cost rule: an activity at t with response time r opens the window [t, t + r] for its
 * participant or, when t falls inside that participant's open window, extends the window to end at
 * t + r. Cost = total window hours x hourly rate (project annual employee cost / business year hours).
 */
export function responseCost(activities: Activity[], hourlyRate: number): CostBreakdown {
  const byParticipant = new Map<string, Activity[]>();
  for (const a of activities) {
    const list = byParticipant.get(a.participant) ?? [];
    list.push(a);
    byParticipant.set(a.participant, list);
  }
  let totalMs = 0;
  const participants: CostBreakdown['participants'] = [];
  for (const [email, list] of [...byParticipant].sort(([a], [b]) => a.localeCompare(b))) {
    list.sort((a, b) => a.at - b.at);
    const windows: [number, number][] = [];
    for (const a of list) {
      const open = windows[windows.length - 1];
      const end = a.at + a.responseSeconds * 1000;
      // "Extends that window to end at t + r": the end moves to t + r (never backwards).
      if (open && a.at <= open[1]) open[1] = Math.max(open[1], end);
      else windows.push([a.at, end]);
    }
    const ms = windows.reduce((s, [a, b]) => s + (b - a), 0);
    totalMs += ms;
    participants.push({
      email,
      hours: ms / 3_600_000,
      windows: windows.map(([a, b]) => ({ start: new Date(a).toISOString(), end: new Date(b).toISOString() })),
    });
  }
  const hours = totalMs / 3_600_000;
  return { hourly_rate: hourlyRate, hours, amount: Math.round(hours * hourlyRate * 100) / 100, participants };
}

/** Response seconds per activity kind; a project's enabled cost model overrides the default. */
export const DEFAULT_RESPONSE_SECONDS = 300;
export const ACTIVITY_KINDS = ['timeline_event', 'comment', 'conversation_message'] as const;

/**
 * Gathers an incident's tracked activities (timeline events, comments, conversation messages by its
 * participants) in three queries and stores the result as the incident's response cost.
 */
export async function incidentResponseCost(ctx: RequestContext, incidentId: number) {
  const [rate] = await ctx.tx
    .select({ annual: projects.annual_employee_cost, hours: projects.business_year_hours, project_id: projects.id })
    .from(incidents)
    .innerJoin(projects, and(eq(projects.organization_id, incidents.organization_id), eq(projects.id, incidents.project_id)))
    .where(and(eq(incidents.organization_id, ctx.orgId), eq(incidents.id, incidentId)));
  const hourlyRate = rate ? rate.annual / rate.hours : 0;
  // The project's enabled cost model (else an organization-wide one) names the response time per activity.
  const [model] = await ctx.tx
    .select({ name: costModels.name, activities: costModels.activities })
    .from(costModels)
    .where(
      and(
        eq(costModels.organization_id, ctx.orgId),
        eq(costModels.enabled, true),
        sql`(${costModels.project_id} = ${rate?.project_id ?? null}::integer or ${costModels.project_id} is null)`,
      ),
    )
    .orderBy(sql`${costModels.project_id} is null`, costModels.id)
    .limit(1);
  const configured = new Map((model?.activities ?? []).filter((a) => a.enabled).map((a) => [a.plugin_event, a.response_time_seconds]));
  const r = (kind: (typeof ACTIVITY_KINDS)[number]) => configured.get(kind) ?? DEFAULT_RESPONSE_SECONDS;
  const isParticipant = (email: unknown) =>
    sql`exists (select 1 from ${incidentParticipants} p where p.organization_id = ${ctx.orgId} and p.incident_id = ${incidentId} and p.email = ${email})`;
  const [evs, cms, msgs] = await Promise.all([
    ctx.tx
      .select({ who: events.owner, at: events.started_at })
      .from(events)
      .where(and(eq(events.organization_id, ctx.orgId), eq(events.incident_id, incidentId), isParticipant(events.owner))),
    ctx.tx
      .select({ who: comments.author_email, at: comments.created_at })
      .from(comments)
      .where(and(eq(comments.organization_id, ctx.orgId), eq(comments.incident_id, incidentId), isParticipant(comments.author_email))),
    ctx.tx
      .select({ who: conversationMessages.author_email, at: conversationMessages.created_at })
      .from(conversationMessages)
      .where(
        and(
          eq(conversationMessages.organization_id, ctx.orgId),
          sql`${conversationMessages.conversation_id} = (select conversation_id from ${incidents} i where i.organization_id = ${ctx.orgId} and i.id = ${incidentId})`,
          isParticipant(conversationMessages.author_email),
        ),
      ),
  ]);
  const activities: Activity[] = [
    ...evs.map((e) => ({ participant: e.who!, at: e.at.getTime(), responseSeconds: r('timeline_event') })),
    ...cms.map((e) => ({ participant: e.who!, at: e.at.getTime(), responseSeconds: r('comment') })),
    ...msgs.map((e) => ({ participant: e.who, at: e.at.getTime(), responseSeconds: r('conversation_message') })),
  ];
  const cost = responseCost(activities, hourlyRate);
  await ctx.tx
    .insert(incidentCosts)
    .values({
      organization_id: ctx.orgId,
      incident_id: incidentId,
      kind: 'response',
      amount: cost.amount,
      details: { hours: cost.hours, hourly_rate: hourlyRate },
    })
    .onConflictDoUpdate({
      target: [incidentCosts.organization_id, incidentCosts.incident_id, incidentCosts.kind],
      set: { amount: cost.amount, details: { hours: cost.hours, hourly_rate: hourlyRate }, updated_at: sql`now()` },
    });
  return { ...cost, cost_model: model?.name ?? null, response_seconds: Object.fromEntries(ACTIVITY_KINDS.map((k) => [k, r(k)])) };
}
