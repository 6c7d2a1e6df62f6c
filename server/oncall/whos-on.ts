import { and, eq, gt, inArray, lt } from 'drizzle-orm';
import type { RequestContext } from '../core/context.js';
import { notFound } from '../core/errors.js';
import { teams } from '../people/tables.js';
import { finalShifts, onCallAt, type Shift } from './schedule-math.js';
import { oncallEscalationPolicies, oncallOverrides, oncallSchedules, oncallTeamMembers, type StepTarget } from './tables.js';

const DAY = 86_400_000;

export async function loadSchedule(ctx: RequestContext, id: number) {
  const [schedule] = await ctx.tx
    .select()
    .from(oncallSchedules)
    .where(and(eq(oncallSchedules.organization_id, ctx.orgId), eq(oncallSchedules.id, id)));
  if (!schedule) throw notFound('Schedule', id);
  return schedule;
}

async function overridesOf(ctx: RequestContext, scheduleIds: number[], from: Date, to: Date) {
  if (!scheduleIds.length) return [];
  return ctx.tx
    .select({ schedule_id: oncallOverrides.schedule_id, start: oncallOverrides.start_at, end: oncallOverrides.end_at, email: oncallOverrides.email })
    .from(oncallOverrides)
    .where(
      and(
        eq(oncallOverrides.organization_id, ctx.orgId),
        inArray(oncallOverrides.schedule_id, scheduleIds),
        gt(oncallOverrides.end_at, from),
        lt(oncallOverrides.start_at, to),
      ),
    )
    .orderBy(oncallOverrides.created_at, oncallOverrides.id);
}

/** The final shifts of a schedule over [from, to). */
export async function scheduleShifts(ctx: RequestContext, schedule: typeof oncallSchedules.$inferSelect, from: Date, to: Date): Promise<Shift[]> {
  return finalShifts(schedule, await overridesOf(ctx, [schedule.id], from, to), from, to);
}

/** Who is on call on a schedule at `at`, with their shift's bounds. */
export async function scheduleOnCall(ctx: RequestContext, schedule: typeof oncallSchedules.$inferSelect, at: Date) {
  // An override is at most as long as the window onCallAt looks at; wider ones are clipped to it.
  const overrides = await overridesOf(ctx, [schedule.id], new Date(at.getTime() - 400 * DAY), new Date(at.getTime() + 400 * DAY));
  return onCallAt(schedule, overrides, at);
}

/** The people a step's targets name at `at`: a schedule's on-call, a person, a team's address, or all of a team. */
export async function resolveTargets(ctx: RequestContext, targets: StepTarget[], at: Date): Promise<string[]> {
  const out = new Set<string>();
  const scheduleIds = targets.filter((t) => t.type === 'schedule' && t.id).map((t) => t.id!);
  if (scheduleIds.length) {
    const schedules = await ctx.tx
      .select()
      .from(oncallSchedules)
      .where(and(eq(oncallSchedules.organization_id, ctx.orgId), inArray(oncallSchedules.id, scheduleIds)));
    for (const s of schedules) {
      const who = await scheduleOnCall(ctx, s, at);
      if (who) out.add(who.email);
    }
  }
  for (const t of targets) if (t.type === 'person' && t.email) out.add(t.email.toLowerCase());
  const teamIds = (type: StepTarget['type']) => targets.filter((t) => t.type === type && t.id).map((t) => t.id!);
  if (teamIds('team').length) {
    const rows = await ctx.tx
      .select({ email: teams.email })
      .from(teams)
      .where(and(eq(teams.organization_id, ctx.orgId), inArray(teams.id, teamIds('team'))));
    for (const r of rows) if (r.email) out.add(r.email);
  }
  if (teamIds('team_all').length) {
    const rows = await ctx.tx
      .select({ email: oncallTeamMembers.email })
      .from(oncallTeamMembers)
      .where(and(eq(oncallTeamMembers.organization_id, ctx.orgId), inArray(oncallTeamMembers.team_id, teamIds('team_all'))));
    for (const r of rows) out.add(r.email);
  }
  return [...out];
}

/** A policy a Firewatch service points to: the service's `external_id` is the policy's id. */
export async function policyOfService(ctx: RequestContext, service: { external_id: string | null }) {
  const id = Number(service.external_id);
  if (!Number.isInteger(id) || id <= 0) return null;
  const [policy] = await ctx.tx
    .select()
    .from(oncallEscalationPolicies)
    .where(and(eq(oncallEscalationPolicies.organization_id, ctx.orgId), eq(oncallEscalationPolicies.id, id)));
  return policy ?? null;
}
