import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { WORKFLOW_STATUSES, workflowInstances, workflows, type WorkflowStep } from './tables.js';
import { invalid } from '../core/errors.js';
import type { RequestContext } from '../core/context.js';
import { fieldsOf, idList, outer, projectField } from '../engine/definition-kit.js';
import { bodyOf } from '../engine/body.js';
import { defineResource } from '../engine/define.js';
import { flag, requiredRef, requiredText, text } from '../engine/fields.js';
import { pluginBySlug, PLUGINS } from '../plugins/catalog.js';
import { pluginInstances } from '../plugins/tables.js';

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

/** A workflow runs through a plugin instance of type workflow (the HTTP engine or the step engine). */
async function checkEngine(ctx: RequestContext, pluginInstanceId: unknown) {
  if (pluginInstanceId === undefined) return;
  const [row] = await ctx.tx
    .select({ slug: pluginInstances.plugin_slug })
    .from(pluginInstances)
    .where(and(eq(pluginInstances.organization_id, ctx.orgId), eq(pluginInstances.id, Number(pluginInstanceId))));
  if (!row) throw invalid(`Plugin instance '${String(pluginInstanceId)}' could not be found.`, ['body', 'plugin_instance_id'], 'not_found');
  if (pluginBySlug(row.slug)?.type !== 'workflow')
    throw invalid('The plugin instance must be a workflow engine (http-workflow-engine or step-engine).', ['body', 'plugin_instance_id'], 'value_error');
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
    plugin_instance_id: requiredRef(),
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
    plugin_instance_id: { label: 'Engine', referenceFilter: { plugin_slug: PLUGINS.filter((p) => p.type === 'workflow').map((p) => p.slug) } },
  },
  computed: () => ({
    plugin_instance: sql`(select jsonb_build_object('id', p.id, 'title', p.title, 'slug', p.plugin_slug) from ${pluginInstances} p where p.organization_id = ${outer(workflows, 'organization_id')} and p.id = ${outer(workflows, 'plugin_instance_id')})`,
  }),
  hooks: {
    async beforeCreate(ctx, data) {
      await checkEngine(ctx, data.plugin_instance_id);
      return data;
    },
    async beforeUpdate(ctx, _id, data) {
      await checkEngine(ctx, data.plugin_instance_id);
      return data;
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
