import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { and, eq } from 'drizzle-orm';
import { events, comments } from '../timeline/tables.js';
import { incidentResources, INCIDENT_ROLES, incidentSteps, REPORT_TYPES, reports, STEP_STATUSES } from './tables.js';
import { notFound } from '../core/errors.js';
import { inTenant } from '../core/tenancy.js';
import { email, requiredText, text } from '../engine/fields.js';
import type { Mailer } from '../core/mail.js';
import { addResource, createReport, reportPrefill, requestPostmortem } from './actions.js';
import { loadIncident } from './scope.js';
import { incidentResponseCost } from './costs.js';
import { incidentForecast, listSteps, similarIncidents, stepSummary, updateStep } from './insights.js';
import { giveRole, joinIncident, renounceRole, setIncidentStatus, STATUS_RIGHT, subscribeIncident, unsubscribeIncident } from './lifecycle.js';
import { HttpError } from '../core/errors.js';
import { fullIncident } from './read.js';
import { idOrNameParam, idParam, idValue } from '../engine/crud.js';
import { nestNamed } from '../engine/nested.js';
import { incidentResource } from './resources.js';
import {
  answers,
  answersBy,
  arrayOf,
  bool,
  int,
  itemsOf,
  mapOf,
  messageAnswer,
  nullableStr,
  num,
  objectOf,
  recordWith,
  rowOf,
  str,
  type JsonSchema,
} from '../engine/answers.js';

const tags = ['Incident'];
const id = idValue;

const monthCounts = arrayOf(objectOf({ month: str, count: int }));
const list = (description: string): JsonSchema => ({ type: 'array', description, items: { type: 'object' } });
/** GET /iaos/{id}: the incident's record with every part of it. */
const fullIncidentSchema = recordWith(incidentResource, {
  participants: list('Participants, each with its roles'),
  tags: arrayOf(objectOf({ id: int, name: str, tag_type_id: int })),
  tasks: list('Its tasks'),
  cases: list('Its cases the caller may see: id, name, title, status, visibility, reported_at'),
  events: arrayOf(rowOf(events)),
  reports: arrayOf(rowOf(reports)),
  resources: arrayOf(rowOf(incidentResources)),
  steps: arrayOf(rowOf(incidentSteps)),
  incident_costs: list('Stored response costs'),
  comments: arrayOf(rowOf(comments)),
  documents: list('Attached documents'),
  postmortems: list('Post-incident review documents'),
  weblinks: list('Attached links'),
  ticket: { type: 'object', nullable: true },
  storage: { type: 'object', nullable: true },
  statuspage: { type: 'object', nullable: true },
  custom_checklist: { type: 'array', items: {} },
  assignee: { type: 'object', nullable: true, properties: { email: str } },
  workflow_instances: list('Runs of workflows on the incident, with their workflow {id, name}'),
  terms: arrayOf(objectOf({ id: int, text: str })),
  entities: arrayOf(objectOf({ id: int, value: str, entity_type_id: int })),
  subscribed: bool,
  is_participant: bool,
});

const stepPatch = z.strictObject({
  status: z.enum(STEP_STATUSES).optional(),
  notes: text(20_000),
  name: requiredText(200).optional(),
  description: text(5000),
});

/** Incident actions beyond CRUD (spec §7 /iaos and /incident_steps), one register function per kind of action. */
export function registerIncidentRoutes(scope: FastifyInstance, deps: { mailer: Mailer }) {
  registerReadRoutes(scope);
  registerStatusRoutes(scope);
  registerPeopleRoutes(scope);
  registerReportRoutes(scope, deps.mailer);
  registerResourceRoutes(scope);
  registerCostRoute(scope);
  registerStepRoutes(scope);
}

/** The full incident, similar incidents and the monthly forecast. */
function registerReadRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/iaos/metric/forecast',
    {
      schema: {
        tags,
        summary: 'Incidents per month and a forecast',
        querystring: z.strictObject({ months: z.coerce.number().int().min(2).max(120).default(24), ahead: z.coerce.number().int().min(1).max(24).default(3) }),
        ...answers(200, objectOf({ method: str, history: monthCounts, forecast: monthCounts })),
      },
    },
    (req) => inTenant(req, (ctx) => incidentForecast(ctx, req.query.months, req.query.ahead), { readOnly: true }),
  );

  app.get(
    '/iaos/similar-incidents/:id',
    {
      schema: {
        tags,
        summary: 'Similar incidents, scored',
        params: idParam,
        ...answers(
          200,
          itemsOf(objectOf({ id: int, name: str, title: str, status: str, reported_at: str, text_score: num, tag_score: num, score: num }), { method: str }),
        ),
      },
    },
    (req) => inTenant(req, (ctx) => similarIncidents(ctx, req.params.id), { readOnly: true }),
  );

  app.get(
    '/iaos/:id',
    {
      schema: {
        tags,
        summary: 'One incident (by id or name, IAO-2) with participants, roles, timeline, tasks, reports, resources, steps and costs',
        params: idOrNameParam,
        ...answers(200, fullIncidentSchema),
      },
    },
    async (req) => nestNamed(incidentResource, await inTenant(req, (ctx) => fullIncident(ctx, req.params.id), { oneRound: true })),
  );
}

/** Stable, closed, active: each answers the incident as it is after the change (or as someone else left it, 409). */
function registerStatusRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  for (const [path, status] of [
    ['stable', 'Stable'],
    ['closed', 'Closed'],
    ['active', 'Active'],
  ] as const) {
    app.post(
      `/iaos/:id/${path}`,
      {
        schema: {
          tags,
          summary: `Mark the incident ${status.toLowerCase()} (${STATUS_RIGHT})`,
          params: idParam,
          // 409: someone already set the status; the answer carries the incident as it is now.
          ...answersBy({
            200: objectOf({ message: str, incident: fullIncidentSchema }),
            409: objectOf({ detail: { type: 'array' }, incident: fullIncidentSchema }),
          }),
        },
      },
      async (req, reply) => {
        try {
          return await inTenant(req, async (ctx) => {
            const message = await setIncidentStatus(ctx, req.params.id, status);
            return { message, incident: await fullIncident(ctx, req.params.id) };
          });
        } catch (err) {
          // A status someone else already set: the answer carries the incident as it is now, so the page catches up.
          if (!(err instanceof HttpError) || err.statusCode !== 409) throw err;
          return reply.status(409).send({ detail: err.detail, incident: await inTenant(req, (ctx) => fullIncident(ctx, req.params.id), { readOnly: true }) });
        }
      },
    );
  }
}

/** Joining, subscribing and roles. */
function registerPeopleRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.post('/iaos/:id/join', { schema: { tags, summary: 'Join the incident as a participant', params: idParam, ...messageAnswer() } }, (req) =>
    inTenant(req, async (ctx) => ({ message: await joinIncident(ctx, req.params.id) })),
  );
  app.post('/iaos/:id/subscribe', { schema: { tags, summary: 'Subscribe to tactical report e-mails', params: idParam, ...messageAnswer() } }, (req) =>
    inTenant(req, async (ctx) => ({ message: await subscribeIncident(ctx, req.params.id) })),
  );

  app.post('/iaos/:id/unsubscribe', { schema: { tags, summary: 'Stop tactical report e-mails', params: idParam, ...messageAnswer() } }, (req) =>
    inTenant(req, async (ctx) => ({ message: await unsubscribeIncident(ctx, req.params.id) })),
  );

  app.post(
    '/iaos/:id/roles',
    {
      schema: {
        tags,
        summary: 'Give a person a role',
        params: idParam,
        body: z.strictObject({ email: email(), role: z.enum(INCIDENT_ROLES) }),
        ...messageAnswer(),
      },
    },
    (req) =>
      inTenant(req, async (ctx) => {
        const added = await giveRole(ctx, req.params.id, req.body.email, req.body.role);
        return { message: added ? `${req.body.email} is now ${req.body.role}.` : `${req.body.email} already holds the ${req.body.role} role.` };
      }),
  );
  app.post(
    '/iaos/:id/roles/:roleId/renounce',
    { schema: { tags, summary: 'Renounce a role (kept as Inactive)', params: z.object({ id, roleId: id }), ...messageAnswer() } },
    (req) =>
      inTenant(req, async (ctx) => {
        await loadIncident(ctx, req.params.id, true);
        await renounceRole(ctx, req.params.id, req.params.roleId);
        return { message: 'Role renounced.' };
      }),
  );
}

/** Tactical and executive reports, mailed to the subscribers after commit. */
function registerReportRoutes(scope: FastifyInstance, mailer: Mailer) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/iaos/:id/report/prefill',
    {
      schema: {
        tags,
        summary: 'Report dialog defaults (actions from unresolved tasks)',
        params: idParam,
        ...answers(
          200,
          objectOf({
            tactical: objectOf({ conditions: str, actions: str, needs: str }),
            executive: objectOf({ current_status: str, overview: str, next_steps: str }),
          }),
        ),
      },
    },
    (req) => inTenant(req, (ctx) => reportPrefill(ctx, req.params.id)),
  );
  app.post(
    '/iaos/:id/report/:type',
    {
      schema: {
        tags,
        summary: 'Create a tactical or executive report',
        params: z.object({ id, type: z.enum(REPORT_TYPES) }),
        body: z.record(z.string(), z.unknown()),
        ...messageAnswer({ report: rowOf(reports), emailed: int }, 201),
      },
    },
    async (req, reply) => {
      const { report, mails } = await inTenant(req, (ctx) => createReport(ctx, req.params.id, req.params.type, req.body));
      // Mail leaves only after the report is committed; a failed delivery does not undo the report.
      const sent = await Promise.allSettled(mails.map((m) => mailer(m)));
      for (const s of sent) if (s.status === 'rejected') req.log.warn({ err: s.reason }, 'report mail failed');
      return reply.status(201).send({
        message: `${req.params.type === 'tactical' ? 'Tactical' : 'Executive'} report created successfully.`,
        report,
        emailed: sent.filter((s) => s.status === 'fulfilled').length,
      });
    },
  );
}

/** Attached documents, links and tickets, and the postmortem. */
function registerResourceRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/iaos/:id/add-resource',
    {
      schema: {
        tags,
        summary: 'Attach a document, link or ticket',
        params: idParam,
        body: z.strictObject({ resource_type: requiredText(100), name: requiredText(500), weblink: z.url('Must be a URL').nullish(), description: text(5000) }),
        ...messageAnswer({ resource: rowOf(incidentResources) }, 201),
      },
    },
    async (req, reply) => {
      const resource = await inTenant(req, (ctx) => addResource(ctx, req.params.id, req.body));
      return reply.status(201).send({ message: 'Resource added successfully.', resource });
    },
  );

  // A document attached to the incident (the postmortem among them), opened whole with its content.
  app.get(
    '/iaos/:id/resources/:resourceId',
    {
      schema: {
        tags,
        summary: "One of the incident's documents (a postmortem, a runbook link) with its content",
        params: z.object({ id, resourceId: id }),
        ...answers(200, rowOf(incidentResources)),
      },
    },
    (req) =>
      inTenant(
        req,
        async (ctx) => {
          await loadIncident(ctx, req.params.id);
          const [doc] = await ctx.tx
            .select()
            .from(incidentResources)
            .where(
              and(
                eq(incidentResources.organization_id, ctx.orgId),
                eq(incidentResources.incident_id, req.params.id),
                eq(incidentResources.id, req.params.resourceId),
              ),
            );
          if (!doc) throw notFound('Document', req.params.resourceId);
          return doc;
        },
        { readOnly: true },
      ),
  );

  app.post(
    '/iaos/:id/postmortem/create',
    { schema: { tags, summary: 'Build the post-incident review document in the background', params: idParam, ...messageAnswer({}, 202) } },
    async (req, reply) => {
      const message = await inTenant(req, (ctx) => requestPostmortem(ctx, req.params.id));
      return reply.status(202).send({ message });
    },
  );
}

/** The response cost from tracked activity. */
function registerCostRoute(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/iaos/:id/costs',
    {
      schema: {
        tags,
        summary: 'Response cost from tracked participant activity',
        params: idParam,
        ...answers(
          200,
          objectOf({
            hourly_rate: num,
            hours: num,
            amount: num,
            participants: arrayOf(objectOf({ email: str, hours: num, windows: arrayOf(objectOf({ start: str, end: str })) })),
            cost_model: nullableStr,
            response_seconds: mapOf(num, 'Seconds of response each activity kind counts for'),
          }),
        ),
      },
    },
    (req) =>
      inTenant(req, async (ctx) => {
        await loadIncident(ctx, req.params.id);
        return incidentResponseCost(ctx, req.params.id);
      }),
  );
}

/** The incident's checklist steps. */
function registerStepRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const stepTags = ['Incident step'];
  app.get(
    '/incident_steps/:id/steps',
    { schema: { tags: stepTags, summary: "An incident's steps", params: idParam, ...answers(200, itemsOf(rowOf(incidentSteps))) } },
    (req) => inTenant(req, async (ctx) => ({ items: await listSteps(ctx, req.params.id) })),
  );
  app.put(
    '/incident_steps/:id/:stepId',
    {
      schema: {
        tags: stepTags,
        summary: 'Update a step',
        params: z.object({ id, stepId: id }),
        body: stepPatch.extend({ step: stepPatch.optional() }),
        ...answers(200, rowOf(incidentSteps)),
      },
    },
    (req) =>
      inTenant(req, (ctx) => {
        const { step, ...direct } = req.body;
        return updateStep(ctx, req.params.id, req.params.stepId, { ...direct, ...step });
      }),
  );
  app.get(
    '/incident_steps/:id/:stepId/ai-summary',
    {
      schema: {
        tags: stepTags,
        summary: "A step's AI summary",
        params: z.object({ id, stepId: id }),
        ...answers(200, objectOf({ step_id: int, summary: str, method: str })),
      },
    },
    (req) => inTenant(req, (ctx) => stepSummary(ctx, req.params.id, req.params.stepId)),
  );
}
