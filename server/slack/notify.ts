import { and, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { RequestContext } from '../core/context.js';
import { defineJob, enqueueJobs, type JobDefinition } from '../core/jobs/define.js';
import { caseTypes } from '../cases/settings-tables.js';
import { cases } from '../cases/tables.js';
import { capabilityOf, pluginWith } from '../plugins/registry.js';
import { recordPluginEvent } from '../plugins/runtime.js';
import { signalInstances, signals } from '../signals/tables.js';
import { caseCard } from './card.js';
import { SLACK_LANE, slackWork } from './work.js';
import './capabilities.js';

/** A channel a conversation_target names ("#ops", or a channel id). */
const CHANNEL = /^(#[a-z0-9_-]{1,80}|[CG][A-Z0-9]{6,})$/;

/**
 * New cases whose signal definition or case type names a channel (`conversation_target`) are posted
 * there with buttons (acknowledge, escalate, view), by the chat app of their project. A restricted
 * case is not posted to a channel: people there may not see it.
 */
export async function announceCases(ctx: RequestContext, caseIds: number[]) {
  const rows = await ctx.tx
    .selectDistinctOn([cases.id], {
      id: cases.id,
      project_id: cases.project_id,
      visibility: cases.visibility,
      target: sql<string | null>`coalesce(${signals.conversation_target}, ${caseTypes.conversation_target})`,
    })
    .from(cases)
    .leftJoin(caseTypes, and(eq(caseTypes.organization_id, cases.organization_id), eq(caseTypes.id, cases.case_type_id)))
    .leftJoin(signalInstances, and(eq(signalInstances.organization_id, cases.organization_id), eq(signalInstances.case_id, cases.id)))
    .leftJoin(signals, and(eq(signals.organization_id, signalInstances.organization_id), eq(signals.id, signalInstances.signal_id)))
    .where(and(eq(cases.organization_id, ctx.orgId), inArray(cases.id, caseIds)));
  const jobs: z.input<typeof notifyPayload>[] = [];
  for (const row of rows) {
    const target = row.target?.trim();
    if (!target || !CHANNEL.test(target) || row.visibility === 'Restricted') continue;
    const found = await pluginWith(ctx, 'post_card', row.project_id);
    if (found) jobs.push({ case_id: row.id, channel: target, plugin_instance_id: found.plugin.id });
  }
  await enqueueJobs(ctx, caseNotifyJob, jobs);
}

const notifyPayload = z.object({ case_id: z.number().int(), channel: z.string(), plugin_instance_id: z.number().int() });

export const caseNotifyJob: JobDefinition<typeof notifyPayload> = defineJob({
  name: 'slack.case_notify',
  lane: SLACK_LANE,
  payload: notifyPayload,
  retries: () => ({ retryLimit: 3, retryDelaySeconds: 5 }),
  run: (data, job) =>
    slackWork(caseNotifyJob, data, job, data.plugin_instance_id, async (plugin) => {
      const [c] = await job.tenant((ctx) =>
        ctx.tx
          .select()
          .from(cases)
          .where(and(eq(cases.organization_id, ctx.orgId), eq(cases.id, data.case_id))),
      );
      if (!c) return;
      const card = await job.tenant((ctx) => caseCard(ctx, c, job.app.config.PUBLIC_URL, { acknowledge: true }));
      await capabilityOf(plugin, 'post_card')!(plugin, { conversation: data.channel, card });
      await job.tenant((ctx) =>
        recordPluginEvent(ctx, plugin, { name: 'Notification sent', description: `${c.name} posted to ${data.channel}`, case_id: c.id }),
      );
    }),
});
