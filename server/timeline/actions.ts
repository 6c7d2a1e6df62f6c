import { and, asc, eq, sql } from 'drizzle-orm';
import { comments, conversationMessages, events } from './tables.js';
import { addEvent, type EventType } from './events.js';
import { httpError } from '../core/errors.js';
import { atLeast, type RequestContext } from '../core/context.js';
import { callerEmail } from '../core/caller.js';
import { notifyChange } from '../live/changes.js';

/** What people add to a timeline themselves: custom events, comments and conversation messages. */

/** What the timeline needs of the record it belongs to: that the caller may see it, and its conversation. */
type OwnerLoader = (ctx: RequestContext, id: number) => Promise<{ conversation_id: number | null }>;
const owners = new Map<'incident' | 'case', OwnerLoader>();

/**
 * Incidents and cases own timelines; each registers how to load one of its records (404 when the
 * caller may not see it) from its Fastify plugin, so the timeline never imports the domains above it.
 */
export function setTimelineOwner(kind: 'incident' | 'case', load: OwnerLoader) {
  owners.set(kind, load);
}

function loadOwner(kind: 'incident' | 'case', ctx: RequestContext, id: number) {
  const load = owners.get(kind);
  if (!load) throw new Error(`No ${kind} timeline owner is registered: the ${kind}s plugin is not loaded.`);
  return load(ctx, id);
}
const loadIncident = (ctx: RequestContext, id: number) => loadOwner('incident', ctx, id);
const loadCase = (ctx: RequestContext, id: number) => loadOwner('case', ctx, id);

export interface EventInput {
  description: string;
  started_at?: Date;
  /** Place the new event one second after this time (spec §9). */
  after?: Date;
  details?: Record<string, unknown> | null;
  pinned?: boolean;
  type?: EventType;
  source?: string;
}

export async function addCustomEvent(ctx: RequestContext, incidentId: number, input: EventInput) {
  await loadIncident(ctx, incidentId);
  const startedAt = input.after ? new Date(input.after.getTime() + 1000) : input.started_at;
  return addEvent(ctx, {
    incident_id: incidentId,
    type: input.type ?? 'Custom event',
    source: input.source ?? 'Incident Participant',
    description: input.description,
    details: input.details ?? null,
    pinned: input.pinned ?? false,
    owner: await callerEmail(ctx),
    ...(startedAt ? { started_at: startedAt } : {}),
  });
}

/**
 * Timeline entries the system wrote (status changes, joins, tasks...) are the incident's record and
 * cannot be edited or deleted; a custom event can, by its author or an Admin and above.
 */
async function editableEvent(ctx: RequestContext, incidentId: number, eventId: number, loc: (string | number)[]) {
  const [row] = await ctx.tx
    .select()
    .from(events)
    .where(and(eq(events.organization_id, ctx.orgId), eq(events.incident_id, incidentId), eq(events.id, eventId)));
  if (!row) throw httpError(404, `Event '${eventId}' could not be found.`, 'not_found', loc);
  if (row.type !== 'Custom event') throw httpError(403, 'System events cannot be changed or deleted; they are the record of what happened.', 'forbidden', loc);
  if (!atLeast(ctx.role, 'Admin') && (row.owner === null || row.owner !== (await callerEmail(ctx))))
    throw httpError(403, 'Only its author or an Admin and above may change or delete this event.', 'forbidden', loc);
  return row;
}

export async function updateEvent(
  ctx: RequestContext,
  incidentId: number,
  eventId: number,
  patch: Partial<Pick<EventInput, 'description' | 'started_at' | 'details' | 'pinned' | 'type'>>,
) {
  await loadIncident(ctx, incidentId);
  // Pinning is open to everyone; the content only to whoever may edit the event.
  if (Object.keys(patch).some((k) => k !== 'pinned')) await editableEvent(ctx, incidentId, eventId, ['body', 'id']);
  const [row] = await ctx.tx
    .update(events)
    .set({ ...patch, updated_at: sql`now()` })
    .where(and(eq(events.organization_id, ctx.orgId), eq(events.incident_id, incidentId), eq(events.id, eventId)))
    .returning();
  if (!row) throw httpError(404, `Event '${eventId}' could not be found.`, 'not_found', ['body', 'id']);
  await notifyChange(ctx, { incident_id: incidentId });
  return row;
}

export async function deleteEvent(ctx: RequestContext, incidentId: number, eventId: number) {
  await loadIncident(ctx, incidentId);
  await editableEvent(ctx, incidentId, eventId, ['path', 'eventId']);
  const deleted = await ctx.tx
    .delete(events)
    .where(and(eq(events.organization_id, ctx.orgId), eq(events.incident_id, incidentId), eq(events.id, eventId)))
    .returning({ id: events.id });
  if (!deleted.length) throw httpError(404, `Event '${eventId}' could not be found.`, 'not_found', ['path', 'eventId']);
  await notifyChange(ctx, { incident_id: incidentId });
}

export async function addComment(ctx: RequestContext, target: { incident_id?: number; case_id?: number }, text: string) {
  if (target.incident_id) await loadIncident(ctx, target.incident_id);
  if (target.case_id) await loadCase(ctx, target.case_id);
  const me = await callerEmail(ctx);
  const [row] = await ctx.tx
    .insert(comments)
    .values({ organization_id: ctx.orgId, ...target, author_email: me, text })
    .returning();
  await addEvent(ctx, {
    ...target,
    type: 'Other',
    source: target.case_id ? 'Case Participant' : 'Incident Participant',
    description: `${me ?? 'API key'} added a comment`,
    owner: me,
    details: { comment_id: row!.id },
  });
  return row!;
}

export async function conversationOf(ctx: RequestContext, incidentId: number) {
  const incident = await loadIncident(ctx, incidentId);
  if (!incident.conversation_id) throw httpError(409, 'The conversation of this incident is still being created; try again in a few seconds.', 'not_ready');
  return incident.conversation_id;
}

export async function listMessages(ctx: RequestContext, incidentId: number) {
  const conversationId = await conversationOf(ctx, incidentId);
  return ctx.tx
    .select()
    .from(conversationMessages)
    .where(and(eq(conversationMessages.organization_id, ctx.orgId), eq(conversationMessages.conversation_id, conversationId)))
    .orderBy(asc(conversationMessages.created_at), asc(conversationMessages.id));
}

export async function postMessage(ctx: RequestContext, incidentId: number, text: string) {
  const conversationId = await conversationOf(ctx, incidentId);
  const me = await callerEmail(ctx);
  if (!me) throw httpError(403, 'Only a signed-in user can post in a conversation.', 'forbidden');
  const [row] = await ctx.tx
    .insert(conversationMessages)
    .values({ organization_id: ctx.orgId, conversation_id: conversationId, author_email: me, text })
    .returning();
  await notifyChange(ctx, { incident_id: incidentId });
  return row!;
}
