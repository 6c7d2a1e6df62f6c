import { systemActor } from '../core/context.js';
import { and, eq, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import { organizations } from '../core/db/tables.js';
import { tasks } from './tables.js';
import { notFound } from '../core/errors.js';
import { runInTenant } from '../core/tenancy.js';
import type { RequestContext } from '../core/context.js';
import type { Mail, Mailer } from '../core/mail.js';
import { addEvent } from '../timeline/events.js';
import { linkedRows } from '../engine/visibility.js';
import { actorOf, callerEmail } from '../core/caller.js';
import { publish } from '../core/events.js';

type TaskRow = typeof tasks.$inferSelect;

const timelineOf = (t: Pick<TaskRow, 'incident_id' | 'case_id'>) => ({ incident_id: t.incident_id, case_id: t.case_id });

async function loadTask(ctx: RequestContext, id: number, lock = false) {
  const q = ctx.tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.organization_id, ctx.orgId), eq(tasks.id, id), linkedRows(ctx, tasks)));
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw notFound('Task', id);
  return row;
}

export async function createTask(ctx: RequestContext, data: Record<string, unknown>) {
  const me = await callerEmail(ctx);
  const status = (data.status as TaskRow['status'] | undefined) ?? 'Open';
  const [row] = await ctx.tx
    .insert(tasks)
    .values({
      ...(data as object),
      organization_id: ctx.orgId,
      creator_email: me,
      owner_email: (data.owner_email as string | undefined) ?? me,
      status,
      resolved_at: status === 'Resolved' ? sql`now()` : null,
    } as typeof tasks.$inferInsert)
    .returning();
  if (row!.incident_id || row!.case_id) {
    await addEvent(ctx, {
      ...timelineOf(row!),
      type: 'Task updated',
      description: `Task created by ${await actorOf(ctx)}: ${row!.description}`,
      owner: me,
      details: { task_id: row!.id },
    });
  }
  await publish(ctx, { type: 'task.created', id: row!.id });
  return row!.id;
}

export async function updateTask(ctx: RequestContext, id: number, data: Record<string, unknown>) {
  const current = await loadTask(ctx, id, true);
  const statusChanged = data.status !== undefined && data.status !== current.status;
  const set: Record<string, unknown> = { ...data, updated_at: sql`now()` };
  if (statusChanged) set.resolved_at = data.status === 'Resolved' ? sql`now()` : null;
  await ctx.tx
    .update(tasks)
    .set(set)
    .where(and(eq(tasks.organization_id, ctx.orgId), eq(tasks.id, id)));
  const target = {
    incident_id: (data.incident_id as number | undefined) ?? current.incident_id,
    case_id: (data.case_id as number | undefined) ?? current.case_id,
  };
  if (target.incident_id || target.case_id) {
    const what = statusChanged ? (data.status === 'Resolved' ? 'resolved' : 'reopened') : 'updated';
    await addEvent(ctx, {
      ...target,
      type: 'Task updated',
      description: `Task ${what} by ${await actorOf(ctx)}: ${(data.description as string | undefined) ?? current.description}`,
      owner: await callerEmail(ctx),
      details: { task_id: id, fields: Object.keys(data) },
    });
  }
  await publish(ctx, { type: 'task.updated', id });
  return true;
}

export async function deleteTask(ctx: RequestContext, id: number) {
  const [row] = await ctx.tx
    .delete(tasks)
    .where(and(eq(tasks.organization_id, ctx.orgId), eq(tasks.id, id), linkedRows(ctx, tasks)))
    .returning();
  if (!row) return false;
  if (row.incident_id || row.case_id)
    await addEvent(ctx, {
      ...timelineOf(row),
      type: 'Task updated',
      description: `Task deleted by ${await actorOf(ctx)}: ${row.description}`,
      owner: await callerEmail(ctx),
    });
  return true;
}

/** mark-resolved / mark-open: the spec's messages on success. */
export async function setTaskStatus(ctx: RequestContext, id: number, status: TaskRow['status']) {
  const current = await loadTask(ctx, id);
  if (current.status !== status) await updateTask(ctx, id, { status });
  return status === 'Resolved' ? 'Task resolved successfully.' : 'Task opened successfully.';
}

/**
 * Open tasks past resolve_by with reminders on, not reminded in the last day (for the reminder job).
 * Locked, skipping rows another sweep holds, so two sweeps at once never remind of the same task.
 */
export async function dueReminders(ctx: RequestContext, now = new Date()) {
  return ctx.tx
    .select()
    .from(tasks)
    .where(
      and(
        eq(tasks.organization_id, ctx.orgId),
        eq(tasks.status, 'Open'),
        eq(tasks.reminders, true),
        lte(tasks.resolve_by, now),
        or(isNull(tasks.last_reminder_at), lt(tasks.last_reminder_at, new Date(now.getTime() - 86400_000))),
      ),
    )
    .for('update', { skipLocked: true });
}

/**
 * Reminder e-mails for open tasks past resolve_by (reminders on), to the owner and assignees, at most
 * once a day per task. Returns the mails; the caller sends them after the transaction commits.
 */
export async function taskReminders(ctx: RequestContext, now = new Date()): Promise<Mail[]> {
  const due = await dueReminders(ctx, now);
  if (!due.length) return [];
  await ctx.tx
    .update(tasks)
    .set({ last_reminder_at: now })
    .where(
      and(
        eq(tasks.organization_id, ctx.orgId),
        inArray(
          tasks.id,
          due.map((t) => t.id),
        ),
      ),
    );
  return due.flatMap((t) =>
    [...new Set([t.owner_email, ...t.assignees].filter((e): e is string => !!e))].map((to) => ({
      to,
      subject: `Task overdue: ${t.description.slice(0, 80)}`,
      text: `This task was due ${t.resolve_by!.toISOString().replace('T', ' ').slice(0, 19)} UTC and is still open:\n\n${t.description}\n\nResolve it, or turn its reminders off.\n`,
    })),
  );
}

/** Sends the mails (after their transaction committed); returns how many went out. */
export async function sendReminderMails(mailer: Mailer, mails: Mail[], log?: FastifyBaseLogger) {
  const results = await Promise.allSettled(mails.map((m) => mailer(m)));
  results.forEach((r, i) => r.status === 'rejected' && log?.warn({ err: r.reason, to: mails[i]!.to }, 'task reminder not sent'));
  return results.filter((r) => r.status === 'fulfilled').length;
}

/** The scheduled sweep: due reminders of every organization, each in its own tenant transaction. */
export async function remindEveryOrganization(db: Db, config: Config, mailer: Mailer, log?: FastifyBaseLogger) {
  const orgs = await db.select({ id: organizations.id, slug: organizations.slug }).from(organizations).orderBy(organizations.id);
  let sent = 0;
  for (const org of orgs) {
    const mails = await runInTenant(db, config, systemActor({ orgId: org.id, orgSlug: org.slug }), (ctx) => taskReminders(ctx));
    sent += await sendReminderMails(mailer, mails, log);
  }
  return sent;
}

/** The full incident's `tasks` (incidents/read.ts addIncidentPart): every task of the incident `i`, oldest first. */
export const incidentTasksPart = () =>
  sql`(select coalesce(jsonb_agg(to_jsonb(x) order by x.created_at, x.id), '[]') from ${tasks} x where x.organization_id = i.organization_id and x.incident_id = i.id)`;
