import { z } from 'zod';
import { defineJob, enqueueJobs } from '../core/jobs/define.js';
import { systemActor } from '../core/context.js';
import { and, eq, gte, inArray, or, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { notifications, searchFilters } from './tables.js';
import {
  compiledCondition,
  isCompiled,
  matchRow,
  prepareFilters,
  readRecords,
  subjects,
  type FilterSubject,
  type PreparedFilters,
  type SavedFilter,
} from './matching.js';
import { organizations } from '../core/db/tables.js';
import { runInTenant } from '../core/tenancy.js';
import type { RequestContext } from '../core/context.js';
import { subscribe, type DomainEvents } from '../core/events.js';
import type { Mailer } from '../core/mail.js';
import { pluginInstances } from '../plugins/tables.js';
import { recordPluginEvent } from '../plugins/runtime.js';
import { capabilityOf, loadPlugin, slugsWith } from '../plugins/registry.js';
import { CHANNEL } from '../engine/fields.js';

export const NOTIFICATION_QUEUE = 'notifications';
export const DAILY_REPORT_JOB = 'notification-daily-report';
/** Daily reports go out at 07:00 UTC. */
export const DAILY_REPORT_CRON = '0 7 * * *';

const sendPayload = z.object({
  notificationId: z.number().int(),
  subject: z.enum(['incident', 'case']),
  recordId: z.number().int(),
  event: z.string(),
  filterIds: z.array(z.number().int()),
});
type Job = z.infer<typeof sendPayload> & { orgId: number; orgSlug: string };

/** The organization's enabled filters of one subject that some enabled notification follows. */
async function loadFollowedFilters(ctx: RequestContext, subject: FilterSubject) {
  const notes = await ctx.tx
    .select({ id: notifications.id, project_id: notifications.project_id, filters: notifications.filters })
    .from(notifications)
    .where(and(eq(notifications.organization_id, ctx.orgId), eq(notifications.enabled, true), sql`jsonb_array_length(${notifications.filters}) > 0`));
  if (!notes.length) return { notes, filters: [] as (SavedFilter & { project_id: number | null })[] };
  const followed = [...new Set(notes.flatMap((n) => n.filters))];
  // Expressions are read only for filters not compiled yet (or changed since): the others' compiled
  // forms are in the cache, keyed by updated_at.
  const filters: (SavedFilter & { project_id: number | null })[] = await ctx.tx
    .select({ id: searchFilters.id, subject: searchFilters.subject, updated_at: searchFilters.updated_at, project_id: searchFilters.project_id })
    .from(searchFilters)
    .where(
      and(
        eq(searchFilters.organization_id, ctx.orgId),
        eq(searchFilters.enabled, true),
        eq(searchFilters.subject, subject),
        inArray(searchFilters.id, followed),
      ),
    );
  const stale = filters.filter((f) => !isCompiled(ctx, f));
  if (stale.length) {
    const expressions = await ctx.tx
      .select({ id: searchFilters.id, expression: searchFilters.expression })
      .from(searchFilters)
      .where(
        and(
          eq(searchFilters.organization_id, ctx.orgId),
          inArray(
            searchFilters.id,
            stale.map((f) => f.id),
          ),
        ),
      );
    const byId = new Map(expressions.map((e) => [e.id, e.expression]));
    for (const f of stale) f.expression = byId.get(f.id);
  }
  return { notes, filters };
}

type Loaded = Awaited<ReturnType<typeof loadFollowedFilters>>;
/** The followed filters with what each event needs ready: the prepared predicates, each filter's project. */
type Followed = Loaded & { prepared: PreparedFilters; projectOf: Map<number, number | null> };
/**
 * The followed filters per organization and subject, reused while neither table changed: a
 * fingerprint (row count and latest updated_at of each) is one cheap statement, where reading a
 * thousand filter rows for every event is not. Every write through the API moves updated_at or the count.
 */
const followedByDb = new WeakMap<object, Map<string, { fingerprint: string; followed: Followed }>>();

const fingerprint = (ctx: RequestContext) => {
  const stamp = (table: typeof notifications | typeof searchFilters) =>
    sql`(select count(*) || ':' || coalesce(floor(extract(epoch from max(${table.updated_at})) * 1000000)::bigint, 0) from ${table} where ${table.organization_id} = ${ctx.orgId})`;
  return sql<string>`${stamp(notifications)} || '/' || ${stamp(searchFilters)}`;
};

function followedCacheOf(ctx: RequestContext) {
  let cache = followedByDb.get(ctx.system);
  if (!cache) followedByDb.set(ctx.system, (cache = new Map()));
  return cache;
}

const fresh = (ctx: RequestContext, followed: Followed) => followed.filters.every((f) => isCompiled(ctx, f));

async function followedFilters(ctx: RequestContext, subject: FilterSubject): Promise<Followed> {
  const [row] = await ctx.tx.select({ fingerprint: fingerprint(ctx) }).from(sql`(select 1) one`);
  const cache = followedCacheOf(ctx);
  const key = `${ctx.orgId}:${subject}`;
  const cached = cache.get(key);
  if (cached && row && cached.fingerprint === row.fingerprint && fresh(ctx, cached.followed)) return cached.followed;
  const loaded = await loadFollowedFilters(ctx, subject);
  const followed: Followed = {
    ...loaded,
    prepared: prepareFilters(ctx, subject, loaded.filters),
    projectOf: new Map(loaded.filters.map((f) => [f.id, f.project_id])),
  };
  if (row) cache.set(key, { fingerprint: row.fingerprint, followed });
  return followed;
}

/**
 * The match itself, in memory: the notifications whose followed filters the record's row satisfies,
 * each once with the filters that matched (a filter or notification of another project never does).
 */
export function notificationsMatching(followed: Followed, row: Record<string, unknown>) {
  const matched = matchRow(followed.prepared, row);
  if (!matched.size) return [];
  const projectId = row.project_id as number;
  const out: { notificationId: number; filterIds: number[] }[] = [];
  for (const note of followed.notes) {
    if (note.project_id && note.project_id !== projectId) continue;
    const filterIds = note.filters.filter((id) => {
      if (!matched.has(id)) return false;
      const p = followed.projectOf.get(id);
      return !p || p === projectId;
    });
    if (filterIds.length) out.push({ notificationId: note.id, filterIds });
  }
  return out;
}

/**
 * The enabled notifications' followed filters, ready to match, and the records' rows (in no order), in
 * one statement when the followed filters are cached (the rows and the fingerprint are read together);
 * when the fingerprint moved, the filters are read again and the rows once more. Null when no
 * notification follows a filter of the subject.
 */
export async function followedAndRows(ctx: RequestContext, subject: FilterSubject, recordIds: number[]) {
  const cached = followedCacheOf(ctx).get(`${ctx.orgId}:${subject}`);
  if (cached && fresh(ctx, cached.followed)) {
    const rows = await readRecords(ctx, cached.followed.prepared, recordIds, { fingerprint: fingerprint(ctx) });
    if (!rows.length) return null;
    if (rows[0]!.fingerprint === cached.fingerprint) return { followed: cached.followed, rows };
  }
  const followed = await followedFilters(ctx, subject);
  if (!followed.filters.length) return null;
  return { followed, rows: await readRecords(ctx, followed.prepared, recordIds) };
}

export async function followedAndRow(ctx: RequestContext, subject: FilterSubject, recordId: number) {
  const found = await followedAndRows(ctx, subject, [recordId]);
  return found?.rows[0] ? { followed: found.followed, row: found.rows[0] } : null;
}

/** The enabled notifications one incident or case matches, each once with the filters that matched. */
export async function matchingNotifications(ctx: RequestContext, subject: FilterSubject, recordId: number) {
  const found = await followedAndRow(ctx, subject, recordId);
  return found ? notificationsMatching(found.followed, found.row) : [];
}

/**
 * Incidents or cases created or changed: every matching notification gets one send job per record,
 * all queued in one insert in the event's transaction (so they exist exactly when the change committed).
 */
subscribe(async (ctx: RequestContext, events: DomainEvents) => {
  const [kind, action] = events.type.split('.') as [string, string];
  if ((kind !== 'incident' && kind !== 'case') || (action !== 'created' && action !== 'updated')) return;
  const subject: FilterSubject = kind;
  const found = await followedAndRows(ctx, subject, events.ids);
  if (!found) return;
  const rowOf = new Map(found.rows.map((r) => [r.id as number, r]));
  const jobs = events.ids.flatMap((recordId) => {
    const row = rowOf.get(recordId);
    return row ? notificationsMatching(found.followed, row).map((m) => ({ subject, recordId, event: events.type, ...m })) : [];
  });
  await enqueueJobs(ctx, notificationJob, jobs);
});

/** One notification's message about one change, retried when its channel fails. */
export const notificationJob = defineJob({
  name: NOTIFICATION_QUEUE,
  payload: sendPayload,
  concurrency: 2,
  retries: () => ({ retryLimit: 5, retryDelaySeconds: 10 }),
  run: (data, job) => sendNotification(job.app, job.app.mailer, { ...data, ...job.org }),
});

export const dailyReportJob = defineJob({
  name: DAILY_REPORT_JOB,
  payload: z.object({}),
  cron: () => DAILY_REPORT_CRON,
  run: async (_data, { app }) => {
    const sent = await sendDailyReports(app, app.mailer);
    if (sent) app.log.info({ sent }, 'notification daily reports sent');
  },
});

type Tenant = <T>(fn: (ctx: RequestContext) => Promise<T>) => Promise<T>;
const tenantOf =
  (app: FastifyInstance, orgId: number, orgSlug: string): Tenant =>
  (fn) =>
    runInTenant(app.db, app.config, systemActor({ orgId, orgSlug }), fn);

/** The conversation plugin a notification posts through: the enabled one titled as its target, else its project's, else the organization's first. */
async function conversationPlugin(ctx: RequestContext, note: typeof notifications.$inferSelect) {
  const candidates = await ctx.tx
    .select({ id: pluginInstances.id, title: pluginInstances.title, project_id: pluginInstances.project_id })
    .from(pluginInstances)
    .where(
      and(eq(pluginInstances.organization_id, ctx.orgId), eq(pluginInstances.enabled, true), inArray(pluginInstances.plugin_slug, slugsWith('send_message'))),
    )
    .orderBy(pluginInstances.id);
  const chosen =
    candidates.find((p) => p.title === note.target) ?? candidates.find((p) => note.project_id && p.project_id === note.project_id) ?? candidates[0];
  return chosen ? loadPlugin(ctx, chosen.id) : null;
}

/** A notification about one record to a channel its target names, with the line saying what happened. */
export interface ChannelNotification {
  notification: typeof notifications.$inferSelect;
  channel: string;
  subject: FilterSubject;
  record_id: number;
  about: string;
}
/** A chat app that posts such a notification itself (a card with buttons, from its own queue) takes it: true. */
type ChannelPoster = (ctx: RequestContext, n: ChannelNotification) => Promise<boolean>;
const channelPosters = new Set<ChannelPoster>();
/** Registered by a chat app's plugin when the app starts (the same function once per process). */
export const onChannelNotification = (poster: ChannelPoster) => void channelPosters.add(poster);

/** Offers the notification to the chat apps, in a transaction of its own: whether one took it. */
async function postedByChatApp(tenant: Tenant, n: Omit<ChannelNotification, 'channel'>) {
  const channel = n.notification.target.trim();
  if (n.notification.type !== 'conversation' || !CHANNEL.test(channel)) return false;
  for (const post of channelPosters) if (await tenant((ctx) => post(ctx, { ...n, channel }))) return true;
  return false;
}

/** Sends a message (no transaction open meanwhile); a failure throws so the queue retries it. */
async function deliver(
  app: FastifyInstance,
  mailer: Mailer,
  tenant: Tenant,
  note: typeof notifications.$inferSelect,
  subject: string,
  text: string,
  context: { incident_id?: number; case_id?: number },
) {
  if (note.type === 'email') return mailer({ to: note.target, subject, text });
  const plugin = await tenant((ctx) => conversationPlugin(ctx, note));
  if (!plugin) throw new Error(`Notification '${note.name}': no enabled conversation plugin instance to post through.`);
  const channel = note.target.trim();
  await capabilityOf(plugin, 'send_message')!(plugin, { text: `${CHANNEL.test(channel) ? channel + ': ' : ''}${text}` });
  await tenant((ctx) =>
    recordPluginEvent(ctx, plugin, { name: 'Notification sent', description: `${note.name}: ${subject}`, ...context, details: { notification_id: note.id } }),
  );
}

async function sendNotification(app: FastifyInstance, mailer: Mailer, job: Job) {
  const tenant = tenantOf(app, job.orgId, job.orgSlug);
  const loaded = await tenant(async (ctx) => {
    const [note] = await ctx.tx
      .select()
      .from(notifications)
      .where(and(eq(notifications.organization_id, ctx.orgId), eq(notifications.id, job.notificationId)));
    if (!note || !note.enabled) return null;
    const table = subjects[job.subject].table;
    const [record] = await ctx.tx
      .select({ id: table.id, name: table.name, title: table.title, status: table.status, visibility: table.visibility })
      .from(table)
      .where(and(eq(table.organization_id, ctx.orgId), eq(table.id, job.recordId)));
    if (!record) return null;
    const names = await ctx.tx
      .select({ name: searchFilters.name })
      .from(searchFilters)
      .where(and(eq(searchFilters.organization_id, ctx.orgId), inArray(searchFilters.id, job.filterIds)));
    return { note, record, filterNames: names.map((n) => n.name).sort() };
  });
  if (!loaded) return;
  const { note, record, filterNames } = loaded;
  // People in a channel may not see a restricted record.
  if (note.type === 'conversation' && record.visibility === 'Restricted') return;
  const noun = job.subject === 'incident' ? 'Incident' : 'Case';
  const what = job.event.endsWith('.created') ? 'created' : 'changed';
  const url = `${app.config.PUBLIC_URL ?? ''}/${job.orgSlug}/${job.subject === 'incident' ? 'incidents' : 'cases'}/${record.id}`;
  const subject = `${noun} ${record.name} ${what}: ${record.title}`;
  const text = `${noun} ${record.name} "${record.title}" was ${what} (status ${record.status}).\nMatched: ${filterNames.join(', ')}\n${url}`;
  const about = `${noun} ${record.name} was ${what}. Matched: ${filterNames.join(', ')}`;
  if (await postedByChatApp(tenant, { notification: note, subject: job.subject, record_id: record.id, about })) return;
  await deliver(app, mailer, tenant, note, subject, text, job.subject === 'incident' ? { incident_id: record.id } : { case_id: record.id });
}

/**
 * The daily report: each enabled notification with filters gets, once, the incidents and cases its
 * filters matched among those created or changed in the last 24 hours (nothing when none did).
 * Returns how many reports were sent.
 */
export async function sendDailyReports(app: FastifyInstance, mailer: Mailer, since = new Date(Date.now() - 24 * 3600 * 1000)) {
  const orgs = await app.db.select({ id: organizations.id, slug: organizations.slug }).from(organizations).orderBy(organizations.id);
  let sent = 0;
  for (const org of orgs) {
    const tenant = tenantOf(app, org.id, org.slug);
    const reports = await tenant(async (ctx) => {
      const out: { note: typeof notifications.$inferSelect; lines: string[] }[] = [];
      const notes = await ctx.tx
        .select()
        .from(notifications)
        .where(and(eq(notifications.organization_id, ctx.orgId), eq(notifications.enabled, true), sql`jsonb_array_length(${notifications.filters}) > 0`));
      if (!notes.length) return out;
      const matched = new Map<number, { subject: FilterSubject; rows: { id: number; name: string; title: string; status: string; project_id: number }[] }>();
      for (const subject of ['incident', 'case'] as const) {
        const { filters } = await followedFilters(ctx, subject);
        const table = subjects[subject].table;
        for (const f of filters) {
          const condition = compiledCondition(ctx, f);
          if (!condition) continue;
          const rows = await ctx.tx
            .select({ id: table.id, name: table.name, title: table.title, status: table.status, project_id: table.project_id })
            .from(table)
            .where(
              and(
                eq(table.organization_id, ctx.orgId),
                or(gte(table.created_at, since), gte(table.updated_at, since)),
                condition,
                f.project_id ? eq(table.project_id, f.project_id) : undefined,
              ),
            )
            .orderBy(table.id)
            .limit(500);
          matched.set(f.id, { subject, rows });
        }
      }
      for (const note of notes) {
        const seen = new Map<string, string>();
        for (const id of note.filters) {
          const m = matched.get(id);
          for (const r of m?.rows ?? []) {
            if (note.project_id && r.project_id !== note.project_id) continue;
            seen.set(`${m!.subject}:${r.id}`, `${m!.subject === 'incident' ? 'Incident' : 'Case'} ${r.name} (${r.status}): ${r.title}`);
          }
        }
        if (seen.size) out.push({ note, lines: [...seen.values()] });
      }
      return out;
    });
    for (const { note, lines } of reports) {
      const subject = `${note.name}: ${lines.length} matched in the last 24 hours`;
      try {
        await deliver(app, mailer, tenant, note, subject, `${subject}\n\n${lines.join('\n')}`, {});
        sent++;
      } catch (err) {
        app.log.warn({ err, notification: note.id }, 'daily report not sent');
      }
    }
  }
  return sent;
}
