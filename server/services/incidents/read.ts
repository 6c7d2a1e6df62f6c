import { and, asc, desc, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import {
  casePriorities,
  caseSeverities,
  caseTypes,
  incidentPriorities,
  incidentSeverities,
  incidentTypes,
  caseParticipants,
  cases,
  caseTags,
  comments,
  events,
  incidentCosts,
  incidentParticipants,
  incidentResources,
  incidentRoles,
  incidents,
  incidentSteps,
  incidentSubscriptions,
  incidentTags,
  reports,
  tags,
  tasks,
  users,
} from '../../db/schema/index.js';
import type { RequestContext } from '../../resources/define.js';
import { notFound } from '../../errors.js';
import { incidentScope, loadCase } from './common.js';

const { search: _search, ...incidentColumns } = getTableColumns(incidents);
export { incidentColumns };
/** Names of the settings rows a record points at ({type, priority, severity}), in one query. */
async function settingNames(ctx: RequestContext, parts: [string, PgTable & { organization_id: PgColumn; id: PgColumn; name: PgColumn }, number | null][]) {
  const cols: Record<string, SQL> = {};
  for (const [key, table, id] of parts) cols[key] = sql`(select ${table.name} from ${table} where ${table.organization_id} = ${ctx.orgId} and ${table.id} = ${id ?? null}::integer)`;
  const [row] = await ctx.tx.select(Object.fromEntries(Object.entries(cols).map(([k, v]) => [k, v.as(k)])) as never).from(sql`(select 1) one`);
  return row as unknown as Record<string, string | null>;
}

const slimCase = { id: cases.id, name: cases.name, title: cases.title, status: cases.status, visibility: cases.visibility, reported_at: cases.reported_at };

/**
 * The full incident, in a fixed number of queries whatever its size: participants with their roles
 * (renounced ones marked Inactive), tags, tasks, cases, timeline, reports, resources, steps, costs.
 */
export async function fullIncident(ctx: RequestContext, id: number) {
  const org = ctx.orgId;
  const name = (table: { organization_id: PgColumn; id: PgColumn; name: PgColumn }, column: PgColumn) =>
    sql<string | null>`(select ${table.name} from ${table as never} where ${table.organization_id} = ${org} and ${table.id} = ${column})`;
  // Every part goes out at once, the incident itself (with the visibility check) included: on
  // PostgreSQL the queries are pipelined on the request's connection, so the record costs about one
  // round trip however many parts it has. Parts of an incident the caller may not see are dropped.
  const [head, people, roles, tagRows, taskRows, caseRows, eventRows, reportRows, resourceRows, stepRows, costRows, commentRows, me] = await settle([
    ctx.tx
      .select({
        ...incidentColumns,
        incident_type_name: name(incidentTypes as never, incidents.incident_type_id),
        incident_priority_name: name(incidentPriorities as never, incidents.incident_priority_id),
        incident_severity_name: name(incidentSeverities as never, incidents.incident_severity_id),
      })
      .from(incidents)
      .where(and(eq(incidents.id, id), incidentScope(ctx)))
      .limit(1),
    ctx.tx.select().from(incidentParticipants).where(and(eq(incidentParticipants.organization_id, org), eq(incidentParticipants.incident_id, id))).orderBy(asc(incidentParticipants.added_at), asc(incidentParticipants.id)),
    ctx.tx.select().from(incidentRoles).where(and(eq(incidentRoles.organization_id, org), eq(incidentRoles.incident_id, id))).orderBy(asc(incidentRoles.assumed_at), asc(incidentRoles.id)),
    ctx.tx
      .select({ id: tags.id, name: tags.name, tag_type_id: tags.tag_type_id })
      .from(incidentTags)
      .innerJoin(tags, and(eq(tags.organization_id, incidentTags.organization_id), eq(tags.id, incidentTags.tag_id)))
      .where(and(eq(incidentTags.organization_id, org), eq(incidentTags.incident_id, id)))
      .orderBy(asc(tags.name)),
    ctx.tx.select().from(tasks).where(and(eq(tasks.organization_id, org), eq(tasks.incident_id, id))).orderBy(asc(tasks.created_at), asc(tasks.id)),
    ctx.tx.select(slimCase).from(cases).where(and(eq(cases.organization_id, org), eq(cases.incident_id, id))).orderBy(asc(cases.id)),
    ctx.tx.select().from(events).where(and(eq(events.organization_id, org), eq(events.incident_id, id))).orderBy(asc(events.started_at), asc(events.id)),
    ctx.tx.select().from(reports).where(and(eq(reports.organization_id, org), eq(reports.incident_id, id))).orderBy(desc(reports.created_at), desc(reports.id)),
    ctx.tx.select().from(incidentResources).where(and(eq(incidentResources.organization_id, org), eq(incidentResources.incident_id, id))).orderBy(asc(incidentResources.id)),
    ctx.tx.select().from(incidentSteps).where(and(eq(incidentSteps.organization_id, org), eq(incidentSteps.incident_id, id))).orderBy(asc(incidentSteps.position)),
    ctx.tx.select().from(incidentCosts).where(and(eq(incidentCosts.organization_id, org), eq(incidentCosts.incident_id, id))),
    ctx.tx.select().from(comments).where(and(eq(comments.organization_id, org), eq(comments.incident_id, id))).orderBy(asc(comments.created_at), asc(comments.id)),
    ctx.tx
      .select({
        email: users.email,
        subscribed: sql<boolean>`exists (select 1 from ${incidentSubscriptions} where ${incidentSubscriptions.organization_id} = ${org} and ${incidentSubscriptions.incident_id} = ${id} and ${incidentSubscriptions.email} = ${users.email})`,
      })
      .from(users)
      .where(eq(users.id, ctx.userId ?? -1)),
  ] as const);
  const found = head[0];
  if (!found) throw notFound('IAO', id);
  const record = found;
  const email = me[0]?.email ?? null;
  const participants = people.map((p) => ({
    ...p,
    roles: roles.filter((r) => r.participant_id === p.id).map((r) => ({ id: r.id, role: r.role, assumed_at: r.assumed_at, renounced_at: r.renounced_at, status: r.renounced_at ? 'Inactive' : 'Active' })),
  }));
  return {
    ...record,
    participants,
    tags: tagRows,
    tasks: taskRows,
    cases: caseRows,
    events: eventRows,
    reports: reportRows,
    resources: resourceRows,
    steps: stepRows,
    incident_costs: costRows,
    comments: commentRows,
    subscribed: me[0]?.subscribed ?? false,
    is_participant: !!email && people.some((p) => p.email === email),
  };
}

/** Awaits every query (none may outlive the transaction), then throws the first failure if any. */
async function settle<T extends readonly unknown[]>(queries: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const results = await Promise.allSettled(queries as readonly unknown[]);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as never;
}

export async function fullCase(ctx: RequestContext, id: number) {
  const row = await loadCase(ctx, id);
  const org = ctx.orgId;
  const [tagRows, eventRows, commentRows, participantRows, taskRows, incidentRows, names] = await settle([
    ctx.tx
      .select({ id: tags.id, name: tags.name, tag_type_id: tags.tag_type_id })
      .from(caseTags)
      .innerJoin(tags, and(eq(tags.organization_id, caseTags.organization_id), eq(tags.id, caseTags.tag_id)))
      .where(and(eq(caseTags.organization_id, org), eq(caseTags.case_id, id)))
      .orderBy(asc(tags.name)),
    ctx.tx.select().from(events).where(and(eq(events.organization_id, org), eq(events.case_id, id))).orderBy(asc(events.started_at), asc(events.id)),
    ctx.tx.select().from(comments).where(and(eq(comments.organization_id, org), eq(comments.case_id, id))).orderBy(asc(comments.created_at), asc(comments.id)),
    ctx.tx.select({ email: caseParticipants.email }).from(caseParticipants).where(and(eq(caseParticipants.organization_id, org), eq(caseParticipants.case_id, id))),
    ctx.tx.select().from(tasks).where(and(eq(tasks.organization_id, org), eq(tasks.case_id, id))).orderBy(asc(tasks.id)),
    ctx.tx
      .select({ id: incidents.id, name: incidents.name, title: incidents.title, status: incidents.status, conference_url: incidents.conference_url, conversation_id: incidents.conversation_id })
      .from(incidents)
      .where(and(eq(incidents.organization_id, org), eq(incidents.id, row.incident_id ?? -1))),
    settingNames(ctx, [
      ['case_type_name', caseTypes as never, row.case_type_id],
      ['case_priority_name', casePriorities as never, row.case_priority_id],
      ['case_severity_name', caseSeverities as never, row.case_severity_id],
    ]),
  ] as const);
  return { ...row, ...names, tags: tagRows, events: eventRows, comments: commentRows, participants: participantRows.map((p) => p.email), tasks: taskRows, incidents: incidentRows };
}
