import { z } from 'zod';
import type { Config } from '../core/config.js';
import { defineJob, enqueueJob } from '../core/jobs/define.js';
import type { RequestContext } from '../core/context.js';
import { ANONYMOUS_CLEANUP_JOB, removeExpiredAnonymous } from './anonymous-cleanup.js';
import { INDEX_JOB, indexSubmission, type IndexOptions } from './ingest.js';
import { LIKED_JOB, processLikedMessage } from './liked.js';

/** What the indexing job needs from the configuration: where YouTube links are fetched. */
export const indexOptions = (config: Config): IndexOptions => ({
  youtube: { baseUrl: config.YOUTUBE_BASE_URL, timeoutMs: Math.min(config.AI_TIMEOUT_MS, 15_000) },
});

/** An upload's chunks and search entries. One at a time per worker: the job is long, so a batch would only hold the next one back. */
export const indexJob = defineJob({
  name: INDEX_JOB,
  payload: z.object({ orgId: z.number().int(), submissionId: z.number().int() }),
  concurrency: 2,
  batchSize: 1,
  run: (d, { app }) => indexSubmission(app.db, d.orgId, d.submissionId, indexOptions(app.config)),
});

/** Queues a submission's indexing in `ctx`'s transaction: the job exists exactly when the submission committed. */
export const queueIndex = (ctx: RequestContext, submissionId: number) => enqueueJob(ctx, indexJob, { orgId: ctx.orgId, submissionId });

/** A liked answer becomes a curated Q&A (liked.ts). */
export const likedJob = defineJob({
  name: LIKED_JOB,
  payload: z.object({ orgId: z.number().int(), feedbackId: z.number().int() }),
  run: (d, { app }) => processLikedMessage(app.db, app.config, d.orgId, d.feedbackId, indexOptions(app.config)),
});

/** The sweep of expired anonymous sessions and what they created (ANONYMOUS_CLEANUP_CRON). */
export const anonymousCleanupJob = defineJob({
  name: ANONYMOUS_CLEANUP_JOB,
  payload: z.object({}),
  cron: (config) => config.ANONYMOUS_CLEANUP_CRON,
  run: async (_data, { app }) => {
    const counts = await removeExpiredAnonymous(app.db, new Date(), app.log);
    if (counts.sessions) app.log.info(counts, 'expired anonymous sessions removed');
  },
});

export const aiJobs = [indexJob, likedJob, anonymousCleanupJob];
