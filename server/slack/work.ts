import { and, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { RequestContext } from '../core/context.js';
import { enqueueJob, type JobDefinition, type JobRun, type Lane, type Payload } from '../core/jobs/define.js';
import { loadPlugin, type LoadedPlugin } from '../plugins/registry.js';
import { recordPluginEvent } from '../plugins/runtime.js';
import { hintFor, SlackApiError, SlackRateLimited } from './client.js';
import { slackInstallations } from './tables.js';

/** Slack's jobs share one queue: inbound deliveries, channels, cards. */
export const SLACK_LANE: Lane = { name: 'slack', concurrency: 2 };

export const installationOf = async (ctx: RequestContext, pluginInstanceId: number) =>
  (
    await ctx.tx
      .select()
      .from(slackInstallations)
      .where(and(eq(slackInstallations.organization_id, ctx.orgId), eq(slackInstallations.plugin_instance_id, pluginInstanceId)))
  )[0] ?? null;

/** Records how Slack answered on the installation: its health in Settings. */
async function recordHealth(ctx: RequestContext, pluginInstanceId: number, error: SlackApiError | null) {
  await ctx.tx
    .update(slackInstallations)
    .set(
      error
        ? { last_error: { method: error.method, error: error.error, hint: hintFor(error.error), at: new Date().toISOString() }, updated_at: sql`now()` }
        : { last_ok_at: sql`now()` },
    )
    .where(and(eq(slackInstallations.organization_id, ctx.orgId), eq(slackInstallations.plugin_instance_id, pluginInstanceId)));
}

/**
 * Runs a job's Slack work for one plugin instance. A 429 queues the same job again after its
 * Retry-After (this one ends: no worker sleeps); an `ok:false` is recorded on the installation's
 * health and fails the attempt (the queue retries it).
 */
export async function slackWork<S extends Payload>(
  def: JobDefinition<S>,
  data: z.infer<S>,
  job: JobRun,
  pluginInstanceId: number,
  work: (plugin: LoadedPlugin) => Promise<void>,
) {
  const plugin = await job.tenant((ctx) => loadPlugin(ctx, pluginInstanceId));
  if (!plugin?.enabled) return;
  try {
    await work(plugin);
    await job.tenant((ctx) => recordHealth(ctx, plugin.id, null));
  } catch (err) {
    if (err instanceof SlackRateLimited) {
      await job.tenant(async (ctx) => {
        await enqueueJob(ctx, def, data as z.input<S>, { startAfterSeconds: err.retryAfter });
        await recordPluginEvent(ctx, plugin, { name: 'Rate limited by Slack', description: `${err.method}: retried after ${err.retryAfter} s` });
      });
      return;
    }
    if (err instanceof SlackApiError) await job.tenant((ctx) => recordHealth(ctx, plugin.id, err));
    throw err;
  }
}
