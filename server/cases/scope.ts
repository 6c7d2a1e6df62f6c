import { and, eq, or, sql, type SQL } from 'drizzle-orm';
import { caseParticipants, cases } from './tables.js';
import { incidents } from '../incidents/tables.js';
import { incidentScope } from '../incidents/scope.js';
import { callerEmailSql } from '../core/caller.js';
import { notFound } from '../core/errors.js';
import { throughParent, type OrgValue, type RowVisibility } from '../engine/visibility.js';
import type { RequestContext } from '../core/context.js';
import { may } from '../core/context.js';

/** Restricted cases: only their assignee, reporter, listed participants and admins. */
export function caseScope(ctx: RequestContext, orgId: OrgValue = ctx.orgId): SQL {
  const org = eq(cases.organization_id, orgId);
  if (may(ctx.role, 'seeRestricted')) return org;
  return and(
    org,
    or(
      eq(cases.visibility, 'Open'),
      sql`${cases.assignee_email} = ${callerEmailSql}`,
      sql`${cases.reporter_email} = ${callerEmailSql}`,
      sql`exists (select 1 from ${caseParticipants} where ${caseParticipants.organization_id} = ${orgId} and ${caseParticipants.case_id} = ${cases.id} and ${caseParticipants.email} = ${callerEmailSql})`,
    ),
  )!;
}

/** As incidentVisibility: restricted cases hide themselves and every row with their `case_id`. */
export const caseVisibility: RowVisibility = {
  owns: cases,
  own: (ctx, table, org) => (table === cases ? caseScope(ctx, org) : undefined),
  linked: (ctx, table, org) => (may(ctx.role, 'seeRestricted') ? undefined : throughParent(table, 'case_id', cases, caseScope(ctx, org))),
  callerKey: (ctx) => (may(ctx.role, 'seeRestricted') ? 'all' : 'own'),
};

export type CaseRow = typeof cases.$inferSelect;

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
