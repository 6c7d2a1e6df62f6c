import { z } from 'zod';
import { and, asc, eq, sql } from 'drizzle-orm';
import { comments, conversationMessages, events, incidentResources, incidents, incidentSubscriptions, reports, tasks } from './tables.js';
import { documents } from '../knowledge/tables.js';
import { incidentTypes } from './settings-tables.js';
import { httpError } from '../core/errors.js';
import { atLeast, type RequestContext } from '../core/context.js';
import type { Mail } from '../core/mail.js';
import { BACKGROUND_LANE, defineJob, enqueueJob, NotReady } from '../core/jobs/define.js';
import { notifyChange } from '../live/changes.js';
import { actorOf, addEvent, callerEmail, loadCase, loadIncident, type EventType } from './common.js';

/* ---------- timeline ---------- */

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

/* ---------- comments, conversation, resources ---------- */

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

export interface ResourceInput {
  resource_type: string;
  name: string;
  weblink?: string | null;
  description?: string | null;
}

export async function addResource(ctx: RequestContext, incidentId: number, input: ResourceInput) {
  await loadIncident(ctx, incidentId);
  const [row] = await ctx.tx
    .insert(incidentResources)
    .values({ organization_id: ctx.orgId, incident_id: incidentId, ...input })
    .returning();
  await addEvent(ctx, {
    incident_id: incidentId,
    type: 'Resource updated',
    description: `${input.resource_type} '${input.name}' added by ${await actorOf(ctx)}`,
    owner: await callerEmail(ctx),
    details: { resource_id: row!.id },
  });
  return row!;
}

/* ---------- reports ---------- */

export type ReportInput =
  | { type: 'tactical'; conditions: string; actions: string; needs: string }
  | { type: 'executive'; current_status: string; overview: string; next_steps: string };

/** What the report dialog starts from: actions prefilled with the incident's unresolved tasks. */
export async function reportPrefill(ctx: RequestContext, incidentId: number) {
  const incident = await loadIncident(ctx, incidentId);
  const open = await ctx.tx
    .select({ description: tasks.description })
    .from(tasks)
    .where(and(eq(tasks.organization_id, ctx.orgId), eq(tasks.incident_id, incidentId), eq(tasks.status, 'Open')))
    .orderBy(asc(tasks.created_at), asc(tasks.id));
  return {
    tactical: { conditions: incident.description ?? '', actions: open.map((t) => `- ${t.description}`).join('\n'), needs: '' },
    executive: { current_status: incident.status, overview: incident.description ?? '', next_steps: open.map((t) => `- ${t.description}`).join('\n') },
  };
}

/**
 * Stores a report, writes it on the timeline, and returns the e-mails for the subscribers (sent by
 * the route once the transaction has committed).
 */
export async function createReport(
  ctx: RequestContext,
  incidentId: number,
  input: ReportInput,
): Promise<{ report: typeof reports.$inferSelect; mails: Mail[] }> {
  const incident = await loadIncident(ctx, incidentId);
  const me = await callerEmail(ctx);
  const { type, ...details } = input;
  const [report] = await ctx.tx.insert(reports).values({ organization_id: ctx.orgId, incident_id: incidentId, type, details, author_email: me }).returning();
  const label = type === 'tactical' ? 'Tactical' : 'Executive';
  await addEvent(ctx, {
    incident_id: incidentId,
    type: 'Other',
    source: 'Incident Participant',
    description: `${label} report created by ${me ?? 'API key'}`,
    owner: me,
    details: { report_id: report!.id, ...details },
  });
  const subscribers = await ctx.tx
    .select({ email: incidentSubscriptions.email })
    .from(incidentSubscriptions)
    .where(and(eq(incidentSubscriptions.organization_id, ctx.orgId), eq(incidentSubscriptions.incident_id, incidentId)));
  const body =
    input.type === 'tactical'
      ? `Conditions:\n${input.conditions}\n\nActions:\n${input.actions}\n\nNeeds:\n${input.needs}`
      : `Current status:\n${input.current_status}\n\nOverview:\n${input.overview}\n\nNext steps:\n${input.next_steps}`;
  const text = `${label} report for ${incident.name}: ${incident.title}\nStatus: ${incident.status}\nCommander: ${incident.commander_email ?? 'unassigned'}\n\n${body}\n`;
  const mails = subscribers.map((s) => ({ to: s.email, subject: `${label} report: ${incident.name} ${incident.title}`, text }));
  return { report: report!, mails };
}

/* ---------- postmortem ---------- */

/** The review template document of an incident's type. */
export type ReviewTemplateLookup = (
  ctx: RequestContext,
  incident: typeof incidents.$inferSelect,
) => Promise<{ name: string; weblink: string | null; description: string | null } | null>;
let reviewTemplate: ReviewTemplateLookup = async (ctx, incident) => {
  if (!incident.incident_type_id) return null;
  const [doc] = await ctx.tx
    .select({ name: documents.name, weblink: documents.weblink, description: documents.description })
    .from(incidentTypes)
    .innerJoin(documents, and(eq(documents.organization_id, incidentTypes.organization_id), eq(documents.id, incidentTypes.review_template_document_id)))
    .where(and(eq(incidentTypes.organization_id, ctx.orgId), eq(incidentTypes.id, incident.incident_type_id)));
  return doc ?? null;
};
export function setReviewTemplateLookup(lookup: ReviewTemplateLookup) {
  reviewTemplate = lookup;
}

export async function requestPostmortem(ctx: RequestContext, incidentId: number) {
  await loadIncident(ctx, incidentId);
  await enqueueJob(ctx, postmortemJob, { incident_id: incidentId, requested_by: await callerEmail(ctx) });
  await addEvent(ctx, {
    incident_id: incidentId,
    type: 'Resource updated',
    description: `Postmortem requested by ${await actorOf(ctx)}`,
    owner: await callerEmail(ctx),
  });
  return 'Postmortem (PIR) story will be available shortly';
}

export const postmortemJob = defineJob({
  name: 'incident.postmortem',
  lane: BACKGROUND_LANE,
  payload: z.object({ incident_id: z.number().int(), requested_by: z.string().nullable().optional() }),
  run: (data, job) =>
    job.tenant(async (ctx) => {
      const id = data.incident_id as number;
      const [incident] = await ctx.tx
        .select()
        .from(incidents)
        .where(and(eq(incidents.organization_id, ctx.orgId), eq(incidents.id, id)));
      if (!incident) throw new NotReady();
      const template = await reviewTemplate(ctx, incident);
      const timeline = await ctx.tx
        .select()
        .from(events)
        .where(and(eq(events.organization_id, ctx.orgId), eq(events.incident_id, id)))
        .orderBy(asc(events.started_at), asc(events.id));
      const taskRows = await ctx.tx
        .select()
        .from(tasks)
        .where(and(eq(tasks.organization_id, ctx.orgId), eq(tasks.incident_id, id)))
        .orderBy(asc(tasks.id));
      const fmt = (d: Date | null) => (d ? d.toISOString().replace('T', ' ').slice(0, 19) + ' UTC' : 'n/a');
      const lines = [
        `# Post-incident review: ${incident.name} ${incident.title}`,
        template ? `Template: ${template.name}${template.weblink ? ` (${template.weblink})` : ''}` : '',
        template?.description ?? '',
        '## Summary',
        incident.description ?? '',
        `Reported ${fmt(incident.reported_at)}; stable ${fmt(incident.stable_at)}; closed ${fmt(incident.closed_at)}.`,
        `Commander: ${incident.commander_email ?? 'unassigned'}. Resolution: ${incident.resolution ?? 'n/a'}`,
        '## Timeline',
        ...timeline.map((e) => `- ${fmt(e.started_at)} ${e.description}`),
        '## Follow-ups',
        ...taskRows.map((t) => `- [${t.status === 'Resolved' ? 'x' : ' '}] ${t.description}${t.owner_email ? ` (${t.owner_email})` : ''}`),
      ].filter((l) => l !== '');
      const [doc] = await ctx.tx
        .insert(incidentResources)
        .values({
          organization_id: ctx.orgId,
          incident_id: id,
          resource_type: 'dispatch-incident-review-document',
          name: `${incident.name} post-incident review`,
          content: lines.join('\n\n'),
        })
        .returning();
      await addEvent(ctx, {
        incident_id: id,
        type: 'Resource updated',
        description: `Post-incident review document created`,
        details: { resource_id: doc!.id },
      });
    }),
});
