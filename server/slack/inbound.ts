import { lt, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { systemActor } from '../core/context.js';
import { defineJob, enqueueJob, type JobDefinition, type JobRun } from '../core/jobs/define.js';
import { runInTenant } from '../core/tenancy.js';
import type { LoadedPlugin } from '../plugins/registry.js';
import { callSlack, hintFor, respond, slackClient, SlackApiError, SlackRateLimited } from './client.js';
import { HELP } from './commands.js';
import { handleEvent, type SlackEvent } from './inbound-events.js';
import { handleCommand, handleInteraction } from './interactions.js';
import { slackDeliveries } from './tables.js';
import { installationOf, SLACK_LANE, slackWork } from './work.js';

export type InboundKind = 'event' | 'command' | 'interaction';
type Org = { orgId: number; orgSlug: string };

/** The declare dialog; views.open is called before the 3-second trigger expires, with no lookups first. */
export const declareView = (channelId: string, title = '') => ({
  type: 'modal',
  callback_id: 'firewatch_declare',
  private_metadata: JSON.stringify({ channel_id: channelId }),
  title: { type: 'plain_text', text: 'Declare an incident' },
  submit: { type: 'plain_text', text: 'Declare' },
  close: { type: 'plain_text', text: 'Cancel' },
  blocks: [
    {
      type: 'input',
      block_id: 'title',
      label: { type: 'plain_text', text: 'Title' },
      element: { type: 'plain_text_input', action_id: 'value', initial_value: title },
    },
    {
      type: 'input',
      block_id: 'description',
      optional: true,
      label: { type: 'plain_text', text: 'What is happening?' },
      element: { type: 'plain_text_input', action_id: 'value', multiline: true },
    },
    {
      type: 'input',
      block_id: 'visibility',
      label: { type: 'plain_text', text: 'Visibility' },
      element: {
        type: 'static_select',
        action_id: 'value',
        initial_option: { text: { type: 'plain_text', text: 'Open' }, value: 'Open' },
        options: ['Open', 'Restricted'].map((v) => ({ text: { type: 'plain_text', text: v }, value: v })),
      },
    },
  ],
});

/**
 * One delivery, from HTTP (signature checked) or the socket: stored by its key so that exactly one
 * process handles it (a retry, or the same event on another socket, finds it there and stops), and
 * its work queued in the same transaction. Only opening the declare dialog happens at once, since
 * Slack's trigger lasts 3 seconds.
 */
export async function acceptInbound(app: FastifyInstance, org: Org, plugin: LoadedPlugin, kind: InboundKind, body: Record<string, unknown>) {
  if (kind === 'command') {
    const text = String(body.text ?? '').trim();
    const sub = text.split(/\s+/)[0]?.toLowerCase() ?? '';
    if (sub === 'help') return { response_type: 'ephemeral', text: HELP };
    if (sub === '' || sub === 'declare') {
      const client = slackClient(app.config.SLACK_API_URL, String(plugin.config.bot_token));
      try {
        await callSlack(
          client,
          'views.open',
          {
            trigger_id: body.trigger_id,
            view: declareView(String(body.channel_id ?? ''), text.replace(/^declare\s*/i, '')),
          },
          // The trigger lasts 3 seconds: no waiting for a slot.
          { maxWaitMs: 0 },
        );
      } catch (err) {
        // Said to the person at once: the trigger is gone, so there is nothing to retry later.
        if (err instanceof SlackApiError) return { response_type: 'ephemeral', text: `The dialog did not open (${err.error}). ${hintFor(err.error)}` };
        if (err instanceof SlackRateLimited) return { response_type: 'ephemeral', text: `Slack is busy; run \`${text}\` again in ${err.retryAfter} s.` };
        throw err;
      }
      return null;
    }
  }
  const key =
    kind === 'event'
      ? `event:${String(body.event_id)}`
      : kind === 'command'
        ? `command:${String(body.trigger_id)}`
        : `interaction:${String(body.trigger_id ?? (body.view as { id?: string } | undefined)?.id ?? body.action_ts)}`;
  const fresh = await runInTenant(app.db, app.config, systemActor(org), async (ctx) => {
    const [row] = await ctx.tx.insert(slackDeliveries).values({ organization_id: ctx.orgId, key }).onConflictDoNothing().returning();
    if (row) await enqueueJob(ctx, inboundJob, { plugin_instance_id: plugin.id, kind, body });
    return !!row;
  });
  if (fresh) app.queue.notify(SLACK_LANE.name);
  return kind === 'command' ? { response_type: 'ephemeral', text: `On it: \`${String(body.text ?? '').trim()}\`` } : null;
}

async function runInbound(job: JobRun, plugin: LoadedPlugin, kind: InboundKind, body: Record<string, unknown>) {
  const installation = await job.tenant((ctx) => installationOf(ctx, plugin.id));
  if (!installation) return;
  if (kind === 'event') return handleEvent(job, plugin, installation, body.event as SlackEvent);
  const { text, responseUrl } = kind === 'command' ? await handleCommand(job, plugin, body) : await handleInteraction(job, plugin, body);
  if (text && responseUrl) await respond(job.app.config.SLACK_API_URL, responseUrl, { text });
}

const inboundJobPayload = z.object({
  plugin_instance_id: z.number().int(),
  kind: z.enum(['event', 'command', 'interaction']),
  body: z.record(z.string(), z.unknown()),
});

export const inboundJob: JobDefinition<typeof inboundJobPayload> = defineJob({
  name: 'slack.inbound',
  lane: SLACK_LANE,
  payload: inboundJobPayload,
  retries: () => ({ retryLimit: 3, retryDelaySeconds: 5 }),
  run: (data, job) => slackWork(inboundJob, data, job, data.plugin_instance_id, (plugin) => runInbound(job, plugin, data.kind, data.body)),
});

/** Slack retries a delivery within minutes: the keys of the last day are enough to recognize one. */
export const pruneDeliveriesJob = defineJob({
  name: 'slack.prune_deliveries',
  payload: z.object({}),
  cron: () => '17 * * * *',
  run: async (_data, { app }) => {
    await app.db.delete(slackDeliveries).where(lt(slackDeliveries.received_at, sql`now() - interval '1 day'`));
  },
});
