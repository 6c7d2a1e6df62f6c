import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { RequestContext } from '../core/context.js';
import { invalid, notFound } from '../core/errors.js';
import { enqueueJob } from '../core/jobs/define.js';
import { addEvent } from '../timeline/events.js';
import { services } from '../people/tables.js';
import { pluginsWith, type LoadedPlugin } from '../plugins/registry.js';
import { oncallEscalationPolicies, oncallPages, PAGE_STATES, type PolicyStep } from './tables.js';
import { policyOfService } from './whos-on.js';
import { escalateJob } from './escalation.js';
import { externalPageJob, resolveExternalJob } from './external.js';
import builtin from './integrations/firewatch-oncall.js';

export const BUILTIN = builtin.slug;
/** A page straight to a person: tried again every 5 minutes, three times in all, until acknowledged. */
const PERSON_STEP_MINUTES = 5;
const PERSON_REPEAT = 2;

export interface PageInput {
  key: string;
  title: string;
  details?: string | null;
  project_id?: number | null;
  service_id?: number | null;
  escalation_policy_id?: number | null;
  /** Page this person directly (a commander, an assignee). */
  email?: string | null;
  incident_id?: number | null;
  case_id?: number | null;
  /** Who asked, for the timeline. */
  by?: string | null;
}

/**
 * The on-call plugin a service is paged through: among the enabled instances with `page` (the
 * project's first), the one of the service's type, else the first; none configured: Firewatch's own.
 */
export async function providerFor(ctx: RequestContext, service: { type: string } | null, projectId: number | null): Promise<LoadedPlugin | null> {
  const found = await pluginsWith(ctx, 'page', projectId);
  return found.find((p) => p.slug === service?.type) ?? found[0] ?? null;
}

export async function loadService(ctx: RequestContext, id: number) {
  const [service] = await ctx.tx
    .select({ id: services.id, name: services.name, type: services.type, external_id: services.external_id, project_id: services.project_id })
    .from(services)
    .where(and(eq(services.organization_id, ctx.orgId), eq(services.id, id)));
  if (!service) throw notFound('Service', id);
  return service;
}

async function stepsFor(ctx: RequestContext, input: PageInput, policyId: number | null) {
  if (input.email)
    return { steps: [{ timeout_minutes: PERSON_STEP_MINUTES, targets: [{ type: 'person' as const, email: input.email }] }], repeat: PERSON_REPEAT };
  if (!policyId) return null;
  const [policy] = await ctx.tx
    .select()
    .from(oncallEscalationPolicies)
    .where(and(eq(oncallEscalationPolicies.organization_id, ctx.orgId), eq(oncallEscalationPolicies.id, policyId)));
  if (!policy) throw notFound('Escalation policy', policyId);
  return { steps: policy.steps as PolicyStep[], repeat: policy.repeat, policyId: policy.id };
}

const timelineOf = (page: { incident_id: number | null; case_id: number | null }) => ({ incident_id: page.incident_id, case_id: page.case_id });

/**
 * Opens a page, once per key (a second call with the same key answers the first page). Firewatch's
 * own pages start escalating at once (a job, after commit); another plugin's are sent by a job.
 */
export async function triggerPage(ctx: RequestContext, input: PageInput): Promise<{ id: number; created: boolean }> {
  const [existing] = await ctx.tx
    .select({ id: oncallPages.id })
    .from(oncallPages)
    .where(and(eq(oncallPages.organization_id, ctx.orgId), eq(oncallPages.key, input.key)));
  if (existing) return { id: existing.id, created: false };
  const service = input.service_id ? await loadService(ctx, input.service_id) : null;
  const projectId = input.project_id ?? service?.project_id ?? null;
  const plugin = input.email ? null : await providerFor(ctx, service, projectId);
  const provider = plugin?.slug ?? BUILTIN;
  const policyId = input.escalation_policy_id ?? (service && provider === BUILTIN ? ((await policyOfService(ctx, service))?.id ?? null) : null);
  const plan = provider === BUILTIN ? await stepsFor(ctx, input, policyId) : null;
  if (provider === BUILTIN && !plan?.steps.length) throw invalid('Nobody to page: give a person, or a service or policy with steps.', ['body']);
  const [row] = await ctx.tx
    .insert(oncallPages)
    .values({
      organization_id: ctx.orgId,
      project_id: projectId,
      key: input.key,
      title: input.title,
      details: input.details ?? null,
      service_id: service?.id ?? null,
      escalation_policy_id: policyId,
      incident_id: input.incident_id ?? null,
      case_id: input.case_id ?? null,
      provider,
      plugin_instance_id: plugin?.id ?? null,
      steps: plan?.steps ?? [],
      repeat: plan?.repeat ?? 0,
      ...(provider === BUILTIN ? { next_step: 0, next_round: 0, next_at: sql`now()` } : {}),
    })
    .onConflictDoNothing()
    .returning({ id: oncallPages.id });
  // Two requests with one key at once: the other one's page stands.
  if (!row) return triggerPage(ctx, input);
  if (provider === BUILTIN) await enqueueJob(ctx, escalateJob, { page_id: row.id });
  else await enqueueJob(ctx, externalPageJob, { page_id: row.id });
  if (input.incident_id || input.case_id)
    await addEvent(ctx, {
      ...timelineOf({ incident_id: input.incident_id ?? null, case_id: input.case_id ?? null }),
      type: 'Notification',
      description: `Paged ${input.email ?? (service ? `the on-call of ${service.name}` : 'the escalation policy')}${provider !== BUILTIN ? ` through ${plugin!.title}` : ''}: ${input.title}`,
      details: { page_id: row.id },
      owner: input.by ?? null,
    });
  return { id: row.id, created: true };
}

/** Acknowledges a triggered page: its escalation stops, and who did lands on the timeline. */
export async function acknowledgePage(ctx: RequestContext, id: number, by: string) {
  return settle(ctx, id, 'acknowledged', by);
}

/** Resolves a page (from the page, its e-mail, or its incident or case closing). */
export async function resolvePage(ctx: RequestContext, id: number, by: string) {
  return settle(ctx, id, 'resolved', by);
}

async function settle(ctx: RequestContext, id: number, state: 'acknowledged' | 'resolved', by: string) {
  const from: (typeof PAGE_STATES)[number][] = state === 'acknowledged' ? ['triggered'] : ['triggered', 'acknowledged'];
  const stamp = state === 'acknowledged' ? { acknowledged_by: by, acknowledged_at: sql`now()` } : { resolved_by: by, resolved_at: sql`now()` };
  const [row] = await ctx.tx
    .update(oncallPages)
    .set({ state, ...stamp, next_step: null, next_round: null, next_at: null, updated_at: sql`now()` })
    .where(and(eq(oncallPages.organization_id, ctx.orgId), eq(oncallPages.id, id), inArray(oncallPages.state, from)))
    .returning();
  if (!row) {
    const [page] = await ctx.tx
      .select()
      .from(oncallPages)
      .where(and(eq(oncallPages.organization_id, ctx.orgId), eq(oncallPages.id, id)));
    if (!page) throw notFound('Page', id);
    return { page, changed: false };
  }
  if (state === 'resolved' && row.provider !== BUILTIN) await enqueueJob(ctx, resolveExternalJob, { page_id: row.id });
  if (row.incident_id || row.case_id)
    await addEvent(ctx, {
      ...timelineOf(row),
      type: 'Notification',
      description: `Page "${row.title}" ${state} by ${by}`,
      details: { page_id: row.id },
      owner: by,
    });
  return { page: row, changed: true };
}

/** An incident or case closed: its open pages are resolved (here, and at PagerDuty). */
export async function resolvePagesOf(ctx: RequestContext, of: { incident_id?: number; case_id?: number }, by: string) {
  const column = of.incident_id ? oncallPages.incident_id : oncallPages.case_id;
  const open = await ctx.tx
    .select({ id: oncallPages.id })
    .from(oncallPages)
    .where(and(eq(oncallPages.organization_id, ctx.orgId), eq(column, (of.incident_id ?? of.case_id)!), ne(oncallPages.state, 'resolved')));
  for (const p of open) await resolvePage(ctx, p.id, by);
}
