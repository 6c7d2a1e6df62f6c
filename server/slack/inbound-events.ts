import { and, eq, isNotNull, sql } from 'drizzle-orm';
import { may, type RequestContext } from '../core/context.js';
import type { JobRun } from '../core/jobs/define.js';
import { addEvent } from '../timeline/events.js';
import { loadIncident } from '../incidents/scope.js';
import { ensureParticipant } from '../incidents/lifecycle.js';
import { loadCase } from '../cases/scope.js';
import { updateCase } from '../cases/service.js';
import { caseParticipants } from '../cases/tables.js';
import { conversationMessages, events } from '../timeline/tables.js';
import { incidentParticipants } from '../incidents/tables.js';
import { notifyChange } from '../live/changes.js';
import { capabilityOf, type LoadedPlugin } from '../plugins/registry.js';
import { slackPerson, type SlackPerson } from './identity.js';
import { uninstall } from './install.js';
import { slackChannels, slackMessages, type slackInstallations } from './tables.js';

type Installation = typeof slackInstallations.$inferSelect;
export interface SlackEvent {
  type: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  channel?: string;
  text?: string;
  ts?: string;
  reaction?: string;
  item?: { type: string; channel: string; ts: string };
}

/** A Slack ts ("1732800000.000200") is the message's time in seconds. */
export const tsDate = (ts: string) => new Date(Math.round(Number(ts) * 1000));

const channelRow = async (ctx: RequestContext, channelId: string) =>
  (
    await ctx.tx
      .select()
      .from(slackChannels)
      .where(and(eq(slackChannels.organization_id, ctx.orgId), eq(slackChannels.channel_id, channelId)))
  )[0];

const org = (job: JobRun) => job.org;

/** A message in an incident channel becomes a message of the incident's conversation, at its time. */
async function mirrorMessage(job: JobRun, plugin: LoadedPlugin, installation: Installation, e: SlackEvent) {
  if ((e.subtype && e.subtype !== 'thread_broadcast') || e.bot_id || !e.user || e.user === installation.bot_user_id || !e.channel || !e.ts) return;
  const channel = await job.tenant((ctx) => channelRow(ctx, e.channel!));
  if (!channel) return;
  const person = await slackPerson(job.app, org(job), plugin, e.user);
  await job.tenant(async (ctx) => {
    const [fresh] = await ctx.tx
      .insert(slackMessages)
      .values({ organization_id: ctx.orgId, channel_id: e.channel!, ts: e.ts! })
      .onConflictDoNothing()
      .returning({ id: slackMessages.id, conversation_message_id: slackMessages.conversation_message_id });
    // Already seen (a 📌 on it came first, or a redelivery): mirrored at most once.
    if (!fresh) return;
    const [message] = await ctx.tx
      .insert(conversationMessages)
      .values({
        organization_id: ctx.orgId,
        conversation_id: channel.conversation_id,
        author_email: person.email ?? `${person.name} (Slack)`,
        text: e.text ?? '',
        created_at: tsDate(e.ts!),
      })
      .returning({ id: conversationMessages.id });
    await ctx.tx.update(slackMessages).set({ conversation_message_id: message!.id }).where(eq(slackMessages.id, fresh.id));
    await notifyChange(ctx, { incident_id: channel.incident_id, case_id: channel.case_id });
  });
}

/** The configured reaction (📌 by default) adds the message to the timeline at its own time; removing it removes the entry. */
async function timelineReaction(job: JobRun, plugin: LoadedPlugin, e: SlackEvent, added: boolean) {
  const wanted = String(plugin.config.timeline_reaction || 'pushpin');
  if (e.reaction !== wanted || e.item?.type !== 'message' || !e.user) return;
  const item = e.item;
  const channel = await job.tenant((ctx) => channelRow(ctx, item.channel));
  if (!channel) return;
  if (!added) return unpin(job, item);
  const message = await capabilityOf(plugin, 'get_message')!(plugin, { conversation: item.channel, id: item.ts });
  const author = message?.user ? await slackPerson(job.app, org(job), plugin, message.user) : null;
  const pinner = await slackPerson(job.app, org(job), plugin, e.user);
  await job.tenant(async (ctx) => {
    await ctx.tx.insert(slackMessages).values({ organization_id: ctx.orgId, channel_id: item.channel, ts: item.ts }).onConflictDoNothing();
    const [row] = await ctx.tx
      .select()
      .from(slackMessages)
      .where(and(eq(slackMessages.organization_id, ctx.orgId), eq(slackMessages.channel_id, item.channel), eq(slackMessages.ts, item.ts)))
      .for('update');
    if (row!.event_id) return;
    const event = await addEvent(ctx, {
      incident_id: channel.incident_id,
      case_id: channel.case_id,
      type: 'Imported message',
      source: 'Conversation',
      description: message?.text || '(a Slack message)',
      owner: author?.email ?? author?.name ?? null,
      started_at: tsDate(item.ts),
      details: { slack_channel: item.channel, slack_ts: item.ts, added_by: pinner.email ?? pinner.name },
    });
    await ctx.tx
      .update(slackMessages)
      .set({ event_id: event.id, updated_at: sql`now()` })
      .where(eq(slackMessages.id, row!.id));
  });
}

async function unpin(job: JobRun, item: { channel: string; ts: string }) {
  await job.tenant(async (ctx) => {
    const [row] = await ctx.tx
      .select()
      .from(slackMessages)
      .where(
        and(
          eq(slackMessages.organization_id, ctx.orgId),
          eq(slackMessages.channel_id, item.channel),
          eq(slackMessages.ts, item.ts),
          isNotNull(slackMessages.event_id),
        ),
      );
    if (!row) return;
    const [gone] = await ctx.tx
      .delete(events)
      .where(and(eq(events.organization_id, ctx.orgId), eq(events.id, row.event_id!)))
      .returning({ incident_id: events.incident_id, case_id: events.case_id });
    await ctx.tx
      .update(slackMessages)
      .set({ event_id: null, updated_at: sql`now()` })
      .where(eq(slackMessages.id, row.id));
    if (gone) await notifyChange(ctx, gone);
  });
}

/**
 * Joining a case's channel makes one a participant of the case, as the incident's channel does: the
 * case's participants through its service (as its page sets them), unless the case is restricted and
 * they could not see it.
 */
async function joinedCase(ctx: RequestContext, channel: typeof slackChannels.$inferSelect, person: SlackPerson & { email: string }) {
  const c = await loadCase(ctx, channel.case_id!);
  const participants = (
    await ctx.tx
      .select({ email: caseParticipants.email })
      .from(caseParticipants)
      .where(and(eq(caseParticipants.organization_id, ctx.orgId), eq(caseParticipants.case_id, c.id)))
  ).map((r) => r.email);
  if ([c.assignee_email, c.reporter_email, ...participants].includes(person.email)) return;
  if (c.visibility === 'Restricted' && !(person.actor && may(person.actor.role, 'seeRestricted'))) {
    await addEvent(ctx, {
      case_id: c.id,
      type: 'Participant updated',
      description: `${person.email} joined the private Slack channel #${channel.name} but is not a participant of this restricted case; add them in Firewatch if they should be.`,
    });
    return;
  }
  await updateCase(ctx, c.id, { participants: [...participants, person.email] });
  await addEvent(ctx, {
    case_id: c.id,
    type: 'Participant updated',
    description: `${person.email} joined the case in Slack (#${channel.name})`,
    owner: person.email,
  });
}

/**
 * Joining an incident's channel makes one a participant. A restricted incident's channel is
 * private, and a member who could not see the incident is not made one by being added in Slack:
 * that is written on the timeline instead, for the commander to decide.
 */
async function memberJoined(job: JobRun, plugin: LoadedPlugin, installation: Installation, e: SlackEvent) {
  if (!e.user || !e.channel || e.user === installation.bot_user_id) return;
  const channel = await job.tenant((ctx) => channelRow(ctx, e.channel!));
  if (!channel?.incident_id && !channel?.case_id) return;
  const person = await slackPerson(job.app, org(job), plugin, e.user);
  if (!person.email) return;
  const email = person.email;
  if (channel.case_id) return job.tenant((ctx) => joinedCase(ctx, channel, { ...person, email }));
  await job.tenant(async (ctx) => {
    const incident = await loadIncident(ctx, channel.incident_id!);
    if (incident.visibility === 'Restricted' && !(person.actor && may(person.actor.role, 'seeRestricted'))) {
      const known = await ctx.tx
        .select({ id: incidentParticipants.id })
        .from(incidentParticipants)
        .where(
          and(
            eq(incidentParticipants.organization_id, ctx.orgId),
            eq(incidentParticipants.incident_id, incident.id),
            eq(incidentParticipants.email, person.email!),
          ),
        );
      if (!known.length)
        return addEvent(ctx, {
          incident_id: incident.id,
          type: 'Participant updated',
          description: `${person.email} joined the private Slack channel #${channel.name} but is not a participant of this restricted incident; add them in Firewatch if they should be.`,
        });
    }
    const { added } = await ensureParticipant(ctx, incident.id, person.email!, `Joined #${channel.name} in Slack`);
    if (added)
      await addEvent(ctx, {
        incident_id: incident.id,
        type: 'Participant updated',
        description: `${person.email} joined the incident in Slack (#${channel.name})`,
        owner: person.email,
      });
  });
}

/** Handles one Events API event (from HTTP or the socket), once. */
export async function handleEvent(job: JobRun, plugin: LoadedPlugin, installation: Installation, e: SlackEvent) {
  if (e.type === 'message') return mirrorMessage(job, plugin, installation, e);
  if (e.type === 'reaction_added' || e.type === 'reaction_removed') return timelineReaction(job, plugin, e, e.type === 'reaction_added');
  if (e.type === 'member_joined_channel') return memberJoined(job, plugin, installation, e);
  if (e.type === 'app_uninstalled' || e.type === 'tokens_revoked')
    return job.tenant((ctx) =>
      uninstall(ctx, installation, e.type === 'app_uninstalled' ? 'The app was removed from the workspace' : 'Slack revoked the tokens'),
    );
}
