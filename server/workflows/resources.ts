import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { WORKFLOW_STATUSES, workflowInstances, workflows, type WorkflowStep } from './tables.js';
import { invalid } from '../core/errors.js';
import type { RequestContext } from '../core/context.js';
import { fieldsOf, idList, outer, projectField } from '../engine/definition-kit.js';
import { bodyOf } from '../engine/body.js';
import { defineResource } from '../engine/define.js';
import { flag, ref, requiredText, text } from '../engine/fields.js';
import { pluginBySlug, slugsWith } from '../plugins/registry.js';
import { pluginInstances } from '../plugins/tables.js';
import { checkOutwardSteps } from './outbound-steps.js';
import { incidents } from '../incidents/tables.js';
import { cases } from '../cases/tables.js';
import { visibleRows } from '../engine/visibility.js';

const STEP_KINDS = ['message', 'email', 'webhook', 'task', 'timeline', 'set_field', 'wait', 'switch'] as const;
/** How many steps a workflow may hold, its switches' branches included. */
export const MAX_STEPS = 200;

const stepList = (): z.ZodType<WorkflowStep[]> => z.array(z.lazy(() => step)).max(50);
/**
 * A step of the built-in step engine. A switch compares its value (placeholders filled) with each
 * case's `equals` (one value or a list) and runs the first matching case's steps, else its default
 * branch (none: nothing), then goes on after the switch.
 */
const step: z.ZodType<WorkflowStep> = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({
      kind: z.enum(STEP_KINDS.filter((k) => k !== 'switch') as [Exclude<WorkflowStep['kind'], 'switch'>, ...Exclude<WorkflowStep['kind'], 'switch'>[]]),
      with: z.record(z.string(), z.unknown()).default({}),
    }),
    z.strictObject({
      kind: z.literal('switch'),
      with: z.strictObject({
        value: z.string().min(1, 'The value to switch on is required, e.g. {{incident.status}}').max(500),
        cases: z
          .array(
            z.strictObject({
              equals: z.union([z.string().max(500), z.array(z.string().max(500)).min(1).max(50)]),
              steps: stepList(),
            }),
          )
          .min(1, 'A switch needs at least one case')
          .max(20),
        default: stepList().optional(),
      }),
    }),
  ],
  { error: `Step kind must be one of ${STEP_KINDS.join(', ')}` },
);

const countSteps = (steps: WorkflowStep[]): number =>
  steps.reduce((n, s) => n + 1 + (s.kind === 'switch' ? s.with.cases.reduce((m, c) => m + countSteps(c.steps), 0) + countSteps(s.with.default ?? []) : 0), 0);

/** A workflow runs through a plugin instance of type workflow (the HTTP engine or the step engine); answers its slug. */
async function checkEngine(ctx: RequestContext, pluginInstanceId: unknown) {
  const [row] = await ctx.tx
    .select({ slug: pluginInstances.plugin_slug })
    .from(pluginInstances)
    .where(and(eq(pluginInstances.organization_id, ctx.orgId), eq(pluginInstances.id, Number(pluginInstanceId))));
  if (!row) throw invalid(`Plugin instance '${String(pluginInstanceId)}' could not be found.`, ['body', 'plugin_instance_id'], 'not_found');
  if (!slugsWith('run_workflow').includes(row.slug))
    throw invalid(`The plugin instance must be a workflow engine (${slugsWith('run_workflow').join(' or ')}).`, ['body', 'plugin_instance_id'], 'value_error');
  return row.slug;
}

export const BUILT_IN_ENGINE = 'step-engine';
export const NO_STEPS_MESSAGE = 'A workflow without steps has nothing to run: add a step before enabling or running it.';

/**
 * The organization's built-in step engine instance, made on first need: a workflow created without an
 * engine runs on it, so nobody has to create a plugin instance before their first workflow.
 */
export async function builtInEngine(ctx: RequestContext) {
  const where = and(eq(pluginInstances.organization_id, ctx.orgId), eq(pluginInstances.plugin_slug, BUILT_IN_ENGINE));
  const [found] = await ctx.tx
    .select({ id: pluginInstances.id })
    .from(pluginInstances)
    .where(where)
    .orderBy(desc(pluginInstances.enabled), asc(pluginInstances.id))
    .limit(1);
  if (found) return found.id;
  const [made] = await ctx.tx
    .insert(pluginInstances)
    .values({ organization_id: ctx.orgId, plugin_slug: BUILT_IN_ENGINE, title: pluginBySlug(BUILT_IN_ENGINE)!.title })
    .returning({ id: pluginInstances.id });
  return made!.id;
}

/** Step-engine workflows need a step to be enabled: an explicit `enabled: true` without one is refused, an implicit one stays off. */
function stepsRule(slug: string, merged: { enabled?: unknown; steps?: unknown }, explicit: boolean) {
  const empty = !Array.isArray(merged.steps) || merged.steps.length === 0;
  if (slug !== BUILT_IN_ENGINE || !empty || merged.enabled === false) return merged.enabled;
  if (explicit) throw invalid(NO_STEPS_MESSAGE, ['body', 'enabled'], 'value_error');
  return false;
}

/**
 * Spec §3's workflow `case` and `incident`: what its latest run the caller may see ran for, as
 * `{id, name}` (null when that run had none). Runs of records hidden from the caller are skipped,
 * as the runs list skips them.
 */
function lastRunFor(ctx: RequestContext, target: typeof incidents | typeof cases, column: 'incident_id' | 'case_id') {
  const seen = visibleRows(ctx, workflowInstances, outer(workflows, 'organization_id'));
  return sql`(select case when r.${sql.identifier(column)} is null then null else jsonb_build_object('id', x.id, 'name', x.name) end
    from (select ${workflowInstances.incident_id}, ${workflowInstances.case_id} from ${workflowInstances}
      where ${workflowInstances.organization_id} = ${outer(workflows, 'organization_id')} and ${workflowInstances.workflow_id} = ${outer(workflows, 'id')}${seen ? sql` and ${seen}` : sql``}
      order by ${workflowInstances.id} desc limit 1) r
    left join ${target} x on x.organization_id = ${outer(workflows, 'organization_id')} and x.id = r.${sql.identifier(column)})`;
}

export const workflowResource = defineResource({
  model: 'Workflow',
  label: 'Workflow',
  path: '/workflows',
  table: workflows,
  create: bodyOf(workflows, {
    name: requiredText(200),
    description: text(5000),
    enabled: flag().optional(),
    resource_id: text(500),
    parameters: z
      .array(z.strictObject({ key: requiredText(100), value: z.string().max(5000) }))
      .max(100)
      .optional(),
    // None given: the built-in step engine.
    plugin_instance_id: ref().optional(),
    steps: stepList()
      .refine((steps) => countSteps(steps) <= MAX_STEPS, `A workflow holds at most ${MAX_STEPS} steps, its switches' branches included`)
      .optional(),
    incident_statuses: z
      .array(z.enum(['Stable', 'Closed'], { error: 'Status must be Stable or Closed' }))
      .max(2)
      .optional(),
    incident_type_ids: idList().optional(),
    incident_priority_ids: idList().optional(),
    on_case_escalation: flag().optional(),
    timeout_seconds: z
      .number()
      .int()
      .min(1)
      .max(7 * 24 * 3600)
      .optional(),
    ...projectField,
  }),
  pageSize: 10,
  // Spec §9: workflows have no default sort; they list in the order they were made.
  sort: [['id', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(workflows, ['parameters', 'steps', 'incident_statuses', 'incident_type_ids', 'incident_priority_ids']),
  references: { project_id: 'Project', plugin_instance_id: 'PluginInstance', incident_type_ids: 'IncidentType', incident_priority_ids: 'IncidentPriority' },
  fieldMeta: {
    incident_priority_ids: { label: 'Incident priorities' },
    enabled: { help: 'A workflow runs only once it has at least one step.' },
    plugin_instance_id: {
      label: 'Engine',
      help: 'Left empty, the built-in step engine runs the steps below.',
      // Read when the metadata is answered, after the app found its plugins.
      get referenceFilter() {
        return { plugin_slug: slugsWith('run_workflow') };
      },
    },
  },
  computed: (ctx) => ({
    plugin_instance: sql`(select jsonb_build_object('id', p.id, 'title', p.title, 'slug', p.plugin_slug) from ${pluginInstances} p where p.organization_id = ${outer(workflows, 'organization_id')} and p.id = ${outer(workflows, 'plugin_instance_id')})`,
    incident: lastRunFor(ctx, incidents, 'incident_id'),
    case: lastRunFor(ctx, cases, 'case_id'),
  }),
  answerOnly: ['incident', 'case'],
  hooks: {
    async beforeCreate(ctx, data) {
      const plugin_instance_id = data.plugin_instance_id ?? (await builtInEngine(ctx));
      const slug = await checkEngine(ctx, plugin_instance_id);
      await checkOutwardSteps(ctx, data.steps as WorkflowStep[] | undefined);
      return { ...data, plugin_instance_id, enabled: stepsRule(slug, { enabled: data.enabled ?? true, steps: data.steps }, data.enabled === true) };
    },
    async beforeUpdate(ctx, id, data) {
      const [row] = await ctx.tx
        .select()
        .from(workflows)
        .where(and(eq(workflows.organization_id, ctx.orgId), eq(workflows.id, id)));
      if (!row) return data;
      const slug = await checkEngine(ctx, data.plugin_instance_id ?? row.plugin_instance_id);
      await checkOutwardSteps(ctx, data.steps as WorkflowStep[] | undefined, id);
      const merged = { enabled: data.enabled ?? row.enabled, steps: data.steps ?? row.steps };
      const enabled = stepsRule(slug, merged, data.enabled === true || (data.steps !== undefined && row.enabled));
      return enabled === merged.enabled ? data : { ...data, enabled };
    },
  },
});

export const workflowInstanceResource = defineResource({
  model: 'WorkflowInstance',
  label: 'Workflow instance',
  path: '/workflows/instances',
  table: workflowInstances,
  create: z.strictObject({ run_reason: text(), status: z.enum(WORKFLOW_STATUSES).optional() }),
  pageSize: 25,
  sort: [['created_at', 'desc']],
  search: ['run_reason', 'status_reason'],
  fields: fieldsOf(workflowInstances, ['parameters', 'artifacts']),
  // Spec §3: an instance answers its incident, case and signal as {id, name}.
  references: { incident_id: 'Incident', case_id: 'Case', signal_id: 'Signal' },
  computed: () => ({
    workflow: sql`(select jsonb_build_object('id', w.id, 'name', w.name) from ${workflows} w where w.organization_id = ${outer(workflowInstances, 'organization_id')} and w.id = ${outer(workflowInstances, 'workflow_id')})`,
  }),
  routes: { create: false, update: false, delete: false },
});
