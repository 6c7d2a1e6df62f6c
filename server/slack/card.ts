import { and, asc, eq, isNull } from 'drizzle-orm';
import type { RequestContext } from '../core/context.js';
import type { IncidentRow } from '../incidents/scope.js';
import { incidentPriorities, incidentSeverities } from '../incidents/settings-tables.js';
import { incidentParticipants, incidentRoles } from '../incidents/tables.js';
import { cases } from '../cases/tables.js';
import { casePriorities, caseSeverities, caseTypes } from '../cases/settings-tables.js';
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
