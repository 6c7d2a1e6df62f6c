import { systemActor } from '../core/context.js';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { workflowInstances, workflows } from './tables.js';
import { applyReport, startRun } from './engine.js';
import { httpError, invalid, notFound } from '../core/errors.js';
import { inTenant, runInTenant } from '../core/tenancy.js';
import { idParam, getRecord } from '../engine/crud.js';
import { ref, text } from '../engine/fields.js';
import { loadCase } from '../cases/scope.js';
import { loadIncident } from '../incidents/scope.js';
import { callerEmail } from '../core/caller.js';
import { recordPluginEvent } from '../plugins/runtime.js';
import { capabilityOf, loadPlugin } from '../plugins/registry.js';
import { BUILT_IN_ENGINE, builtInEngine, NO_STEPS_MESSAGE, workflowInstanceResource } from './resources.js';
import { answers, bool, objectOf, recordAnswer } from '../engine/answers.js';

const tags = ['Workflow'];
const idOrObject = z.union([ref(), z.object({ id: ref() })]).nullish();
const idOf = (v: number | { id: number } | null | undefined) => (v === null || v === undefined ? undefined : typeof v === 'number' ? v : v.id);

/** Spec §7 /workflows: a manual run, and the HTTP engine's callback. */
export function registerWorkflowRoutes(scope: FastifyInstance) {
  registerRunRoutes(scope);
  registerEngineCallbackRoute(scope);
}

/** A manual run, and the engine the run form preselects. */
function registerRunRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();

  // The form's engine preselection: the built-in step engine instance, made on first need.
  app.post(
    '/workflows/default_engine',
    {
      schema: {
        tags,
        summary: "The organization's built-in step engine instance (made if missing): where a workflow without an engine runs",
        ...answers(200, objectOf({ id: { type: 'integer' }, title: { type: 'string' } })),
      },
    },
    async (req) => inTenant(req, async (ctx) => ({ id: await builtInEngine(ctx), title: 'Built-in step engine' })),
  );

  app.post(
    '/workflows/:id/run',
    {
      schema: {
        tags,
        summary: 'Run a workflow on an incident or case; poll GET /workflows/instances/{id} until Completed or Failed',
        params: idParam,
        body: z.strictObject({
          run_reason: text(2000),
          parameters: z
            .union([
              z.record(z.string(), z.string().max(5000)),
              z.array(z.strictObject({ key: z.string().min(1).max(100), value: z.string().max(5000) })).max(100),
            ])
            .optional(),
          incident_id: ref().nullish(),
          case_id: ref().nullish(),
          signal_id: ref().nullish(),
          incident: idOrObject,
          case: idOrObject,
          signal: idOrObject,
          workflow: z.unknown().optional(),
        }),
        ...recordAnswer(workflowInstanceResource, 201),
      },
    },
    async (req, reply) => {
      const b = req.body;
      const instance = await inTenant(req, async (ctx) => {
        const [workflow] = await ctx.tx
          .select()
          .from(workflows)
          .where(and(eq(workflows.organization_id, ctx.orgId), eq(workflows.id, req.params.id)));
        if (!workflow) throw notFound('Workflow', req.params.id);
        if (!workflow.steps.length && (await loadPlugin(ctx, workflow.plugin_instance_id))?.slug === BUILT_IN_ENGINE)
          throw invalid(NO_STEPS_MESSAGE, ['path', 'id'], 'value_error');
        if (!workflow.enabled) throw httpError(409, `Workflow ${workflow.name} is disabled.`, 'conflict');
        const incident_id = b.incident_id ?? idOf(b.incident);
        const case_id = b.case_id ?? idOf(b.case);
        if (incident_id)
          await loadIncident(ctx, incident_id).catch(() =>
            Promise.reject(invalid(`Incident '${incident_id}' could not be found.`, ['body', 'incident_id'], 'not_found')),
          );
        if (case_id)
          await loadCase(ctx, case_id).catch(() => Promise.reject(invalid(`Case '${case_id}' could not be found.`, ['body', 'case_id'], 'not_found')));
        const parameters = Array.isArray(b.parameters) ? Object.fromEntries(b.parameters.map((p) => [p.key, p.value])) : b.parameters;
        const row = await startRun(
          ctx,
          workflow,
          { incident_id, case_id, signal_id: b.signal_id ?? idOf(b.signal) },
          { run_reason: b.run_reason, parameters, trigger: 'manual', creator: await callerEmail(ctx) },
        );
        return getRecord(workflowInstanceResource, ctx, row.id);
      });
      return reply.status(201).send(instance);
    },
  );
}

/** The HTTP engine's signed report on a run. */
function registerEngineCallbackRoute(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  // The engine's report is verified against the raw body it signed, so this route reads the body as text.
  void app.register(async (raw) => {
    raw.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    raw.post(
      '/workflows/instances/:id/callback',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'HTTP engine callback: {status, reason?, artifacts?}, signed as Standard Webhooks with the engine secret',
          ...answers(200, objectOf({ accepted: bool }, 'Whether the report changed the run (false: it had already ended)')),
        },
      },
      async (req) => {
        const id = Number((req.params as { id: string }).id);
        const body = typeof req.body === 'string' ? req.body : '';
        if (!Number.isInteger(id) || id <= 0) throw invalid('The id must be a whole number.', ['path', 'id']);
        const result = await runInTenant(req.server.db, req.server.config, systemActor({ orgId: req.org.id, orgSlug: req.org.slug }), async (ctx) => {
          const [instance] = await ctx.tx
            .select()
            .from(workflowInstances)
            .where(and(eq(workflowInstances.organization_id, ctx.orgId), eq(workflowInstances.id, id)));
          const [workflow] = instance
            ? await ctx.tx
                .select()
                .from(workflows)
                .where(and(eq(workflows.organization_id, ctx.orgId), eq(workflows.id, instance.workflow_id)))
            : [];
          const plugin = workflow ? await loadPlugin(ctx, workflow.plugin_instance_id) : null;
          // Unknown run and bad signature answer alike, so the route tells nothing to a stranger.
          if (!instance || !plugin || !capabilityOf(plugin, 'verify_run_callback')?.(plugin, req.headers, body)) {
            throw httpError(401, 'The callback signature does not match.', 'unauthorized');
          }
          let report: Record<string, unknown>;
          try {
            report = JSON.parse(body) as Record<string, unknown>;
          } catch {
            throw invalid('The body must be JSON.', ['body']);
          }
          const changed = await applyReport(ctx, id, report);
          await recordPluginEvent(ctx, plugin, {
            name: 'Callback received',
            description: `Status ${String(report.status)}`,
            incident_id: instance.incident_id,
            case_id: instance.case_id,
            workflow_instance_id: id,
          });
          return changed;
        });
        return { accepted: result };
      },
    );
  });
}
