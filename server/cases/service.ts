import { and, asc, eq, sql } from 'drizzle-orm';
import { caseParticipants, cases, caseTags, conversations, events, incidents, type CASE_STATUSES } from '../incidents/tables.js';
import { casePriorities, caseSeverities, caseTypes } from './settings-tables.js';
import { withDefaults } from '../incidents/defaults.js';
import { httpError } from '../core/errors.js';
import type { RequestContext } from '../core/context.js';
import { summarize } from '../incidents/ai.js';
import { enqueue, NotReady, registerJob } from '../incidents/background.js';
import { actorOf, addEvent, callerEmail, loadCase, nextNumber } from '../incidents/common.js';
import { checkTags, createIncident } from '../incidents/lifecycle.js';
import { publish } from '../core/events.js';
import type { CaseInput } from '../incidents/bodies.js';

type CaseStatus = (typeof CASE_STATUSES)[number];

/** The timestamp each status sets. */
const STATUS_TIMESTAMP: Partial<Record<CaseStatus, 'triage_at' | 'escalated_at' | 'stable_at' | 'closed_at'>> = {
  Triage: 'triage_at',
  Escalated: 'escalated_at',
  Stable: 'stable_at',
  Closed: 'closed_at',
};

export type { CaseInput };

async function setCaseTags(ctx: RequestContext, caseId: number, tagIds: number[]) {
  await checkTags(ctx, tagIds);
  await ctx.tx.delete(caseTags).where(and(eq(caseTags.organization_id, ctx.orgId), eq(caseTags.case_id, caseId)));
  if (tagIds.length) await ctx.tx.insert(caseTags).values([...new Set(tagIds)].map((tag_id) => ({ organization_id: ctx.orgId, case_id: caseId, tag_id })));
}

async function setCaseParticipants(ctx: RequestContext, caseId: number, emails: string[]) {
  await ctx.tx.delete(caseParticipants).where(and(eq(caseParticipants.organization_id, ctx.orgId), eq(caseParticipants.case_id, caseId)));
  if (emails.length)
    await ctx.tx.insert(caseParticipants).values([...new Set(emails)].map((email) => ({ organization_id: ctx.orgId, case_id: caseId, email })));
}

const stamp = (status: CaseStatus) => {
  const column = STATUS_TIMESTAMP[status];
  // Leaving Closed (reopening) clears closed_at.
  return { status, ...(column ? { [column]: sql`now()` } : {}), ...(status !== 'Closed' ? { closed_at: null } : {}) };
};

export async function createCase(ctx: RequestContext, given: CaseInput) {
  const input = await withDefaults(
    ctx,
    given,
    { case_type_id: caseTypes, case_priority_id: casePriorities, case_severity_id: caseSeverities },
    given.project_id,
  );
  const me = await callerEmail(ctx);
  const { tags: tagIds = [], participants = [], status = 'New', ...columns } = input;
  const number = await nextNumber(ctx, 'case');
  const [row] = await ctx.tx
    .insert(cases)
    .values({ ...columns, reporter_email: input.reporter_email ?? me, organization_id: ctx.orgId, name: `OCO-${number}`, ...stamp(status) })
    .returning();
  await setCaseTags(ctx, row!.id, tagIds);
  await setCaseParticipants(ctx, row!.id, participants);
  await addEvent(ctx, {
    case_id: row!.id,
    type: 'Other',
    source: 'Case Participant',
    description: `Case ${row!.name} created by ${me ?? 'an API key'}`,
    owner: me,
  });
  await enqueue(ctx, 'case.provision', { case_id: row!.id });
  await publish(ctx, { type: 'case.created', id: row!.id });
  return row!.id;
}

export async function updateCase(ctx: RequestContext, id: number, data: Partial<CaseInput>) {
  const current = await loadCase(ctx, id, true);
  const { tags: tagIds, participants, status, ...fields } = data;
  const me = await callerEmail(ctx);
  const actor = await actorOf(ctx);
  const changed = Object.entries(fields).filter(
    ([k, v]) =>
      JSON.stringify(v instanceof Date ? v.toISOString() : v) !==
      JSON.stringify(
        (current as Record<string, unknown>)[k] instanceof Date
          ? ((current as Record<string, unknown>)[k] as Date).toISOString()
          : (current as Record<string, unknown>)[k],
      ),
  );
  const statusChanged = status !== undefined && status !== current.status;
  if (status === 'Escalated' && statusChanged && !current.incident_id)
    throw httpError(422, 'Use escalate to move a case to Escalated: it creates the incident.', 'value_error', ['body', 'status']);
  if (changed.length || statusChanged) {
    await ctx.tx
      .update(cases)
      .set({ ...Object.fromEntries(changed), ...(statusChanged ? stamp(status) : {}), updated_at: sql`now()` })
      .where(and(eq(cases.organization_id, ctx.orgId), eq(cases.id, id)));
  }
  for (const [k, v] of changed)
    await addEvent(ctx, {
      case_id: id,
      type: 'Field updated',
      source: 'Case Participant',
      description: `${k} changed by ${actor}`,
      owner: me,
      details: { field: k, to: v },
    });
  if (statusChanged)
    await addEvent(ctx, {
      case_id: id,
      type: 'Other',
      source: 'Case Participant',
      description: `Case status changed from ${current.status} to ${status} by ${actor}`,
      owner: me,
      details: { from: current.status, to: status },
    });
  if (tagIds) {
    await setCaseTags(ctx, id, tagIds);
    await addEvent(ctx, { case_id: id, type: 'Field updated', description: `Tags changed by ${actor}`, owner: me, details: { field: 'tags', to: tagIds } });
  }
  if (participants) {
    await setCaseParticipants(ctx, id, participants);
    await addEvent(ctx, { case_id: id, type: 'Participant updated', description: `Participants changed by ${actor}`, owner: me, details: { participants } });
  }
  if (changed.length || statusChanged || tagIds || participants) await publish(ctx, { type: 'case.updated', id });
  return true;
}

/** The incident type a case type escalates to (case_types.incident_type_id). */
export type IncidentTypeLookup = (ctx: RequestContext, caseTypeId: number) => Promise<number | null>;
let incidentTypeFor: IncidentTypeLookup = async (ctx, caseTypeId) => {
  const [row] = await ctx.tx
    .select({ id: caseTypes.incident_type_id })
    .from(caseTypes)
    .where(and(eq(caseTypes.organization_id, ctx.orgId), eq(caseTypes.id, caseTypeId)));
  return row?.id ?? null;
};
export function setIncidentTypeLookup(lookup: IncidentTypeLookup) {
  incidentTypeFor = lookup;
}

/**
 * Escalation: creates the incident (type from the case type), copies the case's tags and timeline,
 * links both and sets the case Escalated.
 */
export async function escalateCase(
  ctx: RequestContext,
  id: number,
  overrides: { incident_type_id?: number | null; incident_priority_id?: number | null; incident_severity_id?: number | null; title?: string } = {},
) {
  const c = await loadCase(ctx, id, true);
  if (c.incident_id) throw httpError(409, `Case ${c.name} has already been escalated.`, 'conflict');
  if (c.status === 'Closed') throw httpError(409, `Case ${c.name} is closed; reopen it before escalating.`, 'conflict');
  const tagRows = await ctx.tx
    .select({ tag_id: caseTags.tag_id })
    .from(caseTags)
    .where(and(eq(caseTags.organization_id, ctx.orgId), eq(caseTags.case_id, id)));
  const me = await callerEmail(ctx);
  const typeId = overrides.incident_type_id !== undefined ? overrides.incident_type_id : c.case_type_id ? await incidentTypeFor(ctx, c.case_type_id) : null;
  const incidentId = await createIncident(ctx, {
    title: overrides.title ?? c.title,
    description: c.description,
    project_id: c.project_id,
    visibility: c.visibility,
    // What neither the case nor the caller says is the organization's default.
    incident_type_id: typeId ?? undefined,
    incident_priority_id: overrides.incident_priority_id ?? undefined,
    incident_severity_id: overrides.incident_severity_id ?? undefined,
    reporter_email: me ?? c.reporter_email,
    commander_email: c.assignee_email ?? me,
    tags: tagRows.map((t) => t.tag_id),
  });
  // The case's history travels with it (copies, so the case keeps its own timeline).
  const history = await ctx.tx
    .select()
    .from(events)
    .where(and(eq(events.organization_id, ctx.orgId), eq(events.case_id, id)))
    .orderBy(asc(events.started_at), asc(events.id));
  if (history.length) {
    await ctx.tx.insert(events).values(
      history.map(({ id: _id, case_id: _c, created_at: _ca, updated_at: _ua, ...e }) => ({
        ...e,
        incident_id: incidentId,
        details: { ...(e.details ?? {}), copied_from_case: c.name },
      })),
    );
  }
  await ctx.tx
    .update(cases)
    .set({ incident_id: incidentId, ...stamp('Escalated'), updated_at: sql`now()` })
    .where(and(eq(cases.organization_id, ctx.orgId), eq(cases.id, id)));
  const [incident] = await ctx.tx
    .select({ name: incidents.name })
    .from(incidents)
    .where(and(eq(incidents.organization_id, ctx.orgId), eq(incidents.id, incidentId)));
  await addEvent(ctx, {
    case_id: id,
    type: 'Other',
    source: 'Case Participant',
    description: `Case escalated to incident ${incident!.name} by ${me ?? 'an API key'}`,
    owner: me,
    details: { incident_id: incidentId },
  });
  await addEvent(ctx, {
    incident_id: incidentId,
    type: 'Other',
    description: `Incident created by escalating case ${c.name}`,
    owner: me,
    details: { case_id: id },
  });
  await publish(ctx, { type: 'case.escalated', id, incident_id: incidentId });
  return incidentId;
}

/** "Probable cause" of a case through the AI layer's summarizer. */
export async function probableCause(ctx: RequestContext, id: number) {
  const c = await loadCase(ctx, id);
  const history = await ctx.tx
    .select({ description: events.description, details: events.details })
    .from(events)
    .where(and(eq(events.organization_id, ctx.orgId), eq(events.case_id, id)))
    .orderBy(asc(events.started_at));
  const texts = [
    c.title + '.',
    c.description ?? '',
    c.resolution ?? '',
    ...history.filter((e) => e.details?.field === undefined).map((e) => e.description + '.'),
  ];
  const result = await summarize({ config: ctx.config, subject: `probable cause of case ${c.name}`, texts, maxSentences: 2 });
  return { probable_cause: result.summary, method: result.method };
}

registerJob('case.provision', async (ctx, data) => {
  const id = data.case_id as number;
  const [c] = await ctx.tx
    .select()
    .from(cases)
    .where(and(eq(cases.organization_id, ctx.orgId), eq(cases.id, id)))
    .for('update');
  if (!c) throw new NotReady();
  if (c.conversation_id) return;
  const [conversation] = await ctx.tx
    .insert(conversations)
    .values({ organization_id: ctx.orgId, case_id: id, name: `${c.name} ${c.title}`.slice(0, 200) })
    .returning();
  await ctx.tx
    .update(cases)
    .set({ conversation_id: conversation!.id })
    .where(and(eq(cases.organization_id, ctx.orgId), eq(cases.id, id)));
  await addEvent(ctx, { case_id: id, type: 'Resource updated', description: 'Conversation created' });
});
