import { createHash } from 'node:crypto';
import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { RequestContext } from '../core/context.js';
import { defineJob, enqueueJob, NotReady, type JobDefinition, type JobRun } from '../core/jobs/define.js';
import { addEvent } from '../timeline/events.js';
import { type IncidentRow } from '../incidents/scope.js';
import { incidentResources } from '../incidents/tables.js';
import { caseTypes } from '../cases/settings-tables.js';
import { capabilityOf, pluginWith, type LoadedPlugin } from '../plugins/registry.js';
import type { Card } from './capabilities.js';
import type { CaseRow } from './card.js';
import { channelName } from './blocks.js';
import { cardOf, documentsOf, fillChannelName, loadSubject, peopleOf, reportsOf, topicOf, type Subject, type SubjectKind } from './subjects.js';
import { installationOf, SLACK_LANE, slackWork } from './work.js';
import { slackChannels, slackInstallations } from './tables.js';
import './capabilities.js';

type Channel = typeof slackChannels.$inferSelect;

export { fillChannelName };

const call = <C extends Parameters<typeof capabilityOf>[1]>(plugin: LoadedPlugin, capability: C) => {
  const fn = capabilityOf(plugin, capability);
  if (!fn) throw new Error(`${plugin.title} cannot ${capability}.`);
  return fn;
};

/**
 * When an incident's conversation opens (incidents' provision job), its channel is queued in the
 * same transaction if the project (or the organization) has a chat app that creates them.
 */
export async function openChannel(ctx: RequestContext, incident: IncidentRow, conversationId: number) {
  const found = await pluginWith(ctx, 'create_conversation', incident.project_id);
  if (found) await enqueueJob(ctx, channelJob, { incident_id: incident.id, conversation_id: conversationId, plugin_instance_id: found.plugin.id });
}

/** A case's conversation opened: a channel of its own if its case type asks for one (dedicated_channel). */
export async function openCaseChannel(ctx: RequestContext, c: CaseRow, conversationId: number) {
  if (!c.case_type_id) return;
  const [type] = await ctx.tx
    .select({ dedicated: caseTypes.dedicated_channel })
    .from(caseTypes)
    .where(and(eq(caseTypes.organization_id, ctx.orgId), eq(caseTypes.id, c.case_type_id)));
  if (!type?.dedicated) return;
  const found = await pluginWith(ctx, 'create_conversation', c.project_id);
  if (found) await enqueueJob(ctx, channelJob, { case_id: c.id, conversation_id: conversationId, plugin_instance_id: found.plugin.id });
}

const target = { incident_id: z.number().int().optional(), case_id: z.number().int().optional() };
const channelJobPayload = z.object({ ...target, conversation_id: z.number().int(), plugin_instance_id: z.number().int() });
const syncJobPayload = z.object({ ...target, plugin_instance_id: z.number().int() });

const subjectOf = (data: { incident_id?: number; case_id?: number }): [SubjectKind, number] =>
  data.case_id !== undefined ? ['case', data.case_id] : ['incident', data.incident_id!];
/** The timeline the channel's news goes on. */
const on = (s: Subject) => (s.kind === 'incident' ? { incident_id: s.id } : { case_id: s.id });

const loadState = (ctx: RequestContext, kind: SubjectKind, id: number, publicUrl: string) =>
  Promise.all([
    loadSubject(ctx, kind, id, publicUrl),
    ctx.tx
      .select()
      .from(slackChannels)
      .where(and(eq(slackChannels.organization_id, ctx.orgId), eq(kind === 'incident' ? slackChannels.incident_id : slackChannels.case_id, id)))
      .then((r) => r[0]),
  ]);

/** The channel's name for the record, from the instance's template (incidents and cases have their own). */
const wantedName = (plugin: LoadedPlugin, s: Subject) =>
  channelName(
    fillChannelName(
      String(
        (s.kind === 'incident' ? plugin.config.channel_name_template : plugin.config.case_channel_name_template) ||
          `${s.kind === 'incident' ? 'inc' : 'case'}-{number}-{title}`,
      ),
      s,
    ),
  );

/** Creates the channel and records it as the conversation's, with a resource and a timeline entry. */
async function createChannel(job: JobRun, plugin: LoadedPlugin, s: Subject, conversationId: number): Promise<Channel> {
  const topic = topicOf(s);
  const made = await call(plugin, 'create_conversation')(plugin, { name: wantedName(plugin, s), topic, private: s.restricted });
  return job.tenant(async (ctx) => {
    const installation = await installationOf(ctx, plugin.id);
    const [row] = await ctx.tx
      .insert(slackChannels)
      .values({
        organization_id: ctx.orgId,
        installation_id: installation!.id,
        conversation_id: conversationId,
        ...on(s),
        channel_id: made.id,
        name: made.name,
        topic,
        is_private: s.restricted,
      })
      .returning();
    if (s.kind === 'incident') {
      const weblink = `https://app.slack.com/client/${installation!.team_id}/${made.id}`;
      await ctx.tx
        .insert(incidentResources)
        .values({ organization_id: ctx.orgId, incident_id: s.id, resource_type: 'Slack channel', name: `#${made.name}`, weblink });
    }
    await addEvent(ctx, {
      ...on(s),
      type: 'Resource updated',
      description: `Slack channel #${made.name} created${s.restricted ? ` (private: the ${s.kind} is restricted)` : ''}`,
    });
    return row!;
  });
}

const saveChannel = (job: JobRun, id: number, set: Partial<Channel> | Record<string, unknown>) =>
  job.tenant((ctx) =>
    ctx.tx
      .update(slackChannels)
      .set({ ...set, updated_at: sql`now()` })
      .where(and(eq(slackChannels.organization_id, ctx.orgId), eq(slackChannels.id, id))),
  );

/** Invites these people (not invited yet); each one without a Slack account is reported once. */
async function invite(job: JobRun, plugin: LoadedPlugin, channel: Channel, s: Subject, todo: string[]) {
  const { invited, missing } = await call(plugin, 'invite')(plugin, { conversation: channel.channel_id, emails: todo });
  await job.tenant(async (ctx) => {
    await ctx.tx
      .update(slackChannels)
      .set({ invited: [...channel.invited, ...invited], missing: [...channel.missing, ...missing], updated_at: sql`now()` })
      .where(and(eq(slackChannels.organization_id, ctx.orgId), eq(slackChannels.id, channel.id)));
    for (const email of missing)
      await addEvent(ctx, {
        ...on(s),
        type: 'Participant updated',
        description: `${email} has no Slack account in this workspace (users_not_found), so was not added to #${channel.name}. They can join it once their Slack profile has this e-mail address.`,
      });
  });
}

/** What a card shows, in a few bytes: unchanged, it is not sent again. */
export const digestOf = (card: Card) => createHash('sha256').update(JSON.stringify(card)).digest('base64url');

/** The pinned card: posted once, then updated in place when what it shows changed. */
async function keepCard(job: JobRun, plugin: LoadedPlugin, channel: Channel, card: Card) {
  const digest = digestOf(card);
  if (!channel.card_ts) {
    const { id } = await call(plugin, 'post_card')(plugin, { conversation: channel.channel_id, card, pin: true });
    await saveChannel(job, channel.id, { card_ts: id, card_digest: digest });
  } else if (channel.card_digest !== digest) {
    await call(plugin, 'update_card')(plugin, { conversation: channel.channel_id, id: channel.card_ts, card });
    await saveChannel(job, channel.id, { card_digest: digest });
  }
}

/** The record's page and conference, once. */
async function bookmarkPage(job: JobRun, plugin: LoadedPlugin, channel: Channel, s: Subject) {
  const links = [{ title: `${s.name} in Firewatch`, url: s.page }];
  if (s.conference_url) links.push({ title: 'Conference', url: s.conference_url });
  await call(plugin, 'add_bookmarks')(plugin, { conversation: channel.channel_id, links });
  await saveChannel(job, channel.id, { bookmarked: true });
}

/** Each of the record's documents, as it is attached. */
async function bookmarkDocuments(job: JobRun, plugin: LoadedPlugin, channel: Channel, s: Subject) {
  const docs = await job.tenant((ctx) => documentsOf(ctx, s, job.app.config.PUBLIC_URL));
  for (const doc of docs) {
    // Claimed before the call, so two syncs of one channel never bookmark a document twice.
    if (!(await claim(job, channel.id, 'documents_bookmarked', doc.url))) continue;
    await release(job, channel.id, 'documents_bookmarked', doc.url, () =>
      call(plugin, 'add_bookmarks')(plugin, { conversation: channel.channel_id, links: [doc] }),
    );
  }
}

/** How long a job may hold a channel's reports or the rest (renewed at each report): a Slack call's timeout and a wait, with room. */
const HOLD_SECONDS = 60;

/**
 * One job at a time works on each of two parts of a channel: its reports (`reports_posting_by`), and
 * the rest of what it shows (`following_by`: name, topic, people, card, bookmarks). Two jobs run at
 * once (the channel job and a sync, or two syncs), and both would see "no card yet" and post two, or
 * two reports race to Slack and the later arrives first. A job that finds a part held leaves it to the
 * holder, which looks again once it let go (`behind`), so what changed meanwhile is done by one or the
 * other. The holder is the job (a retry of it is the same job), so a job that died holding a part
 * takes it back when it runs again; a hold that lapsed is anyone's.
 */
type Hold = 'reports' | 'following';
const holdColumns = {
  reports: { by: 'reports_posting_by', until: 'reports_posting_until' },
  following: { by: 'following_by', until: 'following_until' },
} as const;

const ofChannel = (ctx: RequestContext, id: number) => and(eq(slackChannels.organization_id, ctx.orgId), eq(slackChannels.id, id));
const heldBy = (job: JobRun, hold: Hold) => eq(slackChannels[holdColumns[hold].by], job.id);
const holdUntil = () => sql`now() + make_interval(secs => ${HOLD_SECONDS})`;

/** Takes the part if no other job holds it (or its hold lapsed): whether this job has it. */
const takeHold = (job: JobRun, id: number, hold: Hold) =>
  job.tenant(async (ctx) => {
    const { by, until } = holdColumns[hold];
    const rows = await ctx.tx
      .update(slackChannels)
      .set({ [by]: job.id, [until]: holdUntil() })
      .where(and(ofChannel(ctx, id), or(isNull(slackChannels[by]), heldBy(job, hold), lt(slackChannels[until], sql`now()`))))
      .returning({ id: slackChannels.id });
    return rows.length > 0;
  });

const letGo = (job: JobRun, id: number, hold: Hold) =>
  job.tenant((ctx) =>
    ctx.tx
      .update(slackChannels)
      .set({ [holdColumns[hold].by]: null, [holdColumns[hold].until]: null })
      .where(and(ofChannel(ctx, id), heldBy(job, hold))),
  );

/** Rounds a holder goes on looking again: more means the channel cannot catch up (a later sync tries again). */
const MAX_ROUNDS = 5;
/**
 * Does what `behind` says is left of a part of the channel, holding it; again once it let go, in case
 * a job that found it held left something. `behind` reads the database afresh each time.
 */
async function whileBehind(job: JobRun, id: number, hold: Hold, behind: () => Promise<(() => Promise<unknown>)[]>) {
  for (let round = 0, steps = await behind(); steps.length && round < MAX_ROUNDS; round++, steps = await behind()) {
    if (!(await takeHold(job, id, hold))) return;
    try {
      // Read again now it is held: what the job that let go last did is done.
      for (const step of await behind()) await step();
    } finally {
      await letGo(job, id, hold);
    }
  }
}

const channelById = (job: JobRun, id: number) => job.tenant(async (ctx) => (await ctx.tx.select().from(slackChannels).where(ofChannel(ctx, id)))[0]);

/** A name that got a suffix at creation (-2: taken) still is the wanted one. */
const nameFollows = (channel: Channel, wanted: string) => channel.name === wanted || new RegExp(`^${wanted.slice(0, 76)}-\\d+$`).test(channel.name);

/** What the channel lags behind its record in (name, topic, people, card, the record's page): the steps to catch up. */
async function followingSteps(job: JobRun, plugin: LoadedPlugin, id: number, s0: Subject) {
  const publicUrl = job.app.config.PUBLIC_URL;
  const [s, channel] = await job.tenant((ctx) => loadState(ctx, s0.kind, s0.id, publicUrl));
  if (!s || !channel || channel.id !== id || channel.archived_at) return [];
  const [people, card] = await job.tenant((ctx) => Promise.all([peopleOf(ctx, s), cardOf(ctx, s, publicUrl)]));
  const steps: (() => Promise<unknown>)[] = [];
  if (!nameFollows(channel, wantedName(plugin, s)) || channel.topic !== topicOf(s)) steps.push(() => keepNameAndTopic(job, plugin, channel, s));
  const todo = people.filter((e) => !channel.invited.includes(e) && !channel.missing.includes(e));
  if (todo.length) steps.push(() => invite(job, plugin, channel, s, todo));
  if (!channel.card_ts || channel.card_digest !== digestOf(card)) steps.push(() => keepCard(job, plugin, channel, card));
  if (!channel.bookmarked) steps.push(() => bookmarkPage(job, plugin, channel, s));
  return steps;
}

/** The incident's reports, each posted once, in the order they were written. */
async function reportSteps(job: JobRun, plugin: LoadedPlugin, id: number, s: Subject) {
  const [all, channel] = await Promise.all([job.tenant((ctx) => reportsOf(ctx, s)), channelById(job, id)]);
  const todo = all.filter((r) => channel && !channel.reports_posted.includes(r.id));
  if (!channel || !todo.length) return [];
  return [
    async () => {
      for (const report of todo) {
        // Lost the hold (it lapsed and another job took it): that job posts the rest, in order.
        if (!(await claimReport(job, id, report.id))) return;
        await release(job, id, 'reports_posted', report.id, () => call(plugin, 'post_card')(plugin, { conversation: channel.channel_id, card: report.card }));
      }
    },
  ];
}

/** Marks a report posted before its call (never posted twice), while this job still holds the reports (renewing the hold). */
const claimReport = (job: JobRun, id: number, reportId: number) =>
  job.tenant(async (ctx) => {
    const rows = await ctx.tx
      .update(slackChannels)
      .set({ reports_posted: sql`array_append(${slackChannels.reports_posted}, ${reportId})`, reports_posting_until: holdUntil(), updated_at: sql`now()` })
      .where(and(ofChannel(ctx, id), heldBy(job, 'reports'), sql`not (${reportId} = any(${slackChannels.reports_posted}))`))
      .returning({ id: slackChannels.id });
    return rows.length > 0;
  });

type Claimed = 'documents_bookmarked' | 'reports_posted';
/** Adds `value` to the channel's list unless it is there: whether this caller got it. */
const claim = (job: JobRun, id: number, column: Claimed, value: string | number) =>
  job.tenant(async (ctx) => {
    const col = slackChannels[column];
    const rows = await ctx.tx
      .update(slackChannels)
      .set({ [column]: sql`array_append(${col}, ${value})`, updated_at: sql`now()` })
      .where(and(eq(slackChannels.organization_id, ctx.orgId), eq(slackChannels.id, id), sql`not (${value} = any(${col}))`))
      .returning({ id: slackChannels.id });
    return rows.length > 0;
  });
/** Runs a claimed call; if it fails, the claim is given back (`set`) for the retry. */
async function giveBackOnError(job: JobRun, id: number, set: Record<string, unknown>, fn: () => Promise<unknown>) {
  try {
    await fn();
  } catch (err) {
    await saveChannel(job, id, set);
    throw err;
  }
}
const release = (job: JobRun, id: number, column: Claimed, value: string | number, fn: () => Promise<unknown>) =>
  giveBackOnError(job, id, { [column]: sql`array_remove(${slackChannels[column]}, ${value})` }, fn);

/** Marks the channel archived before the call, if no other job did: whether this one archives it. */
const claimArchive = (job: JobRun, id: number) =>
  job.tenant(async (ctx) => {
    const rows = await ctx.tx
      .update(slackChannels)
      .set({ archived_at: sql`now()`, updated_at: sql`now()` })
      .where(and(ofChannel(ctx, id), isNull(slackChannels.archived_at)))
      .returning({ id: slackChannels.id });
    return rows.length > 0;
  });

/** The channel's name and topic follow the record's title and status. */
async function keepNameAndTopic(job: JobRun, plugin: LoadedPlugin, channel: Channel, s: Subject) {
  const wanted = wantedName(plugin, s);
  if (!nameFollows(channel, wanted)) {
    const { name } = await call(plugin, 'rename_conversation')(plugin, { conversation: channel.channel_id, name: wanted });
    await saveChannel(job, channel.id, { name });
    await job.tenant((ctx) => addEvent(ctx, { ...on(s), type: 'Resource updated', description: `Slack channel #${channel.name} renamed to #${name}` }));
  }
  const topic = topicOf(s);
  if (channel.topic !== topic) {
    await call(plugin, 'set_topic')(plugin, { conversation: channel.channel_id, topic });
    await saveChannel(job, channel.id, { topic });
  }
}

/** Everything a channel shows of its record, brought up to date; each step saved as it is done. */
async function follow(job: JobRun, plugin: LoadedPlugin, channel: Channel, s: Subject) {
  await whileBehind(job, channel.id, 'following', () => followingSteps(job, plugin, channel.id, s));
  await bookmarkDocuments(job, plugin, channel, s);
  if (s.kind === 'incident') await whileBehind(job, channel.id, 'reports', () => reportSteps(job, plugin, channel.id, s));
}

/**
 * The record's channel, step by step, each step saved as it is done: a retry (after a 429, an
 * error) goes on where the last attempt stopped and never creates a second channel.
 */
export const channelJob: JobDefinition<typeof channelJobPayload> = defineJob({
  name: 'slack.channel',
  lane: SLACK_LANE,
  payload: channelJobPayload,
  retries: () => ({ retryLimit: 3, retryDelaySeconds: 5 }),
  run: (data, job) =>
    slackWork(channelJob, data, job, data.plugin_instance_id, async (plugin) => {
      const [kind, id] = subjectOf(data);
      const [subject, existing] = await job.tenant((ctx) => loadState(ctx, kind, id, job.app.config.PUBLIC_URL));
      if (!subject) throw new NotReady();
      const channel = existing ?? (await createChannel(job, plugin, subject, data.conversation_id));
      await follow(job, plugin, channel, subject);
    }),
});

/** Keeps a channel following its record (name, topic, people, card, documents, reports); archives it once the record closes. */
export const syncJob: JobDefinition<typeof syncJobPayload> = defineJob({
  name: 'slack.sync',
  lane: SLACK_LANE,
  payload: syncJobPayload,
  retries: () => ({ retryLimit: 3, retryDelaySeconds: 5 }),
  run: (data, job) =>
    slackWork(syncJob, data, job, data.plugin_instance_id, async (plugin) => {
      const [kind, id] = subjectOf(data);
      const [subject, channel] = await job.tenant((ctx) => loadState(ctx, kind, id, job.app.config.PUBLIC_URL));
      if (!subject || !channel || channel.archived_at) return;
      await follow(job, plugin, channel, subject);
      if (subject.closed && plugin.config.archive_on_close !== false && (await claimArchive(job, channel.id))) {
        await giveBackOnError(job, channel.id, { archived_at: null }, () => call(plugin, 'archive_conversation')(plugin, { conversation: channel.channel_id }));
        await job.tenant((ctx) => addEvent(ctx, { ...on(subject), type: 'Resource updated', description: `Slack channel #${channel.name} archived` }));
      }
    }),
});

/** Queues a sync for each of these incidents or cases that has a channel (a change, a role, a report, a document). */
export async function syncChannels(ctx: RequestContext, kind: SubjectKind, ids: number[]) {
  if (!ids.length) return;
  const column = kind === 'incident' ? slackChannels.incident_id : slackChannels.case_id;
  const rows = await ctx.tx
    .select({ id: column, plugin_instance_id: slackInstallations.plugin_instance_id })
    .from(slackChannels)
    .innerJoin(
      slackInstallations,
      and(eq(slackInstallations.organization_id, slackChannels.organization_id), eq(slackInstallations.id, slackChannels.installation_id)),
    )
    .where(and(eq(slackChannels.organization_id, ctx.orgId), inArray(column, ids), isNull(slackChannels.archived_at)));
  for (const row of rows)
    await enqueueJob(ctx, syncJob, { ...(kind === 'incident' ? { incident_id: row.id! } : { case_id: row.id! }), plugin_instance_id: row.plugin_instance_id });
}
