import type { RequestContext } from '../core/context.js';
import { enqueueJob, type JobDefinition, type Payload } from '../core/jobs/define.js';
import type { z } from 'zod';
import { RateLimited } from '../core/http/outbound.js';

/**
 * What the ticket, status page, commit and meeting plugins share about calling a service: their
 * fetches go through core's rateLimitedFetch (the outbound address policy, a 429 as RateLimited with
 * the service's own wait, capped), a refusal becomes ServiceRefused in words, and a job whose call
 * was rate limited is queued again after the wait.
 */
export class ServiceRefused extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** Reads a JSON answer, or throws ServiceRefused with `words(status, body)` when it is not a 2xx. */
export async function jsonOf<T>(res: Response, words: (status: number, body: unknown) => string): Promise<T> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* kept as text */
  }
  if (!res.ok) throw new ServiceRefused(words(res.status, body), res.status);
  return body as T;
}

/**
 * Runs a job's call to a service; when the service answered 429, queues the same job again after
 * its Retry-After (in a transaction of its own) and reports it, instead of failing the job.
 */
export async function honouringRateLimits<S extends Payload>(
  tenant: <T>(fn: (ctx: RequestContext) => Promise<T>) => Promise<T>,
  def: JobDefinition<S>,
  data: z.input<S>,
  fn: () => Promise<void>,
  report?: (ctx: RequestContext, err: RateLimited) => Promise<void>,
) {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof RateLimited)) throw err;
    await tenant(async (ctx) => {
      await enqueueJob(ctx, def, data, { startAfterSeconds: err.retryAfterSeconds });
      await report?.(ctx, err);
    });
  }
}
