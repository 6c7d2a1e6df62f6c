import { and, eq, inArray, sql } from 'drizzle-orm';
import { workflowInstances, workflows, type Artifact, type SwitchWith, type WorkflowStep } from './tables.js';
import { z } from 'zod';
import { defineJob, enqueueJob } from '../core/jobs/define.js';
import { WORKFLOW_LANE, workflowDeps, type WorkflowDeps } from './jobs.js';
import { httpError } from '../core/errors.js';
import type { RequestContext } from '../core/context.js';
import { subscribe } from '../core/events.js';
import { cases } from '../cases/tables.js';
import { incidents } from '../incidents/tables.js';
import { addEvent } from '../timeline/events.js';
import { loadCase } from '../cases/scope.js';
import { loadIncident } from '../incidents/scope.js';
import { setWorkflowRunner, updateIncident } from '../incidents/lifecycle.js';
import { notifyChange } from '../live/changes.js';
import { updateCase } from '../cases/service.js';
import { createTask } from '../tasks/service.js';
import { recordPluginEvent } from '../plugins/runtime.js';
import { capabilityOf, loadPlugin, type LoadedPlugin } from '../plugins/registry.js';
import { signedHeaders } from '../plugins/signing.js';
import { originOf, outboundFailure, outboundFetch } from '../core/http/outbound.js';
import { checkRecipients } from './recipients.js';

type WorkflowRow = typeof workflows.$inferSelect;
type InstanceRow = typeof workflowInstances.$inferSelect;
export type RunStatus = InstanceRow['status'];
const TERMINAL = new Set<RunStatus>(['Completed', 'Failed']);

export interface RunTarget {
  incident_id?: number | null;
  case_id?: number | null;
  signal_id?: number | null;
}

/**
 * Submits a run: the instance (Submitted, with its deadline), its start job and its timeout job, all
 * in `ctx`'s transaction. Whatever happens to the engine, the timeout job ends a run that never
 * finished as Failed.
 */
export async function startRun(
  ctx: RequestContext,
  workflow: WorkflowRow,
  target: RunTarget,
  opts: { run_reason?: string | null; parameters?: Record<string, string>; trigger: string; creator?: string | null },
) {
  const parameters = { ...Object.fromEntries(workflow.parameters.map((p) => [p.key, p.value])), ...(opts.parameters ?? {}) };
  const [instance] = await ctx.tx
    .insert(workflowInstances)
    .values({
      organization_id: ctx.orgId,
      workflow_id: workflow.id,
      incident_id: target.incident_id ?? null,
      case_id: target.case_id ?? null,
      signal_id: target.signal_id ?? null,
      run_reason: opts.run_reason ?? null,
      trigger: opts.trigger,
      parameters,
      creator: opts.creator ?? null,
      deadline_at: sql`now() + make_interval(secs => ${workflow.timeout_seconds})`,
    })
    .returning();
  await timeline(ctx, instance!, `Workflow ${workflow.name} submitted (${opts.trigger}${opts.run_reason ? `: ${opts.run_reason}` : ''})`);
  await enqueueJob(ctx, workflowStartJob, { instance_id: instance!.id });
  await enqueueJob(ctx, workflowTimeoutJob, { instance_id: instance!.id }, { startAfterSeconds: workflow.timeout_seconds });
  return instance!;
}

async function timeline(
  ctx: RequestContext,
  instance: Pick<InstanceRow, 'id' | 'incident_id' | 'case_id'>,
  description: string,
  details: Record<string, unknown> = {},
) {
  for (const target of [{ incident_id: instance.incident_id }, { case_id: instance.case_id }]) {
    if (!Object.values(target)[0]) continue;
    await addEvent(ctx, { ...target, type: 'Other', source: 'Workflow', description, details: { workflow_instance_id: instance.id, ...details } });
  }
}

async function load(ctx: RequestContext, id: number, lock = false) {
  const q = ctx.tx
    .select()
    .from(workflowInstances)
    .where(and(eq(workflowInstances.organization_id, ctx.orgId), eq(workflowInstances.id, id)));
  const [instance] = lock ? await q.for('update') : await q;
  if (!instance) return null;
  const [workflow] = await ctx.tx
    .select()
    .from(workflows)
    .where(and(eq(workflows.organization_id, ctx.orgId), eq(workflows.id, instance.workflow_id)));
  return workflow ? { instance, workflow } : null;
}

/** Moves a run on; a finished run never changes again. Returns false when it had already finished. */
export async function advance(ctx: RequestContext, id: number, status: RunStatus, reason?: string | null, artifacts?: Artifact[]) {
  const found = await load(ctx, id, true);
  if (!found || TERMINAL.has(found.instance.status)) return false;
  const { instance, workflow } = found;
  if (status === instance.status && !artifacts) return true;
  await ctx.tx
    .update(workflowInstances)
    .set({
      status,
      status_reason: reason ?? null,
      ...(artifacts ? { artifacts: [...instance.artifacts, ...artifacts].slice(0, 100) } : {}),
      ...(status === 'Running' && !instance.started_at ? { started_at: sql`now()` } : {}),
      ...(TERMINAL.has(status) ? { finished_at: sql`now()` } : {}),
      updated_at: sql`now()`,
    })
    .where(and(eq(workflowInstances.organization_id, ctx.orgId), eq(workflowInstances.id, id)));
  // Open pages of the incident or case show the run's new status (a finished run's timeline entry notifies as well).
  await notifyChange(ctx, { incident_id: instance.incident_id, case_id: instance.case_id });
  if (TERMINAL.has(status)) {
    const what = status === 'Completed' ? 'completed' : `failed: ${reason ?? 'no reason given'}`;
    await timeline(ctx, instance, `Workflow ${workflow.name} ${what}`, { status, artifacts: artifacts ?? [] });
  }
  return true;
}

/** Values the steps and the HTTP engine see: the incident or case, the parameters, the run. */
async function subjectOf(ctx: RequestContext, instance: InstanceRow, workflow: WorkflowRow) {
  const incident = instance.incident_id ? await loadIncident(ctx, instance.incident_id).catch(() => null) : null;
  const kase = instance.case_id ? await loadCase(ctx, instance.case_id).catch(() => null) : null;
  return {
    incident: incident && {
      id: incident.id,
      name: incident.name,
      title: incident.title,
      description: incident.description,
      status: incident.status,
      commander_email: incident.commander_email,
      reporter_email: incident.reporter_email,
      incident_type_id: incident.incident_type_id,
      incident_priority_id: incident.incident_priority_id,
      project_id: incident.project_id,
    },
    case: kase && {
      id: kase.id,
      name: kase.name,
      title: kase.title,
      description: kase.description,
      status: kase.status,
      assignee_email: kase.assignee_email,
      project_id: kase.project_id,
    },
    parameters: instance.parameters,
    workflow: { id: workflow.id, name: workflow.name, resource_id: workflow.resource_id },
    run: { id: instance.id, reason: instance.run_reason, trigger: instance.trigger },
  };
}

/** Fills `{{incident.title}}`-style placeholders (unknown ones become empty). */
export function fill(value: unknown, values: Record<string, unknown>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_, path: string) => {
      const v = path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), values);
      return v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    });
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, values));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, values)]));
  return value;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 500);
const FETCH_TIMEOUT_MS = 10_000;
/** Every step of a run is a job of the workflow lane about one instance. */
const instanceJob = (step: string, run: (deps: WorkflowDeps, id: number) => Promise<void>) =>
  defineJob({
    name: `workflow.${step}`,
    lane: WORKFLOW_LANE,
    payload: z.object({ instance_id: z.number().int() }),
    run: (data, job) => run(workflowDeps(job), data.instance_id),
  });

export const workflowStartJob = instanceJob('start', async (deps, id) => {
  const ready = await deps.tenant(async (ctx) => {
    const found = await load(ctx, id);
    if (!found || found.instance.status !== 'Submitted') return null;
    const plugin = await loadPlugin(ctx, found.workflow.plugin_instance_id);
    if (!plugin || !plugin.enabled) {
      await advance(ctx, id, 'Failed', plugin ? `Plugin instance ${plugin.title} is disabled.` : 'Its plugin instance no longer exists.');
      return null;
    }
    return { ...found, plugin, subject: await subjectOf(ctx, found.instance, found.workflow) };
  });
  if (!ready) return;
  const run = capabilityOf(ready.plugin, 'run_workflow');
  if (!run) {
    await deps.tenant((ctx) => advance(ctx, id, 'Failed', `Plugin ${ready.plugin.title} (${ready.plugin.slug}) does not run workflows.`));
    return;
  }
  await run(deps, ready.plugin, ready);
});

/** A submitted run, loaded for its engine. */
export type ReadyRun = { instance: InstanceRow; subject: Awaited<ReturnType<typeof subjectOf>> };

declare module '../plugins/registry.js' {
  interface Capabilities {
    /** Starts a submitted run: the built-in engine runs its steps, an external one is asked to. */
    run_workflow: (deps: WorkflowDeps, plugin: LoadedPlugin, run: ReadyRun) => Promise<void>;
    /** Whether a report posted to a run's callback URL comes from this engine. */
    verify_run_callback: (plugin: LoadedPlugin, headers: Record<string, unknown>, body: string) => boolean;
  }
}

/** The built-in engine: the run's steps, one job each. */
export async function runBuiltIn(deps: WorkflowDeps, id: number) {
  await deps.tenant((ctx) => advance(ctx, id, 'Running'));
  return runSteps(deps, id);
}

/** The HTTP engine contract: POST {url}/runs, signed; the answer is {id, status?, status_url?, artifacts?}. */
export async function startOnEngine(deps: WorkflowDeps, plugin: LoadedPlugin, { instance, subject }: ReadyRun) {
  const base = String(plugin.config.url).replace(/\/+$/, '');
  const callback_url = `${deps.config.PUBLIC_URL.replace(/\/+$/, '')}/api/v1/${encodeURIComponent(await deps.tenant(async (ctx) => ctx.orgSlug))}/workflows/instances/${instance.id}/callback`;
  const body = JSON.stringify({ instance_id: instance.id, ...subject, callback_url });
  let answer: { id?: unknown; status?: unknown; status_url?: unknown; reason?: unknown; artifacts?: unknown };
  try {
    const res = await outboundFetch(deps.config, `${base}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signedHeaders(String(plugin.config.signing_secret), body, `run_${instance.id}`) },
      body,
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    }).catch((err) => {
      throw new Error(`The engine at ${originOf(base)}: ${outboundFailure(err)}`);
    });
    const text = await res.text();
    // The answer's body is not quoted: plugin events are read by every member.
    if (!res.ok) throw new Error(`The engine answered ${res.status}`);
    try {
      answer = text ? JSON.parse(text) : {};
    } catch {
      throw new Error(`The engine answered ${res.status} with something other than JSON`);
    }
  } catch (err) {
    // The job is retried (the same webhook-id, so the engine can tell); the timeout ends it otherwise.
    await deps.tenant((ctx) =>
      recordPluginEvent(ctx, plugin, {
        name: 'Run request failed',
        description: errorText(err),
        incident_id: instance.incident_id,
        case_id: instance.case_id,
        workflow_instance_id: instance.id,
      }),
    );
    throw err;
  }
  const statusUrl = typeof answer.status_url === 'string' ? new URL(answer.status_url, `${base}/`).toString() : null;
  await deps.tenant(async (ctx) => {
    await ctx.tx
      .update(workflowInstances)
      .set({ external_id: answer.id === undefined ? null : String(answer.id), status_url: statusUrl })
      .where(and(eq(workflowInstances.organization_id, ctx.orgId), eq(workflowInstances.id, instance.id)));
    await recordPluginEvent(ctx, plugin, {
      name: 'Run started',
      description: `Engine run ${answer.id ?? '(no id)'}`,
      incident_id: instance.incident_id,
      case_id: instance.case_id,
      workflow_instance_id: instance.id,
    });
    await applyReport(ctx, instance.id, { status: answer.status ?? 'Running', reason: answer.reason, artifacts: answer.artifacts });
    if (statusUrl) await enqueueJob(ctx, workflowPollJob, { instance_id: instance.id }, { startAfterSeconds: deps.config.WORKFLOW_POLL_SECONDS });
  });
}

/** An engine's report (callback body or status answer): {status, reason?, artifacts?}. */
export async function applyReport(ctx: RequestContext, id: number, report: { status?: unknown; reason?: unknown; artifacts?: unknown }) {
  const status = String(report.status ?? '');
  if (!['Running', 'Completed', 'Failed'].includes(status))
    throw httpError(422, 'status must be Running, Completed or Failed.', 'value_error', ['body', 'status']);
  const artifacts = Array.isArray(report.artifacts)
    ? report.artifacts
        .filter((a): a is Artifact => !!a && typeof a === 'object' && typeof (a as Artifact).name === 'string')
        .map((a) => ({
          name: a.name.slice(0, 200),
          ...(typeof a.url === 'string' ? { url: a.url.slice(0, 2000) } : {}),
          ...(typeof a.description === 'string' ? { description: a.description.slice(0, 2000) } : {}),
        }))
    : undefined;
  return advance(
    ctx,
    id,
    status as RunStatus,
    typeof report.reason === 'string' ? report.reason.slice(0, 2000) : status === 'Failed' ? 'The engine reported a failure.' : null,
    artifacts,
  );
}

export const workflowPollJob = instanceJob('poll', async (deps, id) => {
  const found = await deps.tenant(async (ctx) => {
    const f = await load(ctx, id);
    if (!f || TERMINAL.has(f.instance.status) || !f.instance.status_url || f.instance.deadline_at.getTime() <= Date.now()) return null;
    return { ...f, plugin: await loadPlugin(ctx, f.workflow.plugin_instance_id) };
  });
  if (!found?.plugin) return;
  let report: Record<string, unknown> | null = null;
  try {
    const res = await outboundFetch(deps.config, found.instance.status_url!, {
      headers: signedHeaders(String(found.plugin.config.signing_secret), ''),
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
    if (res.ok) report = (await res.json()) as Record<string, unknown>;
  } catch {
    // Asked again at the next poll; the deadline ends it.
  }
  await deps.tenant(async (ctx) => {
    if (report && report.status !== undefined) await applyReport(ctx, id, report).catch(() => false);
    const [now] = await ctx.tx
      .select({ status: workflowInstances.status })
      .from(workflowInstances)
      .where(and(eq(workflowInstances.organization_id, ctx.orgId), eq(workflowInstances.id, id)));
    if (now && !TERMINAL.has(now.status)) await enqueueJob(ctx, workflowPollJob, { instance_id: id }, { startAfterSeconds: deps.config.WORKFLOW_POLL_SECONDS });
  });
});

export const workflowTimeoutJob = instanceJob('timeout', async (deps, id) => {
  await deps.tenant(async (ctx) => {
    const found = await load(ctx, id);
    if (!found || TERMINAL.has(found.instance.status)) return;
    const waited = found.workflow.timeout_seconds;
    const reason =
      found.instance.status === 'Submitted'
        ? `Timed out after ${waited} s: the engine never accepted the run.`
        : `Timed out after ${waited} s without a result.`;
    await advance(ctx, id, 'Failed', reason);
  });
});

type PlainStep = Exclude<WorkflowStep, { kind: 'switch' }>;
/** The step engine's program: the steps in order, each switch followed by its branches, each branch ending in a jump past the others. */
export type Instruction =
  | { op: 'step'; step: PlainStep; label: string }
  | { op: 'switch'; with: SwitchWith; cases: number[]; fallback: number; label: string }
  | { op: 'jump'; target: number };

/**
 * The workflow's steps as a flat program, so a run's position is one number (`next_step`) even inside
 * a branch, and a wait in a branch resumes where it was. Labels name each step for failures
 * ("Step 2, case 1, step 1").
 */
export function compileSteps(steps: WorkflowStep[]): Instruction[] {
  const program: Instruction[] = [];
  const emit = (list: WorkflowStep[], prefix: string) => {
    list.forEach((step, i) => {
      const label = prefix ? `${prefix}, step ${i + 1}` : `Step ${i + 1}`;
      if (step.kind !== 'switch') {
        program.push({ op: 'step', step, label });
        return;
      }
      const sw: Extract<Instruction, { op: 'switch' }> = { op: 'switch', with: step.with, cases: [], fallback: -1, label };
      program.push(sw);
      const ends: Extract<Instruction, { op: 'jump' }>[] = [];
      const branch = (body: WorkflowStep[], name: string) => {
        const start = program.length;
        emit(body, `${label}, ${name}`);
        const end = { op: 'jump' as const, target: -1 };
        program.push(end);
        ends.push(end);
        return start;
      };
      step.with.cases.forEach((c, k) => sw.cases.push(branch(c.steps, `case ${k + 1}`)));
      sw.fallback = branch(step.with.default ?? [], 'default');
      for (const end of ends) end.target = program.length;
    });
  };
  emit(steps, '');
  return program;
}

/** Which branch a switch takes for its filled value: the first case holding it, else the default. */
export function takeSwitch(ins: Extract<Instruction, { op: 'switch' }>, value: string) {
  const k = ins.with.cases.findIndex((c) => (Array.isArray(c.equals) ? c.equals : [c.equals]).includes(value));
  return k >= 0 ? { target: ins.cases[k]!, branch: `case ${k + 1}` } : { target: ins.fallback, branch: 'the default branch' };
}

/** The built-in step engine: each step in turn; a wait step continues in a later job. */
async function runSteps(deps: WorkflowDeps, id: number) {
  for (;;) {
    const state = await deps.tenant(async (ctx) => {
      const found = await load(ctx, id);
      if (!found || found.instance.status !== 'Running') return null;
      return { ...found, subject: await subjectOf(ctx, found.instance, found.workflow) };
    });
    if (!state) return;
    const { instance, workflow, subject } = state;
    const program = compileSteps(workflow.steps);
    const ins = program[instance.next_step];
    if (!ins) {
      await deps.tenant((ctx) => advance(ctx, id, 'Completed', `${workflow.steps.length} step${workflow.steps.length === 1 ? '' : 's'} run`));
      return;
    }
    let next = instance.next_step + 1;
    let waitSeconds = 0;
    let note: string | null = null;
    if (ins.op === 'jump') next = ins.target;
    else if (ins.op === 'switch') {
      const value = String(fill(ins.with.value, subject));
      const taken = takeSwitch(ins, value);
      next = taken.target;
      note = `Workflow ${workflow.name}: ${ins.label} (switch) took ${taken.branch} for '${value.slice(0, 200)}'`;
    } else {
      const args = fill(ins.step.with ?? {}, subject) as Record<string, unknown>;
      try {
        waitSeconds = await runStep(deps, instance, ins.step, args);
      } catch (err) {
        await deps.tenant((ctx) => advance(ctx, id, 'Failed', `${ins.label} (${ins.step.kind}) failed: ${errorText(err)}`));
        return;
      }
    }
    await deps.tenant(async (ctx) => {
      await ctx.tx
        .update(workflowInstances)
        .set({ next_step: next, updated_at: sql`now()` })
        .where(and(eq(workflowInstances.organization_id, ctx.orgId), eq(workflowInstances.id, id)));
      if (note) await timeline(ctx, instance, note);
      if (waitSeconds) await enqueueJob(ctx, workflowStepsJob, { instance_id: id }, { startAfterSeconds: waitSeconds });
    });
    if (waitSeconds) return;
  }
}

export const workflowStepsJob = instanceJob('steps', runSteps);

const SETTABLE_FIELDS = ['title', 'description', 'resolution'];

/** Runs one step; returns how long to wait before the next (a wait step), else 0. */
async function runStep(deps: WorkflowDeps, instance: InstanceRow, step: PlainStep, args: Record<string, unknown>): Promise<number> {
  const target = { incident_id: instance.incident_id, case_id: instance.case_id, workflow_instance_id: instance.id };
  switch (step.kind) {
    case 'message': {
      const plugin = await deps.tenant((ctx) => loadPlugin(ctx, Number(args.plugin_instance_id)));
      if (!plugin || !plugin.enabled) throw new Error(`Plugin instance ${String(args.plugin_instance_id)} is missing or disabled.`);
      const send = capabilityOf(plugin, 'send_message');
      if (!send) throw new Error(`Plugin ${plugin.title} (${plugin.slug}) does not post messages.`);
      await send(plugin, { text: String(args.text ?? '') });
      await deps.tenant((ctx) => recordPluginEvent(ctx, plugin, { name: 'Message posted', description: String(args.text ?? '').slice(0, 500), ...target }));
      return 0;
    }
    case 'email': {
      if (typeof args.to !== 'string' || !args.to.includes('@')) throw new Error('The e-mail step needs a "to" address.');
      const to = args.to;
      await deps.tenant((ctx) => checkRecipients(ctx, to));
      await deps.mailer({ to: args.to, subject: String(args.subject ?? ''), text: String(args.text ?? '') });
      return 0;
    }
    case 'webhook': {
      const url = String(args.url);
      const method = String(args.method ?? 'POST').toUpperCase();
      const res = await outboundFetch(deps.config, url, {
        method,
        headers: { 'content-type': 'application/json' },
        // GET and HEAD carry no body (fetch refuses one).
        ...(['GET', 'HEAD'].includes(method) ? {} : { body: JSON.stringify(args.body ?? {}) }),
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      }).catch((err) => {
        throw new Error(`${originOf(url)}: ${outboundFailure(err)}`);
      });
      await res.body?.cancel();
      if (!res.ok) throw new Error(`${originOf(url)} answered ${res.status}`);
      return 0;
    }
    case 'task':
      await deps.tenant((ctx) =>
        createTask(ctx, {
          description: String(args.description ?? 'Follow-up'),
          incident_id: instance.incident_id,
          case_id: instance.case_id,
          ...(typeof args.owner_email === 'string' && args.owner_email ? { owner_email: args.owner_email } : {}),
        }),
      );
      return 0;
    case 'timeline':
      await deps.tenant((ctx) => timeline(ctx, instance, String(args.description ?? '')));
      return 0;
    case 'set_field': {
      const field = String(args.field);
      if (!SETTABLE_FIELDS.includes(field)) throw new Error(`Field '${field}' cannot be set by a workflow (${SETTABLE_FIELDS.join(', ')}).`);
      await deps.tenant(async (ctx) => {
        if (instance.incident_id) await updateIncident(ctx, instance.incident_id, { [field]: String(args.value ?? '') });
        else if (instance.case_id) await updateCase(ctx, instance.case_id, { [field]: String(args.value ?? '') });
        else throw new Error('set_field needs an incident or a case.');
      });
      return 0;
    }
    case 'wait':
      return Math.max(1, Number(args.seconds) || 1);
  }
}

/** Incident status triggers: enabled workflows bound to the status, filtered by type and priority. */
setWorkflowRunner(async (ctx, target, status) => {
  if (!target.incident_id) return 0;
  const [incident] = await ctx.tx
    .select()
    .from(incidents)
    .where(and(eq(incidents.organization_id, ctx.orgId), eq(incidents.id, target.incident_id)));
  if (!incident) return 0;
  const bound = await ctx.tx
    .select()
    .from(workflows)
    .where(
      and(eq(workflows.organization_id, ctx.orgId), eq(workflows.enabled, true), sql`${workflows.incident_statuses} @> ${JSON.stringify([status])}::jsonb`),
    );
  const matching = bound.filter(
    (w) =>
      (!w.project_id || w.project_id === incident.project_id) &&
      (!w.incident_type_ids.length || (incident.incident_type_id !== null && w.incident_type_ids.includes(incident.incident_type_id))) &&
      (!w.incident_priority_ids.length || (incident.incident_priority_id !== null && w.incident_priority_ids.includes(incident.incident_priority_id))),
  );
  for (const w of matching)
    await startRun(
      ctx,
      w,
      { incident_id: incident.id },
      { trigger: `incident ${status.toLowerCase()}`, run_reason: `Incident ${incident.name} marked ${status.toLowerCase()}` },
    );
  return matching.length;
});

/** Case escalation trigger: the bound workflows read once for the batch, and its cases in one statement. */
subscribe(async (ctx, events) => {
  if (events.type !== 'case.escalated') return;
  const bound = await ctx.tx
    .select()
    .from(workflows)
    .where(and(eq(workflows.organization_id, ctx.orgId), eq(workflows.enabled, true), eq(workflows.on_case_escalation, true)));
  if (!bound.length) return;
  const found = await ctx.tx
    .select({ id: cases.id, name: cases.name, project_id: cases.project_id })
    .from(cases)
    .where(and(eq(cases.organization_id, ctx.orgId), inArray(cases.id, events.ids)));
  const caseOf = new Map(found.map((c) => [c.id, c]));
  for (const id of events.ids) {
    const kase = caseOf.get(id);
    for (const w of bound.filter((w) => !w.project_id || w.project_id === kase?.project_id)) {
      await startRun(
        ctx,
        w,
        { case_id: id, incident_id: events.incident_id },
        { trigger: 'case escalation', run_reason: `Case ${kase?.name ?? id} escalated` },
      );
    }
  }
});
