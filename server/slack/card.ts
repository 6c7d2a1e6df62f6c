import { and, asc, count, desc, eq, isNull, max } from 'drizzle-orm';
import type { RequestContext } from '../core/context.js';
import type { IncidentRow } from '../incidents/scope.js';
import { incidentPriorities, incidentSeverities } from '../incidents/settings-tables.js';
import { incidentParticipants, incidentRoles } from '../incidents/tables.js';
import { cases } from '../cases/tables.js';
import { casePriorities, caseSeverities, caseTypes } from '../cases/settings-tables.js';
import { signalGroups, signalInstances, signals } from '../signals/tables.js';
import { summaryOf } from '../signals/process.js';
import type { Card } from './capabilities.js';

export type CaseRow = typeof cases.$inferSelect;

/** A page of the organization in the web app. */
export const webPage = (publicUrl: string, orgSlug: string, path: string) => `${publicUrl.replace(/\/$/, '')}/${orgSlug}/${path}`;
/** The incident's page in the web app (by its name). */
export const incidentPage = (publicUrl: string, orgSlug: string, name: string) => webPage(publicUrl, orgSlug, `iaos/${encodeURIComponent(name)}/view`);
/** The case's page in the web app (by its name). */
export const casePage = (publicUrl: string, orgSlug: string, name: string) => webPage(publicUrl, orgSlug, `cases/${encodeURIComponent(name)}/view`);

type Named = typeof incidentSeverities | typeof incidentPriorities | typeof caseSeverities | typeof casePriorities | typeof caseTypes;

async function settingName(ctx: RequestContext, table: Named, id: number | null) {
  if (!id) return '';
  const t = table as typeof incidentSeverities;
  const [row] = await ctx.tx
    .select({ name: t.name })
    .from(t)
    .where(and(eq(t.organization_id, ctx.orgId), eq(t.id, id)));
  return row?.name ?? '';
}

/** Who holds which role now, e.g. "commander: ana@x.test; scribe: bo@x.test". */
async function rolesText(ctx: RequestContext, incidentId: number) {
  const rows = await ctx.tx
    .select({ role: incidentRoles.role, email: incidentParticipants.email })
    .from(incidentRoles)
    .innerJoin(
      incidentParticipants,
      and(eq(incidentParticipants.organization_id, incidentRoles.organization_id), eq(incidentParticipants.id, incidentRoles.participant_id)),
    )
    .where(and(eq(incidentRoles.organization_id, ctx.orgId), eq(incidentRoles.incident_id, incidentId), isNull(incidentRoles.renounced_at)))
    .orderBy(asc(incidentRoles.id));
  return rows
    .filter((r) => r.role !== 'participant')
    .map((r) => `${r.role}: ${r.email}`)
    .join('; ');
}

/** The pinned incident card: what a responder looks at first, kept current as the incident changes. */
export async function incidentCard(ctx: RequestContext, incident: IncidentRow, publicUrl: string): Promise<Card> {
  return {
    title: `${incident.name}: ${incident.title}`,
    text: incident.description ?? undefined,
    fields: [
      { label: 'Status', value: incident.status },
      { label: 'Severity', value: await settingName(ctx, incidentSeverities, incident.incident_severity_id) },
      { label: 'Priority', value: await settingName(ctx, incidentPriorities, incident.incident_priority_id) },
      { label: 'Commander', value: incident.commander_email ?? '' },
      { label: 'Roles', value: await rolesText(ctx, incident.id) },
      { label: 'Visibility', value: incident.visibility },
    ],
    actions: [
      { label: 'Open in Firewatch', action: 'incident_view', url: incidentPage(publicUrl, ctx.orgSlug, incident.name) },
      { label: 'Join', action: 'incident_join', value: String(incident.id) },
    ],
  };
}

/**
 * A case's card: in its own channel (pinned, kept current) and in a notification channel, where it
 * also asks to be acknowledged. Escalating is offered until it is.
 */
export async function caseCard(ctx: RequestContext, c: CaseRow, publicUrl: string, o: { acknowledge?: boolean } = {}): Promise<Card> {
  return {
    title: `${c.name}: ${c.title}`,
    text: c.description ?? undefined,
    fields: [
      { label: 'Status', value: c.status },
      { label: 'Type', value: await settingName(ctx, caseTypes, c.case_type_id) },
      { label: 'Severity', value: await settingName(ctx, caseSeverities, c.case_severity_id) },
      { label: 'Priority', value: await settingName(ctx, casePriorities, c.case_priority_id) },
      { label: 'Assignee', value: c.assignee_email ?? '' },
      { label: 'Visibility', value: c.visibility },
    ],
    actions: [
      ...(o.acknowledge ? [{ label: 'Acknowledge', action: 'case_ack', value: String(c.id), style: 'primary' as const }] : []),
      ...(c.incident_id ? [] : [{ label: 'Escalate', action: 'case_escalate', value: String(c.id), style: 'danger' as const }]),
      { label: 'View', action: 'case_view', url: casePage(publicUrl, ctx.orgSlug, c.name) },
    ],
  };
}

/** How often and when last a signal was seen: "3 times, the last at 2025-06-01 09:30 UTC". */
const seenText = (n: number, last: Date) => `${n} ${n === 1 ? 'time' : 'times'}, the last at ${last.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The field a case's card gets in a channel its signals are posted to: how many signals it has had (repeats included). */
export async function signalsField(ctx: RequestContext, caseId: number) {
  const [seen] = await ctx.tx
    .select({ n: count(), last: max(signalInstances.created_at) })
    .from(signalInstances)
    .where(and(eq(signalInstances.organization_id, ctx.orgId), eq(signalInstances.case_id, caseId), eq(signalInstances.event_action, 'trigger')));
  return seen?.n && seen.last ? [{ label: 'Signals', value: seenText(seen.n, seen.last) }] : [];
}

/**
 * A signal that makes no case (its definition does not create cases): its summary, how often it was
 * seen, and a button to its raw signals (the group's, so its repeats too).
 */
export async function signalGroupCard(ctx: RequestContext, groupId: number, publicUrl: string): Promise<Card | null> {
  const [group] = await ctx.tx
    .select({
      signal_id: signalGroups.signal_id,
      status: signalGroups.status,
      count: signalGroups.count,
      last_seen: signalGroups.last_seen,
      name: signals.name,
      description: signals.description,
    })
    .from(signalGroups)
    .innerJoin(signals, and(eq(signals.organization_id, signalGroups.organization_id), eq(signals.id, signalGroups.signal_id)))
    .where(and(eq(signalGroups.organization_id, ctx.orgId), eq(signalGroups.id, groupId)));
  if (!group) return null;
  const [latest] = await ctx.tx
    .select({ raw: signalInstances.raw, source: signalInstances.source })
    .from(signalInstances)
    .where(and(eq(signalInstances.organization_id, ctx.orgId), eq(signalInstances.signal_id, group.signal_id), eq(signalInstances.group_id, groupId)))
    .orderBy(desc(signalInstances.id))
    .limit(1);
  if (!latest) return null;
  return {
    title: `${group.name}: ${summaryOf(latest, group.name)}`,
    text: group.description ?? undefined,
    fields: [
      { label: 'Source', value: latest.source },
      { label: 'Status', value: group.status },
      { label: 'Seen', value: seenText(group.count, group.last_seen) },
    ],
    actions: [
      {
        label: 'View',
        action: 'signal_view',
        url: webPage(publicUrl, ctx.orgSlug, `signals/instances?filter=${encodeURIComponent(JSON.stringify({ group_id: groupId }))}`),
      },
    ],
  };
}
