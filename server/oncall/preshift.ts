import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { systemActor, type RequestContext } from '../core/context.js';
import { organizations } from '../core/db/tables.js';
import { invalid } from '../core/errors.js';
import { defineJob } from '../core/jobs/define.js';
import { runInTenant } from '../core/tenancy.js';
import { handoffPrefill } from './handoffs.js';
import { oncallPreshiftPreps, oncallSchedules } from './tables.js';
import { loadSchedule, scheduleOnCall, scheduleShifts } from './whos-on.js';

/**
 * The handoff dialog prefilled from a schedule's shift change: whoever is on call at `at` hands over to
 * whoever follows, for the shift that ends then; the incidents and tasks are the caller's (handoffPrefill).
 */
export async function scheduleHandoffPrefill(ctx: RequestContext, scheduleId: number, at: Date) {
  const schedule = await loadSchedule(ctx, scheduleId);
  const current = await scheduleOnCall(ctx, schedule, at);
  if (!current) throw invalid(`Nobody is on call on '${schedule.name}' at ${at.toISOString()}.`, ['querystring', 'at']);
  const next = await scheduleOnCall(ctx, schedule, current.end);
  const base = await handoffPrefill(ctx, undefined, at);
  return {
    ...base,
    handover_from: current.email,
    handover_to: next?.email ?? '',
    start_time: current.start.toISOString(),
    end_time: current.end.toISOString(),
    shift_type: schedule.name,
    project_id: schedule.project_id,
  };
}

/** Shifts starting within each schedule's lead time get a pre-shift prep (once per shift and person), mailed after commit. */
async function prepsDue(ctx: RequestContext, now: Date) {
  const schedules = await ctx.tx.select().from(oncallSchedules).where(eq(oncallSchedules.organization_id, ctx.orgId));
  const mails: { to: string; subject: string; text: string }[] = [];
  for (const s of schedules) {
    if (!s.prep_lead_minutes) continue;
    const until = new Date(now.getTime() + s.prep_lead_minutes * 60_000);
    const starting = (await scheduleShifts(ctx, s, now, until)).filter((x) => x.start > now);
    for (const shift of starting) {
      const before = await scheduleOnCall(ctx, s, new Date(shift.start.getTime() - 1));
      if (before?.email === shift.email) continue;
      const [prep] = await ctx.tx
        .insert(oncallPreshiftPreps)
        .values({
          organization_id: ctx.orgId,
          project_id: s.project_id,
          handover_to: shift.email,
          shift_type: s.name,
          schedule_id: s.id,
          shift_start: shift.start,
          sent: true,
          sent_at: sql`now()`,
        })
        .onConflictDoNothing()
        .returning({ id: oncallPreshiftPreps.id });
      if (prep)
        mails.push({
          to: shift.email,
          subject: `[Firewatch] Your on-call shift on ${s.name} starts at ${shift.start.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
          text: `You take over ${s.name} from ${before?.email ?? 'nobody'} at ${shift.start.toISOString()} until ${shift.end.toISOString()}.\nAccept the prep and read the last handoff in Firewatch (On-call › Preshift preps, #${prep.id}).`,
        });
    }
  }
  return mails;
}

export async function sendPreshiftPreps(app: FastifyInstance, now = new Date()) {
  const orgs = await app.db.select({ id: organizations.id, slug: organizations.slug }).from(organizations).orderBy(organizations.id);
  let sent = 0;
  for (const org of orgs) {
    const mails = await runInTenant(app.db, app.config, systemActor({ orgId: org.id, orgSlug: org.slug }), (ctx) => prepsDue(ctx, now));
    for (const m of mails) await app.mailer(m);
    sent += mails.length;
  }
  return sent;
}

export const preshiftJob = defineJob({
  name: 'oncall-preshift',
  payload: z.object({}),
  cron: () => '*/5 * * * *',
  run: async (_data, { app }) => {
    const sent = await sendPreshiftPreps(app);
    if (sent) app.log.info({ sent }, 'on-call pre-shift preps sent');
  },
});
