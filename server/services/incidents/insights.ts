import { and, asc, eq, gte, sql } from 'drizzle-orm';
import { cases, caseTypes, events, incidentCosts, incidentParticipants, incidentPriorities, incidents, incidentSteps, incidentTags, incidentTypes, STEP_STATUSES, tasks } from '../../db/schema/index.js';
import { httpError } from '../../errors.js';
import type { RequestContext } from '../../resources/define.js';
import { summarize } from './ai.js';
import { actorOf, addEvent, callerEmail, caseScope, incidentScope, loadIncident } from './common.js';

/* ---------- similar incidents ---------- */

export const SIMILARITY_WEIGHTS = { text: 0.7, tags: 0.3 };

/**
 * Incidents like this one: full-text rank of the others' title and description against this one's
 * words (any of them), and the Jaccard overlap of tags. score = 0.7 x text + 0.3 x tags.
 */
export async function similarIncidents(ctx: RequestContext, id: number, limit = 10) {
  const me = await loadIncident(ctx, id);
  const query = sql`replace(plainto_tsquery('english', ${`${me.title} ${me.description ?? ''}`})::text, ' & ', ' | ')::tsquery`;
  const mine = sql`(select array_agg(tag_id) from ${incidentTags} where organization_id = ${ctx.orgId} and incident_id = ${id})`;
  const theirs = sql`(select array_agg(tag_id) from ${incidentTags} it where it.organization_id = ${incidents.organization_id} and it.incident_id = ${incidents.id})`;
  const shared = sql`coalesce(cardinality(array(select unnest(${theirs}) intersect select unnest(${mine}))), 0)`;
  const union = sql`coalesce(cardinality(array(select unnest(${theirs}) union select unnest(${mine}))), 0)`;
  // Relative to this incident's own rank against its words, so a near copy scores close to 1.
  const selfRank = sql`(select nullif(ts_rank_cd(i0.search, ${query}), 0) from ${incidents} i0 where i0.organization_id = ${ctx.orgId} and i0.id = ${id})`;
  const textScore = sql<number>`coalesce(least(1, ts_rank_cd(${incidents.search}, ${query}) / ${selfRank}), 0)`;
  const tagScore = sql<number>`case when ${union} = 0 then 0 else ${shared}::float / ${union} end`;
  const rows = await ctx.tx
    .select({
      id: incidents.id,
      name: incidents.name,
      title: incidents.title,
      status: incidents.status,
      reported_at: incidents.reported_at,
      text_score: textScore.mapWith(Number),
      tag_score: tagScore.mapWith(Number),
    })
    .from(incidents)
    .where(
      and(
        incidentScope(ctx),
        sql`${incidents.id} <> ${id}`,
        sql`(${incidents.search} @@ ${query} or exists (select 1 from ${incidentTags} it2 where it2.organization_id = ${incidents.organization_id} and it2.incident_id = ${incidents.id} and it2.tag_id = any(coalesce(${mine}, '{}'))))`,
      ),
    )
    .orderBy(sql`${SIMILARITY_WEIGHTS.text} * ${textScore} + ${SIMILARITY_WEIGHTS.tags} * ${tagScore} desc`, asc(incidents.id))
    .limit(limit);
  const items = rows.map((r) => ({ ...r, score: Math.round((SIMILARITY_WEIGHTS.text * r.text_score + SIMILARITY_WEIGHTS.tags * r.tag_score) * 10000) / 10000 }));
  return { items, method: "full-text rank (ts_rank_cd, relative to the incident's own) x 0.7 + tag Jaccard x 0.3" };
}

/* ---------- forecast ---------- */

export const FORECAST_METHOD = "Holt's linear trend (double exponential smoothing, alpha 0.5, beta 0.3)";

/** Holt's linear method: level and trend smoothed over the series, projected `ahead` steps. */
export function holtForecast(series: number[], ahead: number, alpha = 0.5, beta = 0.3): number[] {
  if (!series.length) return Array(ahead).fill(0);
  if (series.length === 1) return Array(ahead).fill(series[0]);
  let level = series[0]!;
  let trend = series[1]! - series[0]!;
  for (let i = 1; i < series.length; i++) {
    const prev = level;
    level = alpha * series[i]! + (1 - alpha) * (level + trend);
    trend = beta * (level - prev) + (1 - beta) * trend;
  }
  return Array.from({ length: ahead }, (_, h) => Math.max(0, Math.round((level + (h + 1) * trend) * 100) / 100));
}

const monthKey = (d: Date) => `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;

/** Incidents per month over the last `months` months (zeros filled in) and the next `ahead` forecast. */
export async function incidentForecast(ctx: RequestContext, months = 24, ahead = 3, now = new Date()) {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (months - 1), 1));
  const month = sql<string>`to_char(date_trunc('month', ${incidents.reported_at} at time zone 'UTC'), 'YYYY-MM')`;
  const rows = await ctx.tx
    .select({ month, count: sql<number>`count(*)::int` })
    .from(incidents)
    .where(and(incidentScope(ctx), gte(incidents.reported_at, start)))
    .groupBy(month);
  const counts = new Map(rows.map((r) => [r.month, r.count]));
  const keys = Array.from({ length: months }, (_, i) => monthKey(new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + i, 1))));
  // The series starts at the first month with an incident, so a young organization is not read as a long flat line.
  const first = keys.findIndex((k) => counts.has(k));
  const history = (first === -1 ? [] : keys.slice(first)).map((k) => ({ month: k, count: counts.get(k) ?? 0 }));
  const predicted = holtForecast(history.map((h) => h.count), ahead);
  const forecast = predicted.map((count, i) => ({ month: monthKey(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + i + 1, 1))), count }));
  return { method: FORECAST_METHOD, history, forecast };
}

/* ---------- steps ---------- */

export async function listSteps(ctx: RequestContext, incidentId: number) {
  await loadIncident(ctx, incidentId);
  return ctx.tx.select().from(incidentSteps).where(and(eq(incidentSteps.organization_id, ctx.orgId), eq(incidentSteps.incident_id, incidentId))).orderBy(asc(incidentSteps.position));
}

async function loadStep(ctx: RequestContext, incidentId: number, stepId: number) {
  const [step] = await ctx.tx.select().from(incidentSteps).where(and(eq(incidentSteps.organization_id, ctx.orgId), eq(incidentSteps.incident_id, incidentId), eq(incidentSteps.id, stepId)));
  if (!step) throw httpError(404, `Step '${stepId}' could not be found.`, 'not_found', ['path', 'stepId']);
  return step;
}

export async function updateStep(ctx: RequestContext, incidentId: number, stepId: number, patch: { status?: (typeof STEP_STATUSES)[number]; notes?: string | null; name?: string; description?: string | null }) {
  await loadIncident(ctx, incidentId);
  const before = await loadStep(ctx, incidentId, stepId);
  const me = await callerEmail(ctx);
  const [step] = await ctx.tx
    .update(incidentSteps)
    .set({ ...patch, updated_by: me, updated_at: sql`now()` })
    .where(and(eq(incidentSteps.organization_id, ctx.orgId), eq(incidentSteps.id, stepId)))
    .returning();
  const what = patch.status && patch.status !== before.status ? `marked ${patch.status}` : 'updated';
  await addEvent(ctx, { incident_id: incidentId, type: 'Step updated', description: `Step '${step!.name}' ${what} by ${await actorOf(ctx)}`, owner: me, details: { step_id: stepId, from: before.status, to: step!.status } });
  return step!;
}

/** A step's summary through the AI layer: the step, its notes and the timeline around the incident. */
export async function stepSummary(ctx: RequestContext, incidentId: number, stepId: number) {
  const incident = await loadIncident(ctx, incidentId);
  const step = await loadStep(ctx, incidentId, stepId);
  const timeline = await ctx.tx
    .select({ description: events.description })
    .from(events)
    .where(and(eq(events.organization_id, ctx.orgId), eq(events.incident_id, incidentId), sql`${events.description} ilike ${'%' + step.name.replace(/[\\%_]/g, (c) => '\\' + c) + '%'}`))
    .orderBy(asc(events.started_at))
    .limit(200);
  const result = await summarize({
    config: ctx.config,
    subject: `step '${step.name}' of ${incident.name}`,
    texts: [step.notes ?? '', step.description ?? '', ...timeline.map((e) => `${e.description}.`)],
    maxSentences: 3,
  });
  return { step_id: stepId, summary: result.summary, method: result.method };
}

/* ---------- dashboards ---------- */

const monthOf = (col: unknown) => sql<string>`to_char(date_trunc('month', ${col} at time zone 'UTC'), 'YYYY-MM')`;
const hoursBetween = (a: unknown, b: unknown) => sql<number | null>`round((avg(extract(epoch from (${b} - ${a}))) / 3600)::numeric, 2)::float8`;

/**
 * What the incident, case and task dashboards chart: counts per month by status, type and priority,
 * mean hours to stable and to close, response cost and open tasks; grouped queries over the rows the
 * caller may see, reported since `since`.
 */
export async function dashboardSummary(ctx: RequestContext, since: Date) {
  const org = ctx.orgId;
  const im = monthOf(incidents.reported_at);
  const incidentRows = await ctx.tx
    .select({ month: im, status: incidents.status, type: incidentTypes.name, priority: incidentPriorities.name, count: sql<number>`count(*)::int` })
    .from(incidents)
    .leftJoin(incidentTypes, and(eq(incidentTypes.organization_id, incidents.organization_id), eq(incidentTypes.id, incidents.incident_type_id)))
    .leftJoin(incidentPriorities, and(eq(incidentPriorities.organization_id, incidents.organization_id), eq(incidentPriorities.id, incidents.incident_priority_id)))
    .where(and(incidentScope(ctx), gte(incidents.reported_at, since)))
    .groupBy(im, incidents.status, incidentTypes.name, incidentPriorities.name)
    .orderBy(im);
  const [incidentTimes] = await ctx.tx
    .select({
      total: sql<number>`count(*)::int`,
      hours_to_stable: hoursBetween(incidents.reported_at, incidents.stable_at),
      hours_to_close: hoursBetween(incidents.reported_at, incidents.closed_at),
      cost: sql<number>`coalesce((select sum(${incidentCosts.amount}) from ${incidentCosts} where ${incidentCosts.organization_id} = ${org}), 0)::float8`,
    })
    .from(incidents)
    .where(and(incidentScope(ctx), gte(incidents.reported_at, since)));
  const cm = monthOf(cases.reported_at);
  const caseRows = await ctx.tx
    .select({ month: cm, status: cases.status, type: caseTypes.name, count: sql<number>`count(*)::int` })
    .from(cases)
    .leftJoin(caseTypes, and(eq(caseTypes.organization_id, cases.organization_id), eq(caseTypes.id, cases.case_type_id)))
    .where(and(caseScope(ctx), gte(cases.reported_at, since)))
    .groupBy(cm, cases.status, caseTypes.name)
    .orderBy(cm);
  const [caseTimes] = await ctx.tx
    .select({ total: sql<number>`count(*)::int`, hours_to_triage: hoursBetween(cases.reported_at, cases.triage_at), hours_to_close: hoursBetween(cases.reported_at, cases.closed_at) })
    .from(cases)
    .where(and(caseScope(ctx), gte(cases.reported_at, since)));
  const tm = monthOf(tasks.created_at);
  const taskRows = await ctx.tx
    .select({ month: tm, status: tasks.status, priority: tasks.priority, count: sql<number>`count(*)::int` })
    .from(tasks)
    .where(and(eq(tasks.organization_id, org), gte(tasks.created_at, since)))
    .groupBy(tm, tasks.status, tasks.priority)
    .orderBy(tm);
  const [taskTimes] = await ctx.tx
    .select({
      total: sql<number>`count(*)::int`,
      open: sql<number>`(count(*) filter (where ${tasks.status} = 'Open'))::int`,
      overdue: sql<number>`(count(*) filter (where ${tasks.status} = 'Open' and ${tasks.resolve_by} < now()))::int`,
      hours_to_resolve: hoursBetween(tasks.created_at, tasks.resolved_at),
    })
    .from(tasks)
    .where(and(eq(tasks.organization_id, org), gte(tasks.created_at, since)));
  const people = await ctx.tx
    .select({ email: incidentParticipants.email, incidents: sql<number>`count(distinct ${incidentParticipants.incident_id})::int` })
    .from(incidentParticipants)
    .innerJoin(incidents, and(eq(incidents.organization_id, incidentParticipants.organization_id), eq(incidents.id, incidentParticipants.incident_id)))
    .where(and(incidentScope(ctx), gte(incidents.reported_at, since)))
    .groupBy(incidentParticipants.email)
    .orderBy(sql`2 desc`, incidentParticipants.email)
    .limit(20);
  return {
    since: since.toISOString(),
    incidents: { ...incidentTimes, by_month: incidentRows },
    cases: { ...caseTimes, by_month: caseRows },
    tasks: { ...taskTimes, by_month: taskRows },
    people,
  };
}
