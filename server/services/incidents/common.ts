import { and, eq, or, sql, type SQL } from 'drizzle-orm';
import { caseParticipants, cases, events, incidentParticipants, incidents, nameCounters, users } from '../../db/schema/index.js';
import { currentUserId } from '../../db/schema/columns.js';
import { notFound } from '../../errors.js';
import type { RequestContext } from '../../resources/define.js';
import { atLeast } from '../auth.js';

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
export function incidentScope(ctx: RequestContext): SQL {
  const org = eq(incidents.organization_id, ctx.orgId);
  if (atLeast(ctx.role, 'Admin')) return org;
  return and(
    org,
    or(
      eq(incidents.visibility, 'Open'),
      // The organization as a constant (not the outer column): when the planner hashes this subquery
      // it can still use the (organization_id, email, incident_id) index instead of reading every row.
      sql`exists (select 1 from ${incidentParticipants} where ${incidentParticipants.organization_id} = ${ctx.orgId} and ${incidentParticipants.incident_id} = ${incidents.id} and ${incidentParticipants.email} = ${myEmail})`,
    ),
  )!;
}

/** Restricted cases: only their assignee, reporter, listed participants and admins. */
export function caseScope(ctx: RequestContext): SQL {
  const org = eq(cases.organization_id, ctx.orgId);
  if (atLeast(ctx.role, 'Admin')) return org;
  return and(
    org,
    or(
      eq(cases.visibility, 'Open'),
      sql`${cases.assignee_email} = ${myEmail}`,
      sql`${cases.reporter_email} = ${myEmail}`,
      sql`exists (select 1 from ${caseParticipants} where ${caseParticipants.organization_id} = ${ctx.orgId} and ${caseParticipants.case_id} = ${cases.id} and ${caseParticipants.email} = ${myEmail})`,
    ),
  )!;
}

export type IncidentRow = typeof incidents.$inferSelect;
export type CaseRow = typeof cases.$inferSelect;

/** The incident if the caller may see it; otherwise the spec's "IAO '<id>' could not be found." */
export async function loadIncident(ctx: RequestContext, id: number, lock = false): Promise<IncidentRow> {
  const q = ctx.tx.select().from(incidents).where(and(eq(incidents.id, id), incidentScope(ctx))).limit(1);
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw notFound('IAO', id);
  return row;
}

export async function loadCase(ctx: RequestContext, id: number, lock = false): Promise<CaseRow> {
  const q = ctx.tx.select().from(cases).where(and(eq(cases.id, id), caseScope(ctx))).limit(1);
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw notFound('Case', id);
  return row;
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
 * default; field, assessment, context, user curated and notification are off).
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
  { key: 'user_curated_events', label: 'User curated events', default: false },
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
  return row!;
}
