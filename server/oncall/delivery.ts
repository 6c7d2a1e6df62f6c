import { createHash, randomBytes } from 'node:crypto';
import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { RequestContext } from '../core/context.js';
import { defineJob } from '../core/jobs/define.js';
import { pluginWith } from '../plugins/registry.js';
import type { Tenant } from './capabilities.js';
import { oncallFetch } from './outbound.js';
import { oncallChannels, oncallNotifications, oncallPages, oncallPageTokens, type ChannelKind } from './tables.js';

/** How long an acknowledge or resolve link works. */
export const LINK_HOURS = 24;

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

const respondBase = (ctx: RequestContext) => `${ctx.config.PUBLIC_URL.replace(/\/+$/, '')}/api/v1/${encodeURIComponent(ctx.orgSlug)}/oncall/respond/`;

/** Single-use acknowledge and resolve links, a pair per (page, person), made in one insert. */
export async function pageLinksMany(ctx: RequestContext, wanted: { pageId: number; email: string }[]) {
  const base = respondBase(ctx);
  const made = wanted.map(({ pageId, email }) => ({
    pageId,
    email,
    acknowledge: randomBytes(24).toString('base64url'),
    resolve: randomBytes(24).toString('base64url'),
  }));
  if (made.length)
    await ctx.tx.insert(oncallPageTokens).values(
      made.flatMap((m) =>
        (['acknowledge', 'resolve'] as const).map((action) => ({
          organization_id: ctx.orgId,
          page_id: m.pageId,
          email: m.email,
          action,
          token_hash: hashToken(m[action]),
          expires_at: sql`now() + make_interval(hours => ${LINK_HOURS})`,
        })),
      ),
    );
  return made.map((m) => ({ acknowledge: base + m.acknowledge, resolve: base + m.resolve }));
}

export interface Message {
  kind: ChannelKind;
  address: string;
  email: string;
  projectId: number | null;
  title: string;
  text: string;
  links: { acknowledge: string; resolve: string } | null;
  payload: Record<string, unknown>;
}

type Sender = 'send_push' | 'send_sms' | 'place_call' | 'send_direct_message';
/** The plugins a batch of messages goes out through, looked up once per capability and project. */
export type PluginMemo = Map<string, Promise<Awaited<ReturnType<typeof pluginWith<Sender>>>>>;

/** Sends one message on its channel; throws when the channel refused it (the job retries). */
export async function sendMessage(app: FastifyInstance, tenant: Tenant, m: Message, plugins: PluginMemo = new Map()) {
  const linkText = m.links ? `\n\nAcknowledge: ${m.links.acknowledge}\nResolve: ${m.links.resolve}` : '';
  const through = async <C extends Sender>(capability: C) => {
    const key = `${capability}:${m.projectId}`;
    if (!plugins.has(key))
      plugins.set(
        key,
        tenant((ctx) => pluginWith(ctx, capability, m.projectId)),
      );
    const found = (await plugins.get(key)) as Awaited<ReturnType<typeof pluginWith<C>>>;
    if (!found) throw new Error(`No enabled plugin can ${capability.replace(/_/g, ' ')} (Settings › Plugins).`);
    return found;
  };
  switch (m.kind) {
    case 'email':
      return app.mailer({ to: m.address, subject: `[Firewatch] ${m.title}`, text: `${m.text}${linkText}` });
    case 'webhook':
      await oncallFetch(app.config, m.address, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...m.payload, links: m.links }),
      });
      return;
    case 'ntfy': {
      const { plugin, call } = await through('send_push');
      const actions = m.links
        ? [
            { label: 'Acknowledge', url: m.links.acknowledge },
            { label: 'Resolve', url: m.links.resolve },
          ]
        : [];
      return call(plugin, { topic: m.address, title: m.title, text: m.text, priority: m.links ? 5 : 3, actions });
    }
    case 'sms': {
      const { plugin, call } = await through('send_sms');
      return call(plugin, { to: m.address, text: `${m.title}${m.links ? ` Ack: ${m.links.acknowledge}` : ''}` });
    }
    case 'voice': {
      const { plugin, call } = await through('place_call');
      return call(plugin, { to: m.address, text: `${m.title}. ${m.text}` });
    }
    case 'slack': {
      const { plugin, call } = await through('send_direct_message');
      return call(plugin, { user: m.address, text: `*${m.title}*\n${m.text}${linkText}` });
    }
  }
}

/** Notifications one delivery job sends (the escalation queues a job per this many). */
export const DELIVERY_BATCH = 50;
/** Messages of one job in flight at once. */
const SEND_PARALLEL = 16;

/**
 * A batch of notifications of pages' steps, sent once their channel's delay is over and their page is
 * still unacknowledged: one transaction reads them all and makes their links, the messages go out
 * SEND_PARALLEL at a time with no transaction open, and one statement records what was sent and what
 * failed. When some failed the job throws and its retry sends only those (the sent ones are skipped).
 * (`notification_id`: a job queued by a version that sent one per job.)
 */
export const deliverJob = defineJob({
  name: 'oncall-deliver',
  payload: z.object({
    notification_ids: z.array(z.number().int()).max(1000).optional(),
    notification_id: z.number().int().optional(),
  }),
  concurrency: 2,
  batchSize: 6,
  retries: () => ({ retryLimit: 5, retryDelaySeconds: 5 }),
  run: (data, job) => deliver(job.app, job.tenant, [...(data.notification_ids ?? []), ...(data.notification_id ? [data.notification_id] : [])]),
});

async function deliver(app: FastifyInstance, tenant: Tenant, ids: number[]) {
  if (!ids.length) return;
  const messages = await tenant(async (ctx) => {
    const rows = await ctx.tx
      .select({ n: oncallNotifications, page: oncallPages, channel: oncallChannels })
      .from(oncallNotifications)
      .innerJoin(oncallPages, and(eq(oncallPages.organization_id, oncallNotifications.organization_id), eq(oncallPages.id, oncallNotifications.page_id)))
      .leftJoin(
        oncallChannels,
        and(eq(oncallChannels.organization_id, oncallNotifications.organization_id), eq(oncallChannels.id, oncallNotifications.channel_id)),
      )
      .where(
        and(
          eq(oncallNotifications.organization_id, ctx.orgId),
          inArray(oncallNotifications.id, ids),
          notInArray(oncallNotifications.status, ['sent', 'skipped']),
        ),
      )
      .orderBy(oncallNotifications.id);
    // Acknowledged or resolved meanwhile, or the channel was turned off or removed: nothing to send.
    const skip = rows.filter((r) => r.page.state !== 'triggered' || (r.n.channel_id && !r.channel?.enabled));
    if (skip.length)
      await ctx.tx
        .update(oncallNotifications)
        .set({ status: 'skipped', updated_at: sql`now()` })
        .where(
          and(
            eq(oncallNotifications.organization_id, ctx.orgId),
            inArray(
              oncallNotifications.id,
              skip.map((r) => r.n.id),
            ),
          ),
        );
    const send = rows.filter((r) => !skip.includes(r));
    const links = await pageLinksMany(
      ctx,
      send.map((r) => ({ pageId: r.page.id, email: r.n.email })),
    );
    return send.map(({ n, page, channel }, i) => ({
      id: n.id,
      message: {
        kind: n.kind,
        address: channel?.address ?? n.email,
        email: n.email,
        projectId: page.project_id,
        title: `PAGE: ${page.title}`,
        text: `${page.details ?? page.title}\n(step ${n.step + 1}, sent to ${n.email})`,
        links: links[i]!,
        payload: {
          type: 'page.triggered',
          page: { id: page.id, key: page.key, title: page.title, state: page.state, step: n.step, incident_id: page.incident_id, case_id: page.case_id },
          email: n.email,
        },
      } satisfies Message,
    }));
  });
  if (!messages.length) return;
  const plugins: PluginMemo = new Map();
  const outcomes: { id: number; error: string | null }[] = [];
  let next = 0;
  const lane = async () => {
    while (next < messages.length) {
      const { id, message } = messages[next++]!;
      const error = await sendMessage(app, tenant, message, plugins).then(
        () => null,
        (err: Error) => String(err?.message ?? err).slice(0, 500),
      );
      outcomes.push({ id, error });
    }
  };
  await Promise.all(Array.from({ length: Math.min(SEND_PARALLEL, messages.length) }, lane));
  await tenant((ctx) =>
    ctx.tx.execute(sql`update oncall_notifications n set status = case when o.error is null then 'sent' else 'failed' end,
        sent_at = case when o.error is null then now() else n.sent_at end, error = o.error, updated_at = now()
      from jsonb_to_recordset(${JSON.stringify(outcomes)}::jsonb) as o(id int, error text)
      where n.organization_id = ${ctx.orgId} and n.id = o.id`),
  );
  const failed = outcomes.filter((o) => o.error);
  if (failed.length) throw new Error(`${failed.length} of ${outcomes.length} page notification(s) failed, e.g. ${failed[0]!.error}`);
}
