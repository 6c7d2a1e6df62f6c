import { z } from 'zod';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { conversations } from '../timeline/tables.js';
import {
  incidentParticipants,
  incidentRoles,
  incidents,
  incidentSteps,
  incidentSubscriptions,
  incidentEntities,
  incidentTags,
  INCIDENT_ROLES,
  INCIDENT_STATUSES,
} from './tables.js';
import { incidentPriorities, incidentSeverities, incidentTypes } from './settings-tables.js';
import { restrictedTypes, withDefaults } from './defaults.js';
import { tags } from '../tags/tables.js';
import { httpError, invalid } from '../core/errors.js';
import { atLeast, type RequestContext } from '../core/context.js';
import { BACKGROUND_LANE, defineJob, enqueueJob, NotReady } from '../core/jobs/define.js';
import { addEvent } from '../timeline/events.js';
import { loadIncident, type IncidentRow } from './scope.js';
import { nextNumber } from './names.js';
import { actorOf, callerEmail } from '../core/caller.js';
import { publish } from '../core/events.js';
import type { IncidentInput } from './bodies.js';
import { conferenceFor } from '../plugins/conference.js';

export type IncidentRole = (typeof INCIDENT_ROLES)[number];
type Status = IncidentRow['status'];

/** Checklist an incident starts with when its type has none. */
export const DEFAULT_STEPS = [
  { name: 'Assess impact', description: 'Who and what is affected, since when.' },
  { name: 'Assign roles', description: 'Commander, scribe and liaison are named.' },
  { name: 'Contain', description: 'Stop the damage from spreading.' },
  { name: 'Communicate', description: 'Send the first tactical report to subscribers.' },
  { name: 'Resolve', description: 'Remove the cause and restore service.' },
  { name: 'Review', description: 'Write the postmortem and follow-up tasks.' },
];

/** The steps an incident starts with: its type's custom checklist, else the default one. */
async function checklistFor(ctx: RequestContext, typeId: number | null | undefined): Promise<{ name: string; description?: string | null }[]> {
  if (!typeId) return DEFAULT_STEPS;
  const [type] = await ctx.tx
    .select({ checklist: incidentTypes.custom_checklist })
    .from(incidentTypes)
    .where(and(eq(incidentTypes.organization_id, ctx.orgId), eq(incidentTypes.id, typeId)));
  const items = ((type?.checklist ?? []) as { text?: string; required?: boolean }[]).filter((i) => typeof i?.text === 'string');
  return items.length ? items.map((i) => ({ name: i.text!.slice(0, 200), description: i.required ? 'Required' : null })) : DEFAULT_STEPS;
}

/** Adds a person as a participant (idempotent) and returns the participant id. */
export async function ensureParticipant(ctx: RequestContext, incidentId: number, email: string, reason: string) {
  const [row] = await ctx.tx
    .insert(incidentParticipants)
    .values({ organization_id: ctx.orgId, incident_id: incidentId, email, added_reason: reason })
    .onConflictDoNothing()
    .returning({ id: incidentParticipants.id });
  if (row) return { id: row.id, added: true };
  const [existing] = await ctx.tx
    .select({ id: incidentParticipants.id })
    .from(incidentParticipants)
    .where(and(eq(incidentParticipants.organization_id, ctx.orgId), eq(incidentParticipants.incident_id, incidentId), eq(incidentParticipants.email, email)));
  return { id: existing!.id, added: false };
}

/**
 * Gives `email` the role. Reporter and commander are single-holder roles: the previous holder's
 * entry gets renounced_at, and the incident's denormalized reporter/commander e-mail follows.
 */
export async function assignRole(ctx: RequestContext, incidentId: number, email: string, role: IncidentRole, opts: { silent?: boolean } = {}) {
  const participant = await ensureParticipant(ctx, incidentId, email, `Assigned the ${role} role`);
  const active = await ctx.tx
    .select({ id: incidentRoles.id, participant_id: incidentRoles.participant_id })
    .from(incidentRoles)
    .where(
      and(
        eq(incidentRoles.organization_id, ctx.orgId),
        eq(incidentRoles.incident_id, incidentId),
        eq(incidentRoles.role, role),
        isNull(incidentRoles.renounced_at),
      ),
    );
  if (active.some((r) => r.participant_id === participant.id)) return false;
  if (role === 'reporter' || role === 'commander') {
    if (active.length)
      await ctx.tx
        .update(incidentRoles)
        .set({ renounced_at: sql`now()` })
        .where(
          inArray(
            incidentRoles.id,
            active.map((r) => r.id),
          ),
        );
    await ctx.tx
      .update(incidents)
      .set(role === 'commander' ? { commander_email: email } : { reporter_email: email })
      .where(and(eq(incidents.organization_id, ctx.orgId), eq(incidents.id, incidentId)));
  }
  await ctx.tx.insert(incidentRoles).values({ organization_id: ctx.orgId, incident_id: incidentId, participant_id: participant.id, role });
  if (!opts.silent) {
    await addEvent(ctx, {
      incident_id: incidentId,
      type: 'Participant updated',
      description: `${email} has been assigned the ${role} role`,
      owner: await actorOf(ctx),
    });
  }
  return true;
}

/** A role given on its own (the roles route, Slack): the incident's listeners follow (its channel's card, webhooks). */
export async function giveRole(ctx: RequestContext, incidentId: number, email: string, role: IncidentRole) {
  await loadIncident(ctx, incidentId, true);
  const added = await assignRole(ctx, incidentId, email, role);
  if (added) await publish(ctx, { type: 'incident.updated', id: incidentId });
  return added;
}

/** Renounces one role entry (it stays on the incident as Inactive). */
export async function renounceRole(ctx: RequestContext, incidentId: number, roleId: number) {
  const [row] = await ctx.tx
    .update(incidentRoles)
    .set({ renounced_at: sql`now()` })
    .where(
      and(
        eq(incidentRoles.organization_id, ctx.orgId),
        eq(incidentRoles.incident_id, incidentId),
        eq(incidentRoles.id, roleId),
        isNull(incidentRoles.renounced_at),
      ),
    )
    .returning({ role: incidentRoles.role, participant_id: incidentRoles.participant_id });
  if (!row) throw httpError(404, `Active role '${roleId}' could not be found.`, 'not_found', ['path', 'roleId']);
  const [p] = await ctx.tx
    .select({ email: incidentParticipants.email })
    .from(incidentParticipants)
    .where(and(eq(incidentParticipants.organization_id, ctx.orgId), eq(incidentParticipants.id, row.participant_id)));
  if (row.role === 'commander' || row.role === 'reporter') {
    await ctx.tx
      .update(incidents)
      .set(row.role === 'commander' ? { commander_email: null } : { reporter_email: null })
      .where(and(eq(incidents.organization_id, ctx.orgId), eq(incidents.id, incidentId)));
  }
  await addEvent(ctx, {
    incident_id: incidentId,
    type: 'Participant updated',
    description: `${p!.email} has renounced the ${row.role} role`,
    owner: await actorOf(ctx),
  });
  await publish(ctx, { type: 'incident.updated', id: incidentId });
}

/** The incident's lists kept in link tables: the body field, its table and the column of the linked id. */
const LINKS = {
  tags: { table: incidentTags, column: 'tag_id', label: 'Tags' },
  entities: { table: incidentEntities, column: 'entity_id', label: 'Entities' },
} as const;

/** Replaces the incident's tags or entities with `ids` (already checked to belong to the organization). */
async function setIncidentLinks(ctx: RequestContext, field: keyof typeof LINKS, incidentId: number, ids: number[]) {
  const { table, column } = LINKS[field];
  await ctx.tx.delete(table).where(and(eq(table.organization_id, ctx.orgId), eq(table.incident_id, incidentId)));
  if (ids.length)
    await ctx.tx.insert(table).values([...new Set(ids)].map((id) => ({ organization_id: ctx.orgId, incident_id: incidentId, [column]: id }) as never));
}

/** The ids an incident links in `field`, in link order. */
async function incidentLinks(ctx: RequestContext, field: keyof typeof LINKS, incidentId: number): Promise<number[]> {
  const { table, column } = LINKS[field];
  const linked = (table as unknown as Record<string, typeof incidentTags.tag_id>)[column]!;
  const rows = await ctx.tx
    .select({ id: linked })
    .from(table)
    .where(and(eq(table.organization_id, ctx.orgId), eq(table.incident_id, incidentId)))
    .orderBy(linked);
  return rows.map((r) => r.id);
}

export async function checkTags(ctx: RequestContext, tagIds: number[], field = 'tags') {
  const ids = [...new Set(tagIds)];
  if (!ids.length) return;
  const found = await ctx.tx
    .select({ id: tags.id })
    .from(tags)
    .where(and(eq(tags.organization_id, ctx.orgId), inArray(tags.id, ids)));
  const have = new Set(found.map((f) => f.id));
  const missing = ids.find((id) => !have.has(id));
  if (missing !== undefined) throw invalid(`Tag '${missing}' could not be found.`, ['body', field], 'not_found');
}

export type { IncidentInput };

/** Creates an incident with its name, roles, steps and first timeline entry; the conversation follows in the background. */
export async function createIncident(ctx: RequestContext, given: IncidentInput) {
  const input = await withDefaults(
    ctx,
    given,
    { incident_type_id: incidentTypes, incident_priority_id: incidentPriorities, incident_severity_id: incidentSeverities },
    given.project_id,
  );
  if (await typeRestricts(ctx, input.incident_type_id)) input.visibility = 'Restricted';
  const checklist = await checklistFor(ctx, input.incident_type_id);
  const me = await callerEmail(ctx);
  const reporter = input.reporter_email ?? me;
  const commander = input.commander_email ?? reporter;
  const number = await nextNumber(ctx, 'incident');
  const { tags: tagIds = [], entities: entityIds = [], ...columns } = input;
  await checkTags(ctx, tagIds);
  const [row] = await ctx.tx
    .insert(incidents)
    .values({ ...columns, status: 'Active', organization_id: ctx.orgId, name: `IAO-${number}` })
    .returning();
  const incident = row!;
  if (reporter) await assignRole(ctx, incident.id, reporter, 'reporter', { silent: true });
  if (commander) await assignRole(ctx, incident.id, commander, 'commander', { silent: true });
  await setIncidentLinks(ctx, 'tags', incident.id, tagIds);
  await setIncidentLinks(ctx, 'entities', incident.id, entityIds);
  if (checklist.length) {
    await ctx.tx
      .insert(incidentSteps)
      .values(
        checklist.map((s, i) => ({ organization_id: ctx.orgId, incident_id: incident.id, position: i + 1, name: s.name, description: s.description ?? null })),
      );
  }
  await addEvent(ctx, {
    incident_id: incident.id,
    type: 'Other',
    description: `Incident ${incident.name} created by ${me ?? 'an API key'}`,
    owner: me,
    details: { commander, reporter },
  });
  await enqueueJob(ctx, incidentProvisionJob, { incident_id: incident.id });
  if (input.status && input.status !== 'Active') await setIncidentStatus(ctx, incident.id, input.status, { creating: true });
  await publish(ctx, { type: 'incident.created', id: incident.id });
  return incident.id;
}

/** Which workflows run on a status change. The workflows engine registers itself here. */
export type WorkflowRunner = (ctx: RequestContext, target: { incident_id?: number; case_id?: number }, status: string) => Promise<number>;
let workflowRunner: WorkflowRunner = async () => 0;
export function setWorkflowRunner(runner: WorkflowRunner) {
  workflowRunner = runner;
}

/**
 * What another domain does in the same transaction when an incident closes (cases/ closes the cases
 * linked to it), registered by that domain's plugin: incidents do not know the domains that point at them.
 */
export type IncidentCloser = (ctx: RequestContext, incident: IncidentRow) => Promise<void>;
const closers = new Set<IncidentCloser>();
export const onIncidentClosed = (closer: IncidentCloser) => void closers.add(closer);

export const STATUS_MESSAGES: Record<Status, string> = {
  Active: 'Incident reopened.',
  Stable: 'Incident marked as stable. Running stable status workflows.',
  Closed: 'Incident marked as closed. Running closed status workflows.',
};

/**
 * Moves an incident to `status`: Stable sets stable_at; Closed sets closed_at (and stable_at if it
 * never was) and runs the closers (onIncidentClosed); back to Active reopens it. Each runs the status workflows.
 */
export async function setIncidentStatus(ctx: RequestContext, id: number, status: Status, opts: { creating?: boolean } = {}) {
  const current = await loadIncident(ctx, id, true);
  if (!opts.creating) await checkStatusRight(ctx, id);
  if (current.status === status) throw httpError(409, `Incident ${current.name} is already ${status.toLowerCase()}.`, 'conflict', ['body', 'status']);
  const set =
    status === 'Stable'
      ? { status, stable_at: sql`now()`, closed_at: null }
      : status === 'Closed'
        ? { status, closed_at: sql`now()`, stable_at: sql`coalesce(${incidents.stable_at}, now())` }
        : { status, stable_at: null, closed_at: null };
  await ctx.tx
    .update(incidents)
    .set({ ...set, updated_at: sql`now()` })
    .where(and(eq(incidents.organization_id, ctx.orgId), eq(incidents.id, id)));
  const actor = await actorOf(ctx);
  const verb = status === 'Active' ? 'reopened' : `marked as ${status.toLowerCase()}`;
  await addEvent(ctx, {
    incident_id: id,
    type: 'Other',
    description: `Incident ${verb} by ${actor} (was ${current.status})`,
    owner: await callerEmail(ctx),
    details: { from: current.status, to: status },
  });
  if (status === 'Closed') for (const close of closers) await close(ctx, current);
  if (status !== 'Active') await enqueueJob(ctx, statusWorkflowsJob, { incident_id: id, status });
  await publish(ctx, { type: 'incident.updated', id });
  return STATUS_MESSAGES[status];
}

export const STATUS_RIGHT =
  "Only the incident's commander, reporter, liaison or scribe, and Admins and above may change its status; joining as a participant does not give that right.";

/**
 * The roles that carry the right to change an incident's status. Participant (what Join gives anyone
 * who may see the incident) and observer do not: otherwise any member could join and close it.
 */
export const STATUS_ROLES = ['commander', 'reporter', 'liaison', 'scribe'] as const satisfies readonly IncidentRole[];

/** Who may change an incident's status: Admins and above, or a signed-in person holding one of STATUS_ROLES on it. */
async function checkStatusRight(ctx: RequestContext, incidentId: number) {
  if (atLeast(ctx.role, 'Admin')) return;
  const me = await callerEmail(ctx);
  const held = me
    ? await ctx.tx
        .select({ id: incidentRoles.id })
        .from(incidentRoles)
        .innerJoin(
          incidentParticipants,
          and(eq(incidentParticipants.organization_id, incidentRoles.organization_id), eq(incidentParticipants.id, incidentRoles.participant_id)),
        )
        .where(
          and(
            eq(incidentRoles.organization_id, ctx.orgId),
            eq(incidentRoles.incident_id, incidentId),
            eq(incidentParticipants.email, me),
            inArray(incidentRoles.role, [...STATUS_ROLES]),
            isNull(incidentRoles.renounced_at),
          ),
        )
        .limit(1)
    : [];
  if (!held.length) throw httpError(403, STATUS_RIGHT, 'forbidden', ['body', 'status']);
}

/** Background: the workflows bound to the status the incident was moved to. */
export const statusWorkflowsJob = defineJob({
  name: 'incident.workflows',
  lane: BACKGROUND_LANE,
  payload: z.object({ incident_id: z.number().int(), status: z.enum(INCIDENT_STATUSES) }),
  run: (data, job) =>
    job.tenant(async (ctx) => {
      const id = data.incident_id as number;
      const status = data.status as Status;
      const ran = await workflowRunner(ctx, { incident_id: id }, status);
      if (ran)
        await addEvent(ctx, {
          incident_id: id,
          type: 'Other',
          source: 'Workflow',
          description: `Running ${ran} ${status.toLowerCase()} status workflow${ran === 1 ? '' : 's'}`,
        });
    }),
});

/** Timeline wording of a field change (only the fields a user edits; timestamps are kept quiet). */
const FIELD_LABELS: Record<string, string> = {
  title: 'Title',
  description: 'Description',
  resolution: 'Resolution',
  visibility: 'Visibility',
  incident_type_id: 'Type',
  incident_priority_id: 'Priority',
  incident_severity_id: 'Severity',
  project_id: 'Project',
  reported_at: 'Reported at',
  custom_fields: 'Custom fields',
  services: 'Services',
  queries: 'Queries',
};

const typeRestricts = async (ctx: RequestContext, typeId: number | null | undefined) => (await restrictedTypes(ctx, incidentTypes, [typeId])).size > 0;

/** Applies an update: plain fields, roles, tags and status, each change with its timeline entry. */
export async function updateIncident(ctx: RequestContext, id: number, data: Partial<IncidentInput>) {
  const current = await loadIncident(ctx, id, true);
  const { tags: tagIds, entities: entityIds, status, commander_email, reporter_email, ...fields } = data;
  // Retyped to a Restricted type: restricted with it (a retype to an Open type leaves visibility alone).
  if (fields.incident_type_id !== undefined && fields.incident_type_id !== current.incident_type_id && (await typeRestricts(ctx, fields.incident_type_id)))
    fields.visibility = 'Restricted';
  const changed = Object.entries(fields).filter(([k, v]) => JSON.stringify(v instanceof Date ? v.toISOString() : v) !== JSON.stringify(valueOf(current, k)));
  const actor = await actorOf(ctx);
  const me = await callerEmail(ctx);
  if (changed.length) {
    await ctx.tx
      .update(incidents)
      .set({ ...Object.fromEntries(changed), updated_at: sql`now()` })
      .where(and(eq(incidents.organization_id, ctx.orgId), eq(incidents.id, id)));
    for (const [k, v] of changed) {
      await addEvent(ctx, {
        incident_id: id,
        type: 'Field updated',
        description: `${FIELD_LABELS[k] ?? k} changed by ${actor}`,
        owner: me,
        details: { field: k, from: valueOf(current, k), to: v },
      });
    }
  }
  if (commander_email && commander_email !== current.commander_email) await assignRole(ctx, id, commander_email, 'commander');
  if (reporter_email && reporter_email !== current.reporter_email) await assignRole(ctx, id, reporter_email, 'reporter');
  if (tagIds) await checkTags(ctx, tagIds);
  let linksChanged = false;
  for (const [field, ids] of [
    ['tags', tagIds],
    ['entities', entityIds],
  ] as const) {
    if (!ids) continue;
    // A record sent back unchanged leaves its links (and the timeline) alone.
    const given = [...new Set(ids)].sort((a, b) => a - b);
    if (JSON.stringify(given) === JSON.stringify(await incidentLinks(ctx, field, id))) continue;
    linksChanged = true;
    await setIncidentLinks(ctx, field, id, given);
    await addEvent(ctx, {
      incident_id: id,
      type: 'Field updated',
      description: `${LINKS[field].label} changed by ${actor}`,
      owner: me,
      details: { field, to: ids },
    });
  }
  if (status && status !== current.status) await setIncidentStatus(ctx, id, status);
  else if (changed.length || commander_email || reporter_email || linksChanged) await publish(ctx, { type: 'incident.updated', id });
  return true;
}

function valueOf(row: IncidentRow, key: string) {
  const v = (row as Record<string, unknown>)[key];
  return v instanceof Date ? v.toISOString() : v;
}

export async function joinIncident(ctx: RequestContext, id: number) {
  await loadIncident(ctx, id);
  const me = await callerEmail(ctx);
  if (!me) throw httpError(403, 'Only a signed-in user can join an incident.', 'forbidden');
  const added = await assignRole(ctx, id, me, 'participant', { silent: true });
  if (!added) throw httpError(409, 'You are already a participant of this incident.', 'conflict');
  await addEvent(ctx, { incident_id: id, type: 'Participant updated', description: `${me} joined the incident`, owner: me });
  await publish(ctx, { type: 'incident.updated', id });
  return 'You have successfully joined the incident.';
}

export async function subscribeIncident(ctx: RequestContext, id: number) {
  await loadIncident(ctx, id);
  const me = await callerEmail(ctx);
  if (!me) throw httpError(403, 'Only a signed-in user can subscribe to an incident.', 'forbidden');
  const [row] = await ctx.tx.insert(incidentSubscriptions).values({ organization_id: ctx.orgId, incident_id: id, email: me }).onConflictDoNothing().returning();
  if (!row) throw httpError(409, 'You are already subscribed to tactical reports of this incident.', 'conflict');
  await addEvent(ctx, { incident_id: id, type: 'Participant updated', description: `${me} subscribed to tactical report e-mails`, owner: me });
  return 'You have successfully subscribed to tactical report emails for this incident.';
}

export async function unsubscribeIncident(ctx: RequestContext, id: number) {
  await loadIncident(ctx, id);
  const me = await callerEmail(ctx);
  if (!me) throw httpError(403, 'Only a signed-in user can unsubscribe from an incident.', 'forbidden');
  const gone = await ctx.tx
    .delete(incidentSubscriptions)
    .where(and(eq(incidentSubscriptions.organization_id, ctx.orgId), eq(incidentSubscriptions.incident_id, id), eq(incidentSubscriptions.email, me)))
    .returning({ email: incidentSubscriptions.email });
  if (!gone.length) throw httpError(409, 'You are not subscribed to tactical reports of this incident.', 'conflict');
  await addEvent(ctx, { incident_id: id, type: 'Participant updated', description: `${me} unsubscribed from tactical report e-mails`, owner: me });
  return 'You will no longer receive tactical report emails for this incident.';
}

/**
 * What else opens with an incident's conversation, in the same transaction (the Slack domain queues
 * its channel there). Registered by each domain's plugin; the same function once.
 */
export type ConversationOpener = (ctx: RequestContext, incident: IncidentRow, conversationId: number) => Promise<void>;
const conversationOpeners = new Set<ConversationOpener>();
export const onConversationOpened = (opener: ConversationOpener) => void conversationOpeners.add(opener);

/** Background: the incident's conversation (a thread inside Firewatch) and its conference link. */
export const incidentProvisionJob = defineJob({
  name: 'incident.provision',
  lane: BACKGROUND_LANE,
  payload: z.object({ incident_id: z.number().int() }),
  run: (data, job) =>
    job.tenant(async (ctx) => {
      const id = data.incident_id as number;
      const [incident] = await ctx.tx
        .select()
        .from(incidents)
        .where(and(eq(incidents.organization_id, ctx.orgId), eq(incidents.id, id)))
        .for('update');
      if (!incident) throw new NotReady();
      if (incident.conversation_id) return;
      const [conversation] = await ctx.tx
        .insert(conversations)
        .values({ organization_id: ctx.orgId, incident_id: id, name: `${incident.name} ${incident.title}`.slice(0, 200) })
        .returning();
      // The conference-link plugin (an instance of the incident's project), else the server's template.
      const conference = await conferenceFor(ctx, incident);
      await ctx.tx
        .update(incidents)
        .set({ conversation_id: conversation!.id, conference_url: conference })
        .where(and(eq(incidents.organization_id, ctx.orgId), eq(incidents.id, id)));
      await addEvent(ctx, { incident_id: id, type: 'Resource updated', description: `Conversation and conference created (${conference})` });
      for (const open of conversationOpeners) await open(ctx, { ...incident, conference_url: conference }, conversation!.id);
    }),
});
