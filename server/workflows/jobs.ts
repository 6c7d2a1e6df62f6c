import type { Config } from '../core/config.js';
import type { RequestContext } from '../core/context.js';
import type { JobRun, Lane } from '../core/jobs/define.js';
import type { Mailer } from '../core/mail.js';

/**
 * Workflow runs share a lane of their own on the app's queue: a run waits (wait steps, polling, its
 * deadline) with jobs that start later, which must not hold up the incident jobs. A handler opens
 * short tenant transactions itself (`tenant`) so that no transaction stays open while it talks to an
 * engine, a chat webhook or an SMTP server.
 */
export const WORKFLOW_LANE: Lane = { name: 'workflow-runs', concurrency: 2 };

export interface WorkflowDeps {
  mailer: Mailer;
  config: Config;
  /** Runs `fn` in its own transaction of the job's organization. */
  tenant<T>(fn: (ctx: RequestContext) => Promise<T>): Promise<T>;
}

export const workflowDeps = (job: JobRun): WorkflowDeps => ({ mailer: job.app.mailer, config: job.app.config, tenant: job.tenant });
