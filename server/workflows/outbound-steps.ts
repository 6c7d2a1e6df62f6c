import { and, eq } from 'drizzle-orm';
import { may, type RequestContext } from '../core/context.js';
import { forbidden, invalid } from '../core/errors.js';
import { outboundUrlProblem } from '../core/http/outbound.js';
import { workflows, type WorkflowStep } from './tables.js';
import { recipientProblem } from './recipients.js';

/**
 * Webhook and e-mail steps reach outside the organization, so saving a workflow holding one is an
 * Admin's (core/rights.ts `integrations`, F22); their literal targets are checked when saved, and
 * again, filled in, when the step runs.
 */
const OUTWARD = new Set(['webhook', 'email']);

/** Every step, those in switches' branches too. */
const flatten = (steps: WorkflowStep[]): WorkflowStep[] =>
  steps.flatMap((s) => (s.kind === 'switch' ? [s, ...s.with.cases.flatMap((c) => flatten(c.steps)), ...flatten(s.with.default ?? [])] : [s]));

const outward = (steps: WorkflowStep[] | undefined) => flatten(steps ?? []).filter((s) => OUTWARD.has(s.kind)) as Exclude<WorkflowStep, { kind: 'switch' }>[];

/** A value without placeholders is known now; one with them only when the run fills it. */
const literal = (v: unknown) => (typeof v === 'string' && !v.includes('{{') ? v : null);

const refuse = () => forbidden('Only an Admin or above may save a workflow with webhook or e-mail steps.');

/** A new workflow's steps, or an update's (`id`): the right, then each literal target. */
export async function checkOutwardSteps(ctx: RequestContext, steps: WorkflowStep[] | undefined, id?: number) {
  const allowed = may(ctx.role, 'integrations');
  if (!allowed && id !== undefined) {
    // Changing anything of a workflow that already writes outside is theirs too (its parameters fill the targets).
    const [stored] = await ctx.tx
      .select({ steps: workflows.steps })
      .from(workflows)
      .where(and(eq(workflows.organization_id, ctx.orgId), eq(workflows.id, id)));
    if (stored && outward(stored.steps).length) throw refuse();
  }
  const given = outward(steps);
  if (!given.length) return;
  if (!allowed) throw refuse();
  for (const step of given) {
    const target = literal(step.kind === 'webhook' ? step.with.url : step.with.to);
    if (target === null) continue;
    const problem = step.kind === 'webhook' ? outboundUrlProblem(ctx.config, target) : await recipientProblem(ctx, target);
    if (problem) throw invalid(problem, ['body', 'steps'], 'value_error');
  }
}
