import { and, asc, eq, ilike, inArray, isNotNull } from 'drizzle-orm';
import type { RequestContext } from '../core/context.js';
import type { IncidentRow } from '../incidents/scope.js';
import { REPORT_FIELD_LABELS } from '../incidents/actions.js';
import { caseParticipants, cases } from '../cases/tables.js';
import { incidentParticipants, incidentResources, incidents, reports } from '../incidents/tables.js';
import { documents } from '../knowledge/tables.js';
import type { Card } from './capabilities.js';
import { caseCard, casePage, incidentCard, incidentPage, type CaseRow } from './card.js';

export type SubjectKind = 'incident' | 'case';

/**
 * What a channel follows, an incident or a case, in the terms the channel needs: its name, title and
 * status (the channel's name and topic), who is in it, its card, its documents and (an incident's)
 * reports.
 */
export interface Subject {
  kind: SubjectKind;
  id: number;
  name: string;
  title: string;
  status: string;
  restricted: boolean;
  closed: boolean;
  page: string;
  conference_url: string | null;
  row: IncidentRow | CaseRow;
}

export async function loadSubject(ctx: RequestContext, kind: SubjectKind, id: number, publicUrl: string): Promise<Subject | null> {
  if (kind === 'incident') {
    const [i] = await ctx.tx
      .select()
      .from(incidents)
      .where(and(eq(incidents.organization_id, ctx.orgId), eq(incidents.id, id)));
    if (!i) return null;
    const page = incidentPage(publicUrl, ctx.orgSlug, i.name);
    return {
      kind,
      id,
      name: i.name,
      title: i.title,
      status: i.status,
      restricted: i.visibility === 'Restricted',
      closed: i.status === 'Closed',
      page,
      conference_url: i.conference_url,
      row: i,
    };
  }
  const [c] = await ctx.tx
    .select()
    .from(cases)
    .where(and(eq(cases.organization_id, ctx.orgId), eq(cases.id, id)));
  if (!c) return null;
  const page = casePage(publicUrl, ctx.orgSlug, c.name);
  return {
    kind,
    id,
    name: c.name,
    title: c.title,
    status: c.status,
    restricted: c.visibility === 'Restricted',
    closed: c.status === 'Closed',
    page,
    conference_url: null,
    row: c,
  };
}

/** `{name}`, `{number}` and `{title}` of the record in a channel name template. */
export const fillChannelName = (template: string, s: Pick<Subject, 'name' | 'title'>) =>
  template.replaceAll('{name}', s.name).replaceAll('{number}', s.name.replace(/^\D+-/, '')).replaceAll('{title}', s.title);

/** The channel's topic: which record, its title and its status (as the status changes, so does the topic). */
export const topicOf = (s: Subject) => `${s.name}: ${s.title} · ${s.status}`;

export const cardOf = (ctx: RequestContext, s: Subject, publicUrl: string): Promise<Card> =>
  s.kind === 'incident' ? incidentCard(ctx, s.row as IncidentRow, publicUrl) : caseCard(ctx, s.row as CaseRow, publicUrl);

/** Who belongs in the channel: an incident's participants; a case's participants, assignee and reporter. */
export async function peopleOf(ctx: RequestContext, s: Subject): Promise<string[]> {
  if (s.kind === 'incident') {
    const rows = await ctx.tx
      .selectDistinct({ email: incidentParticipants.email })
      .from(incidentParticipants)
      .where(and(eq(incidentParticipants.organization_id, ctx.orgId), eq(incidentParticipants.incident_id, s.id)));
    return rows.map((r) => r.email);
  }
  const c = s.row as CaseRow;
  const rows = await ctx.tx
    .select({ email: caseParticipants.email })
    .from(caseParticipants)
    .where(and(eq(caseParticipants.organization_id, ctx.orgId), eq(caseParticipants.case_id, s.id)));
  return [...new Set([c.assignee_email, c.reporter_email, ...rows.map((r) => r.email)].filter((e): e is string => !!e))];
}

/**
 * The record's documents with a link, as bookmarks: an incident's attached documents and reviews
 * (a review's link is a path of the web app, made whole), a case's documents.
 */
export async function documentsOf(ctx: RequestContext, s: Subject, publicUrl: string): Promise<{ title: string; url: string }[]> {
  const whole = (link: string) => (link.startsWith('/') ? `${publicUrl.replace(/\/$/, '')}/${ctx.orgSlug}${link}` : link);
  if (s.kind === 'incident') {
    const rows = await ctx.tx
      .select({ name: incidentResources.name, weblink: incidentResources.weblink })
      .from(incidentResources)
      .where(
        and(
          eq(incidentResources.organization_id, ctx.orgId),
          eq(incidentResources.incident_id, s.id),
          ilike(incidentResources.resource_type, '%document%'),
          isNotNull(incidentResources.weblink),
        ),
      )
      .orderBy(asc(incidentResources.id));
    return rows.map((r) => ({ title: r.name, url: whole(r.weblink!) }));
  }
  const ids = (s.row as CaseRow).documents ?? [];
  if (!ids.length) return [];
  const rows = await ctx.tx
    .select({ id: documents.id, name: documents.name, weblink: documents.weblink })
    .from(documents)
    .where(and(eq(documents.organization_id, ctx.orgId), inArray(documents.id, ids), isNotNull(documents.weblink)));
  return ids.flatMap((id) => rows.filter((r) => r.id === id).map((r) => ({ title: r.name, url: whole(r.weblink!) })));
}

/** An incident's tactical and executive reports, in the order they were written, as cards. */
export async function reportsOf(ctx: RequestContext, s: Subject): Promise<{ id: number; card: Card }[]> {
  if (s.kind !== 'incident') return [];
  const rows = await ctx.tx
    .select()
    .from(reports)
    .where(and(eq(reports.organization_id, ctx.orgId), eq(reports.incident_id, s.id)))
    .orderBy(asc(reports.created_at), asc(reports.id));
  return rows.map((r) => ({
    id: r.id,
    card: {
      title: `${r.type === 'tactical' ? 'Tactical' : 'Executive'} report: ${s.name} ${s.title}`,
      text: `By ${r.author_email ?? 'an API key'}`,
      fields: Object.entries(REPORT_FIELD_LABELS)
        .filter(([k]) => typeof r.details[k] === 'string')
        .map(([k, label]) => ({ label, value: String(r.details[k]) })),
    },
  }));
}
