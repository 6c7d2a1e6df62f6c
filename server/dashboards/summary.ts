import { and, desc, eq, gte, inArray, isNull, or, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { cases } from '../cases/tables.js';
import { incidentCosts, incidentParticipants, incidents } from '../incidents/tables.js';
import { tasks } from '../tasks/tables.js';
import { caseTypes } from '../cases/settings-tables.js';
import { FEEDBACK_RATINGS, feedback, SERVICE_FEEDBACK_RATINGS, serviceFeedback } from '../feedback/tables.js';
import { incidentPriorities, incidentTypes } from '../incidents/settings-tables.js';
import { queries, sourceEnvironments, sources, sourceStatuses, sourceTypes } from '../data-catalog/tables.js';
import type { RequestContext } from '../core/context.js';
import { settle } from '../core/db/tenant.js';
import { caseScope } from '../cases/scope.js';
import { incidentScope } from '../incidents/scope.js';
import { linkedRows } from '../engine/visibility.js';

/** What every dashboard narrows to: rows since a date, optionally of one project. */
export interface DashboardFilter {
  since: Date;
  projectId?: number;
}

const monthOf = (col: unknown) => sql<string>`to_char(date_trunc('month', ${col} at time zone 'UTC'), 'YYYY-MM')`;
const hoursBetween = (a: unknown, b: unknown) => sql<number | null>`round((avg(extract(epoch from (${b} - ${a}))) / 3600)::numeric, 2)::float8`;
const count = sql<number>`count(*)::int`;
/** The filter's conditions on one table: its time column from `since`, and its project when one is picked. */
const window = (f: DashboardFilter, time: PgColumn, project: PgColumn) =>
  and(gte(time, f.since), f.projectId !== undefined ? eq(project, f.projectId) : undefined);

/**
 * The incident, case, task and people dashboards: counts per month by status, type and priority,
 * mean hours to stable, close, triage and resolve, response cost and open tasks; grouped queries over
 * the rows the caller may see.
 */
async function operations(ctx: RequestContext, f: DashboardFilter) {
  const org = ctx.orgId;
  const inWindow = and(incidentScope(ctx), window(f, incidents.reported_at, incidents.project_id));
  const im = monthOf(incidents.reported_at);
  const incidentRowsQuery = ctx.tx
    .select({ month: im, status: incidents.status, type: incidentTypes.name, priority: incidentPriorities.name, count })
    .from(incidents)
    .leftJoin(incidentTypes, and(eq(incidentTypes.organization_id, incidents.organization_id), eq(incidentTypes.id, incidents.incident_type_id)))
    .leftJoin(
      incidentPriorities,
      and(eq(incidentPriorities.organization_id, incidents.organization_id), eq(incidentPriorities.id, incidents.incident_priority_id)),
    )
    .where(inWindow)
    .groupBy(im, incidents.status, incidentTypes.name, incidentPriorities.name)
    .orderBy(im);
  const incidentTimesQuery = ctx.tx
    .select({
      total: count,
      hours_to_stable: hoursBetween(incidents.reported_at, incidents.stable_at),
      hours_to_close: hoursBetween(incidents.reported_at, incidents.closed_at),
      // The cost of the incidents in the window (not of every incident the organization ever had).
      cost: sql<number>`coalesce((select sum(${incidentCosts.amount}) from ${incidentCosts} where ${incidentCosts.organization_id} = ${org} and ${incidentCosts.incident_id} in (select ${incidents.id} from ${incidents} where ${inWindow})), 0)::float8`,
    })
    .from(incidents)
    .where(inWindow);
  const caseWindow = and(caseScope(ctx), window(f, cases.reported_at, cases.project_id));
  const cm = monthOf(cases.reported_at);
  const caseRowsQuery = ctx.tx
    .select({ month: cm, status: cases.status, type: caseTypes.name, count })
    .from(cases)
    .leftJoin(caseTypes, and(eq(caseTypes.organization_id, cases.organization_id), eq(caseTypes.id, cases.case_type_id)))
    .where(caseWindow)
    .groupBy(cm, cases.status, caseTypes.name)
    .orderBy(cm);
  const caseTimesQuery = ctx.tx
    .select({
      total: count,
      hours_to_triage: hoursBetween(cases.reported_at, cases.triage_at),
      hours_to_close: hoursBetween(cases.reported_at, cases.closed_at),
    })
    .from(cases)
    .where(caseWindow);
  const taskWindow = and(eq(tasks.organization_id, org), window(f, tasks.created_at, tasks.project_id), linkedRows(ctx, tasks));
  const tm = monthOf(tasks.created_at);
  const taskRowsQuery = ctx.tx
    .select({ month: tm, status: tasks.status, priority: tasks.priority, count })
    .from(tasks)
    .where(taskWindow)
    .groupBy(tm, tasks.status, tasks.priority)
    .orderBy(tm);
  const taskTimesQuery = ctx.tx
    .select({
      total: count,
      open: sql<number>`(count(*) filter (where ${tasks.status} = 'Open'))::int`,
      overdue: sql<number>`(count(*) filter (where ${tasks.status} = 'Open' and ${tasks.resolve_by} < now()))::int`,
      hours_to_resolve: hoursBetween(tasks.created_at, tasks.resolved_at),
    })
    .from(tasks)
    .where(taskWindow);
  const peopleQuery = ctx.tx
    .select({ email: incidentParticipants.email, incidents: sql<number>`count(distinct ${incidentParticipants.incident_id})::int` })
    .from(incidentParticipants)
    .innerJoin(incidents, and(eq(incidents.organization_id, incidentParticipants.organization_id), eq(incidents.id, incidentParticipants.incident_id)))
    .where(inWindow)
    .groupBy(incidentParticipants.email)
    .orderBy(sql`2 desc`, incidentParticipants.email)
    .limit(20);
  const [incidentRows, [incidentTimes], caseRows, [caseTimes], taskRows, [taskTimes], people] = await settle([
    incidentRowsQuery,
    incidentTimesQuery,
    caseRowsQuery,
    caseTimesQuery,
    taskRowsQuery,
    taskTimesQuery,
    peopleQuery,
  ] as const);
  return {
    incidents: { ...incidentTimes, by_month: incidentRows },
    cases: { ...caseTimes, by_month: caseRows },
    tasks: { ...taskTimes, by_month: taskRows },
    people,
  };
}

/** How fresh a source's data is, by when it was last loaded. */
export const FRESHNESS = ['Loaded in the last day', 'Loaded in the last week', 'Older', 'Never loaded'] as const;

/**
 * The data dashboard: sources added per month by type and status, how fresh their data is, their
 * daily volume and cost, and the sources most queries are written against.
 */
async function data(ctx: RequestContext, f: DashboardFilter) {
  const org = ctx.orgId;
  const mine = and(eq(sources.organization_id, org), f.projectId !== undefined ? eq(sources.project_id, f.projectId) : undefined);
  const sm = monthOf(sources.created_at);
  const byMonthQuery = ctx.tx
    .select({ month: sm, type: sourceTypes.name, status: sourceStatuses.name, environment: sourceEnvironments.name, count })
    .from(sources)
    .leftJoin(sourceTypes, and(eq(sourceTypes.organization_id, sources.organization_id), eq(sourceTypes.id, sources.source_type_id)))
    .leftJoin(sourceStatuses, and(eq(sourceStatuses.organization_id, sources.organization_id), eq(sourceStatuses.id, sources.source_status_id)))
    .leftJoin(
      sourceEnvironments,
      and(eq(sourceEnvironments.organization_id, sources.organization_id), eq(sourceEnvironments.id, sources.source_environment_id)),
    )
    .where(and(mine, gte(sources.created_at, f.since)))
    .groupBy(sm, sourceTypes.name, sourceStatuses.name, sourceEnvironments.name)
    .orderBy(sm);
  const freshness = sql<string>`case
    when ${sources.data_last_loaded_at} is null then ${FRESHNESS[3]}
    when ${sources.data_last_loaded_at} >= now() - interval '1 day' then ${FRESHNESS[0]}
    when ${sources.data_last_loaded_at} >= now() - interval '7 days' then ${FRESHNESS[1]}
    else ${FRESHNESS[2]} end`;
  // Grouped by position: the bucket names are bound parameters, so the expression could not be repeated.
  const freshQuery = ctx.tx
    .select({ freshness, count })
    .from(sources)
    .where(mine)
    .groupBy(sql`1`);
  const totalsQuery = ctx.tx
    .select({
      total: count,
      bytes_per_day: sql<number>`coalesce(sum(${sources.size}), 0)::float8`,
      cost: sql<number>`coalesce(sum(${sources.cost}), 0)::float8`,
      mean_delay_minutes: sql<number | null>`round(avg(${sources.delay})::numeric, 1)::float8`,
    })
    .from(sources)
    .where(mine);
  const queriedQuery = ctx.tx
    .select({ name: sources.name, queries: sql<number>`count(${queries.id})::int` })
    .from(sources)
    .innerJoin(queries, and(eq(queries.organization_id, sources.organization_id), eq(queries.source_id, sources.id)))
    .where(mine)
    .groupBy(sources.id, sources.name)
    .orderBy(sql`2 desc`, sources.name)
    .limit(10);
  const [byMonth, fresh, [totals], queried] = await settle([byMonthQuery, freshQuery, totalsQuery, queriedQuery] as const);
  const counts = new Map(fresh.map((r) => [r.freshness, r.count]));
  return { ...totals, by_month: byMonth, freshness: FRESHNESS.map((name) => ({ name, count: counts.get(name) ?? 0 })), most_queried: queried };
}

/** Ratings as scores (5 best), so a mean can be charted. */
const score = (column: PgColumn, ratings: readonly string[]) =>
  sql<number>`(case ${sql.join(
    ratings.map((r, i) => sql`when ${column} = ${r} then ${sql.raw(String(ratings.length - i))}`),
    sql` `,
  )} end)`;

/**
 * The feedback dashboard: participants' ratings of incidents and on-call effort ratings per month,
 * mean scores (5 = very satisfied, or no effort), and the latest comments. Feedback on an incident the
 * caller may not see stays out.
 */
async function ratings(ctx: RequestContext, f: DashboardFilter) {
  const org = ctx.orgId;
  const visible = or(
    isNull(feedback.incident_id),
    inArray(feedback.incident_id, ctx.tx.select({ id: incidents.id }).from(incidents).where(incidentScope(ctx))),
  );
  const incidentFeedback = and(eq(feedback.organization_id, org), window(f, feedback.created_at, feedback.project_id), visible);
  const fm = monthOf(feedback.created_at);
  const byMonthQuery = ctx.tx
    .select({ month: fm, rating: feedback.rating, count })
    .from(feedback)
    .where(incidentFeedback)
    .groupBy(fm, feedback.rating)
    .orderBy(fm);
  const totalsQuery = ctx.tx
    .select({ total: count, mean_score: sql<number | null>`round(avg(${score(feedback.rating, FEEDBACK_RATINGS)})::numeric, 2)::float8` })
    .from(feedback)
    .where(incidentFeedback);
  const latestQuery = ctx.tx
    .select({ id: feedback.id, rating: feedback.rating, feedback: feedback.feedback, incident: incidents.name, created_at: feedback.created_at })
    .from(feedback)
    .leftJoin(incidents, and(eq(incidents.organization_id, feedback.organization_id), eq(incidents.id, feedback.incident_id)))
    .where(and(incidentFeedback, sql`${feedback.feedback} is not null and ${feedback.feedback} <> ''`))
    .orderBy(desc(feedback.created_at), desc(feedback.id))
    .limit(5);
  const serviceWindow = and(eq(serviceFeedback.organization_id, org), window(f, serviceFeedback.created_at, serviceFeedback.project_id));
  const sm = monthOf(serviceFeedback.created_at);
  const serviceByMonthQuery = ctx.tx
    .select({ month: sm, rating: serviceFeedback.rating, count })
    .from(serviceFeedback)
    .where(serviceWindow)
    .groupBy(sm, serviceFeedback.rating)
    .orderBy(sm);
  const serviceTotalsQuery = ctx.tx
    .select({ total: count, mean_score: sql<number | null>`round(avg(${score(serviceFeedback.rating, SERVICE_FEEDBACK_RATINGS)})::numeric, 2)::float8` })
    .from(serviceFeedback)
    .where(serviceWindow);
  const [byMonth, [totals], latest, serviceByMonth, [serviceTotals]] = await settle([
    byMonthQuery,
    totalsQuery,
    latestQuery,
    serviceByMonthQuery,
    serviceTotalsQuery,
  ] as const);
  return { ...totals, by_month: byMonth, latest, service: { ...serviceTotals, by_month: serviceByMonth } };
}

/**
 * Everything the dashboards chart, for one filter. The queries are independent: all go out together
 * (pipelined on PostgreSQL) and all are settled before the transaction ends.
 */
export async function dashboardSummary(ctx: RequestContext, f: DashboardFilter) {
  const [ops, dataFigures, feedbackFigures] = await settle([operations(ctx, f), data(ctx, f), ratings(ctx, f)] as const);
  return { since: f.since.toISOString(), project_id: f.projectId ?? null, ...ops, data: dataFigures, feedback: feedbackFigures };
}
