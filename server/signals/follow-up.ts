import { createHash, randomBytes } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { defineJob, enqueueJobs, jobRegistered, type JobRun } from '../core/jobs/define.js';
import type { RequestContext } from '../core/context.js';
import { users } from '../core/db/tables.js';
import { cases } from '../cases/tables.js';
import { addEvent } from '../timeline/events.js';
import { startRun } from '../workflows/engine.js';
import { workflows } from '../workflows/tables.js';
import { entities, entitySubscriptions, signalEngagementRequests, signalEngagements, type signals } from './tables.js';

/**
 * What follows a case opened from a signal, in the transaction that opened it: the definition's
 * workflows start, the people its engagements name are asked to confirm, and the users subscribed to
 * its entities are told. E-mail goes out from a job after the commit (SIGNAL_MAIL_QUEUE).
 */
export const SIGNAL_MAIL_QUEUE = 'signals-mail';

type Signal = typeof signals.$inferSelect;
export interface FoundEntity {
  entity_id: number;
  entity_type_id: number;
  type_name: string;
  value: string;
}
const mailPayload = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('engagement'), request_id: z.number().int() }),
  z.object({ kind: z.literal('subscribers'), case_id: z.number().int(), entity_ids: z.array(z.number().int()) }),
]);
type MailJob = z.infer<typeof mailPayload> & { orgId: number; orgSlug: string };
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const hashEngagementToken = (token: string) => createHash('sha256').update(`engage:${token}`).digest('hex');

/** A case just opened from a signal, with what its follow-ups need. */
export interface OpenedCase {
  signal: Signal;
  caseId: number;
  instanceId: number;
  found: FoundEntity[];
}

const idsOf = (lists: number[][]) => [...new Set(lists.flat())];

/**
 * The follow-ups of a batch of cases opened from signals: the workflows, engagements, case names and
 * entity subscriptions they need are read once for the batch, and the e-mail jobs queued in one insert.
 */
export async function afterCasesFromSignals(ctx: RequestContext, opened: OpenedCase[]) {
  if (!opened.length) return;
  const workflowIds = idsOf(opened.map((o) => o.signal.workflow_ids));
  const bound = workflowIds.length
    ? await ctx.tx
        .select()
        .from(workflows)
        .where(and(eq(workflows.organization_id, ctx.orgId), inArray(workflows.id, workflowIds), eq(workflows.enabled, true)))
    : [];
  const withWorkflows = opened.filter((o) => o.signal.workflow_ids.length);
  const names = new Map(
    bound.length && withWorkflows.length
      ? (
          await ctx.tx
            .select({ id: cases.id, name: cases.name })
            .from(cases)
            .where(
              and(
                eq(cases.organization_id, ctx.orgId),
                inArray(
                  cases.id,
                  withWorkflows.map((o) => o.caseId),
                ),
              ),
            )
        ).map((c) => [c.id, c.name])
      : [],
  );
  const engagementIds = idsOf(opened.filter((o) => o.found.length).map((o) => o.signal.engagement_ids));
  const engagements = engagementIds.length
    ? await ctx.tx
        .select()
        .from(signalEngagements)
        .where(and(eq(signalEngagements.organization_id, ctx.orgId), inArray(signalEngagements.id, engagementIds)))
    : [];
  const entityIds = idsOf(opened.map((o) => o.found.map((f) => f.entity_id)));
  const subscribed = new Set(
    entityIds.length
      ? (
          await ctx.tx
            .selectDistinct({ entity_id: entitySubscriptions.entity_id })
            .from(entitySubscriptions)
            .where(and(eq(entitySubscriptions.organization_id, ctx.orgId), inArray(entitySubscriptions.entity_id, entityIds)))
        ).map((r) => r.entity_id)
      : [],
  );
  const mail: z.infer<typeof mailPayload>[] = [];
  for (const { signal, caseId, instanceId, found } of opened) {
    for (const w of bound.filter((w) => signal.workflow_ids.includes(w.id))) {
      // As Dispatch does: a parameter whose value names an entity type takes the value found for it.
      const parameters = Object.fromEntries(
        w.parameters.flatMap((p) => {
          const hit = found.find((e) => e.type_name.toLowerCase() === p.value.toLowerCase());
          return hit ? [[p.key, hit.value]] : [];
        }),
      );
      await startRun(
        ctx,
        w,
        { case_id: caseId, signal_id: signal.id },
        { trigger: 'signal', run_reason: `Case ${names.get(caseId) ?? caseId} opened by signal '${signal.name}'`, parameters },
      );
    }
    for (const engagement of engagements.filter((e) => signal.engagement_ids.includes(e.id))) {
      for (const e of found.filter((f) => f.entity_type_id === engagement.entity_type_id && EMAIL.test(f.value))) {
        const [request] = await ctx.tx
          .insert(signalEngagementRequests)
          // The real token is made when the mail is sent (the job), so it is never stored in clear.
          .values({
            organization_id: ctx.orgId,
            engagement_id: engagement.id,
            case_id: caseId,
            entity_id: e.entity_id,
            signal_instance_id: instanceId,
            email: e.value,
            token_hash: `unsent:${randomBytes(16).toString('hex')}`,
          })
          .onConflictDoNothing()
          .returning({ id: signalEngagementRequests.id });
        if (!request) continue;
        await addEvent(ctx, {
          case_id: caseId,
          type: 'Other',
          source: 'Signal',
          description: `Asked ${e.value} to confirm (${engagement.name})`,
          details: { engagement_id: engagement.id, entity_id: e.entity_id },
        });
        mail.push({ kind: 'engagement', request_id: request.id });
      }
    }
    if (found.some((f) => subscribed.has(f.entity_id))) mail.push({ kind: 'subscribers', case_id: caseId, entity_ids: found.map((f) => f.entity_id) });
  }
  // Without the app's queue (a unit test calling processBatch alone), nothing is mailed.
  if (mail.length && jobRegistered(ctx.system, signalMailJob)) await enqueueJobs(ctx, signalMailJob, mail);
}

/** The links in an engagement e-mail: a page that asks to confirm with a button (a mail scanner's GET changes nothing). */
export const engagementLink = (publicUrl: string, orgSlug: string, token: string, answer: 'approve' | 'deny') =>
  `${publicUrl.replace(/\/$/, '')}/api/v1/${orgSlug}/signals/engagements/respond?token=${token}&answer=${answer}`;

export const signalMailJob = defineJob({
  name: SIGNAL_MAIL_QUEUE,
  payload: mailPayload,
  run: (data, { app, org, tenant }) => sendSignalMail(app, { ...data, ...org }, tenant),
});

async function sendSignalMail(app: FastifyInstance, job: MailJob, tenant: JobRun['tenant']) {
  {
    if (job.kind === 'engagement') {
      const token = randomBytes(24).toString('base64url');
      const mail = await tenant(async (ctx) => {
        const [row] = await ctx.tx
          .select({
            id: signalEngagementRequests.id,
            email: signalEngagementRequests.email,
            status: signalEngagementRequests.status,
            message: signalEngagements.message,
            name: signalEngagements.name,
            case_name: cases.name,
            case_title: cases.title,
          })
          .from(signalEngagementRequests)
          .innerJoin(
            signalEngagements,
            and(
              eq(signalEngagements.organization_id, signalEngagementRequests.organization_id),
              eq(signalEngagements.id, signalEngagementRequests.engagement_id),
            ),
          )
          .innerJoin(cases, and(eq(cases.organization_id, signalEngagementRequests.organization_id), eq(cases.id, signalEngagementRequests.case_id)))
          .where(and(eq(signalEngagementRequests.organization_id, ctx.orgId), eq(signalEngagementRequests.id, job.request_id)));
        if (!row || row.status !== 'pending') return null;
        await ctx.tx
          .update(signalEngagementRequests)
          .set({ token_hash: hashEngagementToken(token), sent_at: new Date(), updated_at: new Date() })
          .where(eq(signalEngagementRequests.id, row.id));
        return row;
      });
      if (!mail) return;
      const link = (a: 'approve' | 'deny') => engagementLink(app.config.PUBLIC_URL, job.orgSlug, token, a);
      await app.mailer({
        to: mail.email,
        subject: `Please confirm: ${mail.case_title}`,
        text: `${mail.message ?? `An alert names you: ${mail.case_title} (case ${mail.case_name}). Was this you, or expected?`}\n\nYes, this was me / expected:\n${link('approve')}\n\nNo, I do not recognize this:\n${link('deny')}\n`,
      });
      return;
    }
    const mail = await tenant(async (ctx) => {
      const [kase] = await ctx.tx
        .select({ name: cases.name, title: cases.title })
        .from(cases)
        .where(and(eq(cases.organization_id, ctx.orgId), eq(cases.id, job.case_id)));
      const subs = await ctx.tx
        .selectDistinct({ user_id: entitySubscriptions.user_id, value: entities.value })
        .from(entitySubscriptions)
        .innerJoin(entities, and(eq(entities.organization_id, entitySubscriptions.organization_id), eq(entities.id, entitySubscriptions.entity_id)))
        .where(and(eq(entitySubscriptions.organization_id, ctx.orgId), inArray(entitySubscriptions.entity_id, job.entity_ids)));
      if (!kase || !subs.length) return null;
      const emails = await ctx.asSystem((tx) =>
        tx
          .select({ id: users.id, email: users.email })
          .from(users)
          .where(
            inArray(
              users.id,
              subs.map((s) => s.user_id),
            ),
          ),
      );
      return { kase, to: emails.map((u) => ({ email: u.email, values: subs.filter((s) => s.user_id === u.id).map((s) => s.value) })) };
    });
    if (!mail) return;
    for (const u of mail.to) {
      await app.mailer({
        to: u.email,
        subject: `${u.values.join(', ')} seen in case ${mail.kase.name}`,
        text: `${u.values.join(', ')} turned up in a new case: ${mail.kase.title} (${mail.kase.name}).\n${app.config.PUBLIC_URL.replace(/\/$/, '')}/cases/${mail.kase.name}\n`,
      });
    }
  }
}
