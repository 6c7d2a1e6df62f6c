import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { RequestContext } from '../core/context.js';
import { individuals, services, teams } from '../people/tables.js';
import { layerOf, opsgenieClient, stepsOf, type Json } from './opsgenie-import.js';
import { oncallEscalationPolicies, oncallOverrides, oncallSchedules, oncallTeamMembers, type LayerSpec, type StepTarget } from './tables.js';

/**
 * Writes an Opsgenie account into an organization: users as individuals, teams with their members,
 * schedules with rotations and overrides, escalation policies, services of type firewatch-oncall
 * pointing at their team's policy. Records keep `opsgenie:<id>` (individuals, teams and services their
 * unique e-mail or name), so a second run updates them rather than adding more.
 */
export interface ImportReport {
  created: Record<string, string[]>;
  updated: Record<string, string[]>;
  skipped: string[];
}
const ext = (id: string) => `opsgenie:${id}`;
/** Minutes the last step waits before a repeat, when Opsgenie gives none. */
const DEFAULT_WAIT = 5;

export async function importOpsgenie(ctx: RequestContext, source: { url: string; key: string }, projectId: number | null): Promise<ImportReport> {
  const og = opsgenieClient(source.url, source.key);
  const report: ImportReport = { created: {}, updated: {}, skipped: [] };
  const note = (kind: string, name: string, inserted: boolean) => {
    const to = inserted ? report.created : report.updated;
    (to[kind] ??= []).push(name);
  };
  // (xmax = 0): the row was inserted by this statement, not updated.
  const inserted = sql<boolean>`(xmax = 0)`;

  const users = await og.all('/v2/users?limit=100');
  const emailOf = new Map(users.map((u) => [u.id as string, String(u.username).toLowerCase()]));
  for (const u of users) {
    const [r] = await ctx.tx
      .insert(individuals)
      .values({ organization_id: ctx.orgId, project_id: projectId, name: u.fullName || u.username, email: emailOf.get(u.id)!, external_id: ext(u.id) })
      .onConflictDoUpdate({
        target: [individuals.organization_id, individuals.project_id, individuals.email],
        set: { name: u.fullName || u.username, external_id: ext(u.id), updated_at: sql`now()` },
      })
      .returning({ inserted });
    note('users', emailOf.get(u.id)!, r!.inserted);
  }

  const teamIds = new Map<string, number>();
  for (const t of await og.all('/v2/teams')) {
    const full = (await og.get(`/v2/teams/${encodeURIComponent(t.id)}`)).data as Json;
    const [r] = await ctx.tx
      .insert(teams)
      .values({ organization_id: ctx.orgId, project_id: projectId, name: t.name, notes: t.description ?? null })
      .onConflictDoUpdate({ target: [teams.organization_id, teams.project_id, teams.name], set: { notes: t.description ?? null, updated_at: sql`now()` } })
      .returning({ id: teams.id, inserted });
    teamIds.set(t.id, r!.id);
    await ctx.tx.delete(oncallTeamMembers).where(and(eq(oncallTeamMembers.organization_id, ctx.orgId), eq(oncallTeamMembers.team_id, r!.id)));
    const emails = [...new Set(((full.members ?? []) as Json[]).map((m) => emailOf.get(m.user.id) ?? String(m.user.username).toLowerCase()))];
    if (emails.length) await ctx.tx.insert(oncallTeamMembers).values(emails.map((email) => ({ organization_id: ctx.orgId, team_id: r!.id, email })));
    note('teams', `${t.name} (${emails.length} members)`, r!.inserted);
  }

  const scheduleIds = await importSchedules(ctx, og, emailOf, projectId, note, report);
  const target = (r: Json): StepTarget | null => {
    if (r.type === 'schedule' && scheduleIds.has(r.id)) return { type: 'schedule', id: scheduleIds.get(r.id)! };
    if (r.type === 'user' && emailOf.has(r.id)) return { type: 'person', email: emailOf.get(r.id)! };
    if (r.type === 'team' && teamIds.has(r.id)) return { type: 'team_all', id: teamIds.get(r.id)! };
    report.skipped.push(`escalation recipient ${r.type} ${r.name ?? r.username ?? r.id}`);
    return null;
  };
  const policyOfTeam = new Map<string, number>();
  for (const e of await og.all('/v2/escalations')) {
    const steps = stepsOf(e.rules ?? [], target, e.repeat?.waitInterval || DEFAULT_WAIT);
    if (!steps.length) {
      report.skipped.push(`escalation ${e.name}: no recipient Firewatch knows`);
      continue;
    }
    const values = { name: e.name, description: e.description ?? null, steps, repeat: Math.min(9, e.repeat?.count ?? 0), project_id: projectId };
    const [r] = await ctx.tx
      .insert(oncallEscalationPolicies)
      .values({ organization_id: ctx.orgId, external_id: ext(e.id), ...values })
      .onConflictDoUpdate({
        target: [oncallEscalationPolicies.organization_id, oncallEscalationPolicies.external_id],
        set: { ...values, updated_at: sql`now()` },
      })
      .returning({ id: oncallEscalationPolicies.id, inserted });
    if (e.ownerTeam?.id && !policyOfTeam.has(e.ownerTeam.id)) policyOfTeam.set(e.ownerTeam.id, r!.id);
    note('escalation policies', `${e.name} (${steps.length} steps)`, r!.inserted);
  }

  for (const s of await og.all('/v1/services?limit=100')) {
    const policy = policyOfTeam.get(s.teamId);
    const set = { type: 'firewatch-oncall', external_id: policy ? String(policy) : null, description: s.description ?? null };
    const [r] = await ctx.tx
      .insert(services)
      .values({ organization_id: ctx.orgId, project_id: projectId, name: s.name, ...set })
      .onConflictDoUpdate({ target: [services.organization_id, services.project_id, services.name], set: { ...set, updated_at: sql`now()` } })
      .returning({ inserted });
    note('services', `${s.name}${policy ? '' : ' (no escalation policy of its team)'}`, r!.inserted);
  }
  return report;
}

async function importSchedules(
  ctx: RequestContext,
  og: ReturnType<typeof opsgenieClient>,
  emailOf: Map<string, string>,
  projectId: number | null,
  note: (kind: string, name: string, inserted: boolean) => void,
  report: ImportReport,
) {
  const inserted = sql<boolean>`(xmax = 0)`;
  const ids = new Map<string, number>();
  for (const s of await og.all('/v2/schedules?expand=rotation')) {
    const tz = s.timezone || 'UTC';
    // Opsgenie's first rotation wins where rotations overlap; in Firewatch the last layer lies on top.
    const layers = ((s.rotations ?? []) as Json[])
      .map((r) => layerOf(r, tz, emailOf))
      .filter((l): l is LayerSpec => !!l)
      .reverse();
    const values = { name: s.name, description: s.description ?? null, time_zone: tz, layers, project_id: projectId };
    const [r] = await ctx.tx
      .insert(oncallSchedules)
      .values({ organization_id: ctx.orgId, external_id: ext(s.id), feed_token: randomBytes(18).toString('base64url'), ...values })
      .onConflictDoUpdate({ target: [oncallSchedules.organization_id, oncallSchedules.external_id], set: { ...values, updated_at: sql`now()` } })
      .returning({ id: oncallSchedules.id, inserted });
    ids.set(s.id, r!.id);
    note('schedules', `${s.name} (${layers.length} layers, ${tz})`, r!.inserted);
    for (const o of (await og.get(`/v2/schedules/${encodeURIComponent(s.id)}/overrides`)).data as Json[]) {
      const email = emailOf.get(o.user?.id) ?? o.user?.username;
      if (!email) {
        report.skipped.push(`override ${o.alias} on ${s.name}: not a user`);
        continue;
      }
      const set = { email, start_at: new Date(o.startDate), end_at: new Date(o.endDate) };
      const [ov] = await ctx.tx
        .insert(oncallOverrides)
        .values({ organization_id: ctx.orgId, schedule_id: r!.id, external_id: ext(`${s.id}:${o.alias}`), ...set })
        .onConflictDoUpdate({ target: [oncallOverrides.organization_id, oncallOverrides.external_id], set: { ...set, updated_at: sql`now()` } })
        .returning({ inserted });
      note('overrides', `${s.name}: ${email} ${o.startDate} – ${o.endDate}`, ov!.inserted);
    }
  }
  return ids;
}
