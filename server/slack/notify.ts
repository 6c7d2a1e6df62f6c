import { and, eq, inArray, isNotNull, ne, notExists, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { RequestContext } from '../core/context.js';
import { defineJob, enqueueJob, enqueueJobs, type JobDefinition, type JobRun } from '../core/jobs/define.js';
import { CHANNEL } from '../engine/fields.js';
import { caseTypes } from '../cases/settings-tables.js';
import { cases } from '../cases/tables.js';
import { incidents } from '../incidents/tables.js';
import type { ChannelNotification } from '../notifications/dispatch.js';
import { capabilityOf, pluginWith, type LoadedPlugin } from '../plugins/registry.js';
import { recordPluginEvent } from '../plugins/runtime.js';
import { signalInstances, signals } from '../signals/tables.js';
import type { Card } from './capabilities.js';
import { caseCard, signalGroupCard, signalsField, type CaseRow } from './card.js';
import { digestOf } from './channels.js';
import { SlackApiError } from './client.js';
import { cardOf, loadSubject } from './subjects.js';
import { slackNotices } from './tables.js';
import { SLACK_LANE, slackWork } from './work.js';
import './capabilities.js';

/**
 * Where a channel hears of cases and signals: a case, or a signal group without a case, has one
 * message in each channel its definitions name (conversation_target), with buttons (acknowledge,
 * escalate, view). It is posted once and edited in place as signals repeat and the case moves.
 * A notification (server/notifications) posts a card of its own each time it matches. A restricted
 * record is never posted to a channel: people there may not see it.
 */
const noticePayload = z.object({
  plugin_instance_id: z.number().int(),
  /** The conversation_target: "#name" or a channel id. */
  channel: z.string(),
  case_id: z.number().int().optional(),
  signal_group_id: z.number().int().optional(),
  incident_id: z.number().int().optional(),
  /** A notification's: its line (what changed, which filters matched). */
  notification: z.object({ id: z.number().int(), about: z.string() }).optional(),
});
type Notice = z.infer<typeof noticePayload>;

interface Kept {
  target: string | null;
  project_id: number;
  restricted: boolean;
  case_id: number | null;
  signal_group_id: number | null;
}

/** Queues the kept message of each case or signal group in the channel it names, through its project's chat app, once each. */
async function queueKept(ctx: RequestContext, rows: Kept[]) {
  const jobs = new Map<string, Notice>();
  const apps = new Map<number, number | null>();
  for (const r of rows) {
    const channel = r.target?.trim();
    if (!channel || !CHANNEL.test(channel) || r.restricted) continue;
    if (!apps.has(r.project_id)) apps.set(r.project_id, (await pluginWith(ctx, 'post_card', r.project_id))?.plugin.id ?? null);
    const app = apps.get(r.project_id);
    const subject = r.case_id ? { case_id: r.case_id } : { signal_group_id: r.signal_group_id! };
    if (app) jobs.set(`${app} ${channel} ${JSON.stringify(subject)}`, { plugin_instance_id: app, channel, ...subject });
  }
  await enqueueJobs(ctx, noticeJob, [...jobs.values()]);
}

/** New cases that no signal opened, whose case type names a channel (a signal's case is posted with its signals). */
export async function announceCases(ctx: RequestContext, caseIds: number[]) {
  const rows = await ctx.tx
    .select({ case_id: cases.id, project_id: cases.project_id, visibility: cases.visibility, target: caseTypes.conversation_target })
    .from(cases)
    .innerJoin(caseTypes, and(eq(caseTypes.organization_id, cases.organization_id), eq(caseTypes.id, cases.case_type_id)))
    .where(
      and(
        eq(cases.organization_id, ctx.orgId),
        inArray(cases.id, caseIds),
        notExists(
          ctx.tx
            .select({ one: sql`1` })
            .from(signalInstances)
            .where(and(eq(signalInstances.organization_id, cases.organization_id), eq(signalInstances.case_id, cases.id))),
        ),
      ),
    );
  await queueKept(
    ctx,
    rows.map((r) => ({ ...r, restricted: r.visibility === 'Restricted', signal_group_id: null })),
  );
}

/**
 * Signals just processed, each posted where its definition (else its case's type) names a channel:
 * one that opened or joined a case, as that case's message (a repeat adds to its count); one that
 * makes no case, as its group's. Snoozed ones, and acknowledges, resolves and changes, are not: a
 * snooze is someone asking for quiet, and the others move a case that is posted already.
 */
/** The channel a signal's messages go to: its definition's, else its case type's. */
const signalTarget = sql<string | null>`coalesce(nullif(trim(${signals.conversation_target}), ''), ${caseTypes.conversation_target})`;

export async function announceSignals(ctx: RequestContext, instanceIds: number[]) {
  const rows = await ctx.tx
    .select({
      case_id: signalInstances.case_id,
      signal_group_id: signalInstances.group_id,
      project_id: signals.project_id,
      visibility: cases.visibility,
      target: signalTarget,
    })
    .from(signalInstances)
    .innerJoin(signals, and(eq(signals.organization_id, signalInstances.organization_id), eq(signals.id, signalInstances.signal_id)))
    .leftJoin(cases, and(eq(cases.organization_id, signalInstances.organization_id), eq(cases.id, signalInstances.case_id)))
    .leftJoin(caseTypes, and(eq(caseTypes.organization_id, cases.organization_id), eq(caseTypes.id, cases.case_type_id)))
    .where(
      and(
        eq(signalInstances.organization_id, ctx.orgId),
        inArray(signalInstances.id, instanceIds),
        eq(signalInstances.event_action, 'trigger'),
        ne(signalInstances.filter_action, 'snooze'),
        eq(signals.enabled, true),
        or(isNotNull(signalInstances.case_id), isNotNull(signalInstances.group_id)),
        // Every processed batch comes here: most name no channel, and then no row leaves the database.
        sql`${signalTarget} <> ''`,
      ),
    );
  await queueKept(
    ctx,
    rows.map((r) => ({ ...r, restricted: r.visibility === 'Restricted' })),
  );
}

/** Cases changed (acknowledged, escalated, restricted): their messages in channels follow. */
export async function refreshNotices(ctx: RequestContext, caseIds: number[]) {
  const rows = await ctx.tx
    .select({ plugin_instance_id: slackNotices.plugin_instance_id, channel: slackNotices.target, case_id: slackNotices.case_id })
    .from(slackNotices)
    .where(and(eq(slackNotices.organization_id, ctx.orgId), inArray(slackNotices.case_id, caseIds), isNotNull(slackNotices.ts)));
  await enqueueJobs(
    ctx,
    noticeJob,
    rows.map((r) => ({ plugin_instance_id: r.plugin_instance_id, channel: r.channel, case_id: r.case_id! })),
  );
}

/** A notification to a channel (registered with onChannelNotification): posted as a card by the project's chat app, if it has one. */
export async function postNotification(ctx: RequestContext, n: ChannelNotification) {
  const table = n.subject === 'incident' ? incidents : cases;
  const [record] = await ctx.tx
    .select({ project_id: table.project_id })
    .from(table)
    .where(and(eq(table.organization_id, ctx.orgId), eq(table.id, n.record_id)));
  const found = record && (await pluginWith(ctx, 'post_card', n.notification.project_id ?? record.project_id));
  if (!found) return false;
  await enqueueJob(ctx, noticeJob, {
    plugin_instance_id: found.plugin.id,
    channel: n.channel,
    ...(n.subject === 'incident' ? { incident_id: n.record_id } : { case_id: n.record_id }),
    notification: { id: n.notification.id, about: n.about },
  });
  return true;
}

interface Shown {
  card: Card;
  restricted: boolean;
  /** The timeline the plugin event goes on. */
  on: { incident_id?: number; case_id?: number };
}

/** What the message shows now; null when its record is gone. */
async function render(ctx: RequestContext, data: Notice, publicUrl: string): Promise<Shown | null> {
  if (data.signal_group_id !== undefined) {
    const card = await signalGroupCard(ctx, data.signal_group_id, publicUrl);
    return card && { card, restricted: false, on: {} };
  }
  const kind = data.incident_id !== undefined ? 'incident' : 'case';
  const s = await loadSubject(ctx, kind, data.incident_id ?? data.case_id!, publicUrl);
  if (!s) return null;
  const on = kind === 'incident' ? { incident_id: s.id } : { case_id: s.id };
  // A message already in a channel, of a record restricted since, keeps only its name.
  if (s.restricted) return { card: { title: `${s.name}: restricted`, text: 'Only its participants see it, in Firewatch.', fields: [] }, restricted: true, on };
  // Acknowledging is offered while the case is new.
  const card = kind === 'incident' ? await cardOf(ctx, s, publicUrl) : await caseCard(ctx, s.row as CaseRow, publicUrl, { acknowledge: s.status === 'New' });
  if (data.notification) return { card: { ...card, text: [data.notification.about, card.text].filter(Boolean).join('\n') }, restricted: false, on };
  return { card: { ...card, fields: [...card.fields, ...(await signalsField(ctx, s.id))] }, restricted: false, on };
}

const ofNotice = (ctx: RequestContext, id: number) => and(eq(slackNotices.organization_id, ctx.orgId), eq(slackNotices.id, id));
/** How long a job posting a message holds it: a Slack call's timeout, with room. */
const HOLD_SECONDS = 60;

/** The subject's message in the channel, if there is one (posted, or being posted). */
const noticeOf = (job: JobRun, plugin: LoadedPlugin, data: Notice) =>
  job.tenant(async (ctx) => {
    const [row] = await ctx.tx
      .select()
      .from(slackNotices)
      .where(
        and(
          eq(slackNotices.organization_id, ctx.orgId),
          eq(slackNotices.plugin_instance_id, plugin.id),
          eq(slackNotices.target, data.channel),
          data.case_id !== undefined ? eq(slackNotices.case_id, data.case_id) : eq(slackNotices.signal_group_id, data.signal_group_id!),
        ),
      );
    return row ?? null;
  });

/**
 * Claims the posting of the subject's message: the row is inserted (or a lapsed claim taken over)
 * before the call, so two jobs of one case never post it twice. Null when it is posted already or
 * another job is posting it.
 */
const claim = (job: JobRun, plugin: LoadedPlugin, data: Notice) =>
  job.tenant(async (ctx) => {
    const until = sql`now() + make_interval(secs => ${HOLD_SECONDS})`;
    const [mine] = await ctx.tx
      .insert(slackNotices)
      .values({
        organization_id: ctx.orgId,
        plugin_instance_id: plugin.id,
        target: data.channel,
        case_id: data.case_id ?? null,
        signal_group_id: data.signal_group_id ?? null,
        posting_until: until,
      })
      .onConflictDoUpdate({
        target: [slackNotices.organization_id, slackNotices.plugin_instance_id, slackNotices.target, slackNotices.case_id, slackNotices.signal_group_id],
        set: { posting_until: until },
        setWhere: sql`${slackNotices.ts} is null and ${slackNotices.posting_until} < now()`,
      })
      .returning();
    return mine ?? null;
  });

const save = (job: JobRun, id: number, set: Partial<typeof slackNotices.$inferInsert>) =>
  job.tenant((ctx) =>
    ctx.tx
      .update(slackNotices)
      .set({ ...set, updated_at: sql`now()` })
      .where(ofNotice(ctx, id)),
  );
const forget = (job: JobRun, id: number) => job.tenant((ctx) => ctx.tx.delete(slackNotices).where(ofNotice(ctx, id)));

/** The job that claimed the message posts it; on failure it gives the claim back for its retry. */
async function post(job: JobRun, plugin: LoadedPlugin, data: Notice, shown: Shown, claimed: { id: number }) {
  let posted: { id: string; conversation: string };
  try {
    posted = await capabilityOf(plugin, 'post_card')!(plugin, { conversation: data.channel, card: shown.card });
  } catch (err) {
    await forget(job, claimed.id);
    throw err;
  }
  await save(job, claimed.id, { channel_id: posted.conversation, ts: posted.id, digest: digestOf(shown.card), posting_until: null });
  const name = shown.card.title;
  await job.tenant((ctx) => recordPluginEvent(ctx, plugin, { name: 'Notification sent', description: `${name} posted to ${data.channel}`, ...shown.on }));
}

/** Posts the subject's message once, then edits it when what it shows changed; a restricted record's is only edited down, never posted. */
async function keep(job: JobRun, plugin: LoadedPlugin, data: Notice, shown: Shown) {
  const claimed = shown.restricted ? null : await claim(job, plugin, data);
  if (claimed) return post(job, plugin, data, shown, claimed);
  const row = await noticeOf(job, plugin, data);
  if (!row) return;
  // Another job is posting it: this one's news is shown after (what it shows is read then).
  if (!row.ts) return job.tenant((ctx) => enqueueJob(ctx, noticeJob, data, { startAfterSeconds: 3 }));
  const digest = digestOf(shown.card);
  if (row.digest === digest) return;
  try {
    await capabilityOf(plugin, 'update_card')!(plugin, { conversation: row.channel_id!, id: row.ts, card: shown.card });
  } catch (err) {
    // Someone deleted it in Slack: the retry posts it anew.
    if (err instanceof SlackApiError && err.error === 'message_not_found') await forget(job, row.id);
    throw err;
  }
  await save(job, row.id, { digest });
}

/** A notification's card: a message of its own each time. */
async function notify(job: JobRun, plugin: LoadedPlugin, data: Notice, shown: Shown) {
  if (shown.restricted) return;
  await capabilityOf(plugin, 'post_card')!(plugin, { conversation: data.channel, card: shown.card });
  const { id, about } = data.notification!;
  await job.tenant((ctx) =>
    recordPluginEvent(ctx, plugin, { name: 'Notification sent', description: `${about} (to ${data.channel})`, ...shown.on, details: { notification_id: id } }),
  );
}

export const noticeJob: JobDefinition<typeof noticePayload> = defineJob({
  // Its name from when it posted new cases only: their jobs, queued before an upgrade, still run.
  name: 'slack.case_notify',
  lane: SLACK_LANE,
  payload: noticePayload,
  retries: () => ({ retryLimit: 3, retryDelaySeconds: 5 }),
  run: (data, job) =>
    slackWork(noticeJob, data, job, data.plugin_instance_id, async (plugin) => {
      const shown = await job.tenant((ctx) => render(ctx, data, job.app.config.PUBLIC_URL));
      if (!shown) return;
      await (data.notification ? notify : keep)(job, plugin, data, shown);
    }),
});
