import { and, asc, eq, gte, sql } from 'drizzle-orm';
import { events } from '../timeline/tables.js';
import { incidents, incidentSteps, incidentTags, STEP_STATUSES } from './tables.js';
import { httpError } from '../core/errors.js';
import { containing } from '../engine/filters.js';
import type { RequestContext } from '../core/context.js';
import { summarize } from './ai.js';
import { addEvent } from '../timeline/events.js';
import { incidentScope, loadIncident } from './scope.js';
import { actorOf, callerEmail } from '../core/caller.js';

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
  const items = rows.map((r) => ({
    ...r,
    score: Math.round((SIMILARITY_WEIGHTS.text * r.text_score + SIMILARITY_WEIGHTS.tags * r.tag_score) * 10000) / 10000,
  }));
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
  const predicted = holtForecast(
    history.map((h) => h.count),
    ahead,
  );
  const forecast = predicted.map((count, i) => ({ month: monthKey(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + i + 1, 1))), count }));
  return { method: FORECAST_METHOD, history, forecast };
}

/* ---------- steps ---------- */

export async function listSteps(ctx: RequestContext, incidentId: number) {
  await loadIncident(ctx, incidentId);
  return ctx.tx
    .select()
    .from(incidentSteps)
    .where(and(eq(incidentSteps.organization_id, ctx.orgId), eq(incidentSteps.incident_id, incidentId)))
    .orderBy(asc(incidentSteps.position));
}

async function loadStep(ctx: RequestContext, incidentId: number, stepId: number) {
  const [step] = await ctx.tx
    .select()
    .from(incidentSteps)
    .where(and(eq(incidentSteps.organization_id, ctx.orgId), eq(incidentSteps.incident_id, incidentId), eq(incidentSteps.id, stepId)));
  if (!step) throw httpError(404, `Step '${stepId}' could not be found.`, 'not_found', ['path', 'stepId']);
  return step;
}

export async function updateStep(
  ctx: RequestContext,
  incidentId: number,
  stepId: number,
  patch: { status?: (typeof STEP_STATUSES)[number]; notes?: string | null; name?: string; description?: string | null },
) {
  await loadIncident(ctx, incidentId);
  const before = await loadStep(ctx, incidentId, stepId);
  const me = await callerEmail(ctx);
  const [step] = await ctx.tx
    .update(incidentSteps)
    .set({ ...patch, updated_by: me, updated_at: sql`now()` })
    .where(and(eq(incidentSteps.organization_id, ctx.orgId), eq(incidentSteps.id, stepId)))
    .returning();
  const what = patch.status && patch.status !== before.status ? `marked ${patch.status}` : 'updated';
  await addEvent(ctx, {
    incident_id: incidentId,
    type: 'Step updated',
    description: `Step '${step!.name}' ${what} by ${await actorOf(ctx)}`,
    owner: me,
    details: { step_id: stepId, from: before.status, to: step!.status },
  });
  return step!;
}

/** A step's summary through the AI layer: the step, its notes and the timeline around the incident. */
export async function stepSummary(ctx: RequestContext, incidentId: number, stepId: number) {
  const incident = await loadIncident(ctx, incidentId);
  const step = await loadStep(ctx, incidentId, stepId);
  const timeline = await ctx.tx
    .select({ description: events.description })
    .from(events)
    .where(and(eq(events.organization_id, ctx.orgId), eq(events.incident_id, incidentId), sql`${events.description} ilike ${containing(step.name)}`))
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
