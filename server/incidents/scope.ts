import { and, eq, or, sql, type SQL } from 'drizzle-orm';
import { incidentParticipants, incidents } from './tables.js';
import { callerEmailSql } from '../core/caller.js';
import { notFound } from '../core/errors.js';
import { throughParent, type OrgValue, type RowVisibility } from '../engine/visibility.js';
import type { RequestContext } from '../core/context.js';
import { may } from '../core/context.js';

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
      sql`exists (select 1 from ${incidentParticipants} where ${incidentParticipants.organization_id} = ${orgId} and ${incidentParticipants.incident_id} = ${incidents.id} and ${incidentParticipants.email} = ${callerEmailSql})`,
    ),
  )!;
}

/**
 * The rule the engine applies to every resource and reference (engine/visibility.ts): restricted
 * incidents hide themselves and every row with their `incident_id` (tasks, feedback, the timeline...).
 */
export const incidentVisibility: RowVisibility = {
  owns: incidents,
  // `org` is the organization the condition is read in (a nested reference's lookup passes the row's own).
  own: (ctx, table, org) => (table === incidents ? incidentScope(ctx, org) : undefined),
  linked: (ctx, table, org) => (may(ctx.role, 'seeRestricted') ? undefined : throughParent(table, 'incident_id', incidents, incidentScope(ctx, org))),
  // The conditions depend on the caller's role alone (who may see restricted rows).
  callerKey: (ctx) => (may(ctx.role, 'seeRestricted') ? 'all' : 'own'),
};

export type IncidentRow = typeof incidents.$inferSelect;

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
