import { and, eq, getTableColumns, or, sql, type SQL } from 'drizzle-orm';
import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import { caseParticipants, cases, events, incidentParticipants, incidents, nameCounters } from './tables.js';
import { users } from '../core/db/tables.js';
import { currentUserId } from '../core/db/columns.js';
import { notFound } from '../core/errors.js';
import type { OrgValue, RowVisibility } from '../engine/visibility.js';
import type { RequestContext } from '../core/context.js';
import { may } from '../core/context.js';
import { notifyChange } from '../live/changes.js';

/** The signed-in caller's e-mail (null for API keys), read once per request context. */
const emails = new WeakMap<object, string | null>();
export async function callerEmail(ctx: RequestContext): Promise<string | null> {
  if (emails.has(ctx.tx)) return emails.get(ctx.tx)!;
  let email: string | null = null;
  if (ctx.userId !== null) {
    const [row] = await ctx.tx.select({ email: users.email }).from(users).where(eq(users.id, ctx.userId));
    email = row?.email ?? null;
  }
  emails.set(ctx.tx, email);
  return email;
}

/** Who is acting, as written on timeline entries. */
export const actorOf = async (ctx: RequestContext) => (await callerEmail(ctx)) ?? 'API key';

const myEmail = sql`(select ${users.email} from ${users} where ${users.id} = ${currentUserId})`;

/**
 * Restricted incidents are visible to their participants and to admins (Admin, Manager, Owner);
 * Open ones to every member. Used by the list, the single GET and every action route.
 */
export function incidentScope(ctx: RequestContext, orgId: OrgValue = ctx.orgId): SQL {
  const org = eq(incidents.organization_id, orgId);
  if (may(ctx.role, 'seeRestricted')) return org;
  return and(
    org,
    or(
      eq(incidents.visibility, 'Open'),
      // The organization as a constant (not the outer column): when the planner hashes this subquery
      // it can still use the (organization_id, email, incident_id) index instead of reading every row.
      sql`exists (select 1 from ${incidentParticipants} where ${incidentParticipants.organization_id} = ${orgId} and ${incidentParticipants.incident_id} = ${incidents.id} and ${incidentParticipants.email} = ${myEmail})`,
    ),
  )!;
}

/** Restricted cases: only their assignee, reporter, listed participants and admins. */
export function caseScope(ctx: RequestContext, orgId: OrgValue = ctx.orgId): SQL {
  const org = eq(cases.organization_id, orgId);
  if (may(ctx.role, 'seeRestricted')) return org;
  return and(
    org,
    or(
      eq(cases.visibility, 'Open'),
      sql`${cases.assignee_email} = ${myEmail}`,
      sql`${cases.reporter_email} = ${myEmail}`,
      sql`exists (select 1 from ${caseParticipants} where ${caseParticipants.organization_id} = ${orgId} and ${caseParticipants.case_id} = ${cases.id} and ${caseParticipants.email} = ${myEmail})`,
    ),
  )!;
}

/**
 * A row that belongs to an incident or a case (an `incident_id` or `case_id` column: tasks, feedback,
 * forms, participants...) is visible only where its incident and case are (incidentScope, caseScope);
 * undefined when that hides nothing (admins, or a table without such columns). The incidents and cases
 * tables themselves keep their own visibility only: a case linked to a restricted incident stays the
 * case's own business. `orgId` as in incidentScope (a placeholder in a statement shared by callers).
 */
export function linkedScope(ctx: RequestContext, table: PgTable, orgId: OrgValue = ctx.orgId): SQL | undefined {
  if (may(ctx.role, 'seeRestricted') || table === incidents || table === cases) return undefined;
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  // Qualified by the table's name: bare, the column would bind to the subquery's own table.
  const own = (column: string) => sql`${sql.identifier(getTableConfig(table).name)}.${sql.identifier(column)}`;
  const parts: SQL[] = [];
  if (columns.incident_id)
    parts.push(
      sql`(${own('incident_id')} is null or exists (select 1 from ${incidents} where ${incidents.id} = ${own('incident_id')} and ${incidentScope(ctx, orgId)}))`,
    );
  if (columns.case_id)
    parts.push(sql`(${own('case_id')} is null or exists (select 1 from ${cases} where ${cases.id} = ${own('case_id')} and ${caseScope(ctx, orgId)}))`);
  return parts.length ? and(...parts) : undefined;
}

/** The rule the engine applies to every resource and reference: see engine/visibility.ts. */
export const incidentVisibility: RowVisibility = {
  // `org` is the organization the condition is read in (a nested reference's lookup passes the row's own).
  own: (ctx, table, org) => (table === incidents ? incidentScope(ctx, org) : table === cases ? caseScope(ctx, org) : undefined),
  linked: linkedScope,
  // Both conditions depend on the caller's role alone (who may see restricted rows).
  callerKey: (ctx) => (may(ctx.role, 'seeRestricted') ? 'all' : 'own'),
};

export type IncidentRow = typeof incidents.$inferSelect;
export type CaseRow = typeof cases.$inferSelect;

/** The incident if the caller may see it; otherwise "Incident '<id>' could not be found." (the spec's IAO, in people's word) */
export async function loadIncident(ctx: RequestContext, id: number, lock = false): Promise<IncidentRow> {
  const q = ctx.tx
    .select()
    .from(incidents)
    .where(and(eq(incidents.id, id), incidentScope(ctx)))
    .limit(1);
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw notFound('Incident', id);
  return row;
}

export async function loadCase(ctx: RequestContext, id: number | string, lock = false): Promise<CaseRow> {
  const q = ctx.tx
    .select()
    .from(cases)
    .where(and(typeof id === 'number' ? eq(cases.id, id) : and(eq(cases.organization_id, ctx.orgId), eq(cases.name, id)), caseScope(ctx)))
    .limit(1);
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw notFound('Case', id);
  return row;
}

/**
 * A case's texts as the caller may read them. The case's timeline names the incident it was escalated
 * to ("Case escalated to incident IAO-7 by …"); where the caller may not see that incident (restricted,
 * not on it) the name reads "a restricted incident", as a hidden reference answers its id only.
 */
export async function caseTextsReader(ctx: RequestContext, incidentId: number | null): Promise<(text: string) => string> {
  const same = (text: string) => text;
  if (incidentId === null || may(ctx.role, 'seeRestricted')) return same;
  const [incident] = await ctx.tx
    .select({ name: incidents.name, seen: sql<boolean>`${incidentScope(ctx)}` })
    .from(incidents)
    .where(and(eq(incidents.organization_id, ctx.orgId), eq(incidents.id, incidentId)));
  if (!incident || incident.seen) return same;
  const name = new RegExp(`(incident )?\\b${incident.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9])`, 'g');
  return (text) => text.replace(name, 'a restricted incident');
}

/** Next number of a per-organization sequence (IAO-n, OCO-n); the row lock serializes concurrent creates. */
export async function nextNumber(ctx: RequestContext, kind: string): Promise<number> {
  const [row] = await ctx.tx
    .insert(nameCounters)
    .values({ organization_id: ctx.orgId, kind, value: 1 })
    .onConflictDoUpdate({ target: [nameCounters.organization_id, nameCounters.kind], set: { value: sql`${nameCounters.value} + 1` } })
    .returning({ value: nameCounters.value });
  return row!.value;
}

/**
 * Timeline event types and the filter toggle each belongs to (spec §9: the first seven are on by
 * default; field, assessment, context and notification are off). User curated events are on: an
 * event someone adds must show at once, not hide behind a toggle (issue 23).
 */
export const EVENT_TYPES = {
  'Participant updated': 'participant_updates',
  Other: 'other_events',
  'AI generated': 'ai_generated_events',
  'Resource updated': 'resource_updates',
  'Step updated': 'step_updates',
  'Task updated': 'task_updates',
  'Imported message': 'conversation_events',
  'Field updated': 'field_updates',
  'Assessment updated': 'assessment_updates',
  Context: 'context_events',
  'Custom event': 'user_curated_events',
  Notification: 'notification_events',
} as const;
export type EventType = keyof typeof EVENT_TYPES;
export const TIMELINE_FILTERS = [
  { key: 'participant_updates', label: 'Participant updates', default: true },
  { key: 'other_events', label: 'Other events', default: true },
  { key: 'ai_generated_events', label: 'AI generated events', default: true },
  { key: 'resource_updates', label: 'Resource updates', default: true },
  { key: 'step_updates', label: 'Step updates', default: true },
  { key: 'task_updates', label: 'Task updates', default: true },
  { key: 'conversation_events', label: 'Conversation events', default: true },
  { key: 'field_updates', label: 'Field updates', default: false },
  { key: 'assessment_updates', label: 'Assessment updates', default: false },
  { key: 'context_events', label: 'Context', default: false },
  { key: 'user_curated_events', label: 'User curated events', default: true },
  { key: 'notification_events', label: 'Notifications', default: false },
] as const;
export const EVENT_SOURCES = ['Firewatch', 'Incident Participant', 'Case Participant', 'AI', 'Workflow', 'Conversation'] as const;

export interface NewEvent {
  incident_id?: number | null;
  case_id?: number | null;
  type: EventType;
  source?: string;
  description: string;
  details?: Record<string, unknown> | null;
  owner?: string | null;
  started_at?: Date;
  pinned?: boolean;
}

/** Writes one timeline entry; every change the API makes calls this. */
export async function addEvent(ctx: RequestContext, e: NewEvent) {
  const [row] = await ctx.tx
    .insert(events)
    .values({
      organization_id: ctx.orgId,
      incident_id: e.incident_id ?? null,
      case_id: e.case_id ?? null,
      type: e.type,
      source: e.source ?? 'Firewatch',
      description: e.description,
      details: e.details ?? null,
      owner: e.owner ?? null,
      pinned: e.pinned ?? false,
      ...(e.started_at ? { started_at: e.started_at } : {}),
    })
    .returning();
  // Every change writes a timeline entry, so this tells the record's open pages (at commit).
  await notifyChange(ctx, e);
  return row!;
}
