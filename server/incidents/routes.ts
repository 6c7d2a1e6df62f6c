import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { and, eq } from 'drizzle-orm';
import { incidentResources, INCIDENT_ROLES, REPORT_TYPES, STEP_STATUSES } from './tables.js';
import { notFound } from '../core/errors.js';
import { inTenant } from '../core/tenancy.js';
import { email, requiredText, text } from '../engine/fields.js';
import type { Mailer } from '../core/mail.js';
import {
  addComment,
  addCustomEvent,
  addResource,
  createReport,
  deleteEvent,
  listMessages,
  postMessage,
  reportPrefill,
  requestPostmortem,
  updateEvent,
} from './actions.js';
import { EVENT_SOURCES, EVENT_TYPES, loadIncident, TIMELINE_FILTERS, type EventType } from './common.js';
import { incidentResponseCost } from './costs.js';
import { dashboardSummary } from './dashboards.js';
import { incidentForecast, listSteps, similarIncidents, stepSummary, updateStep } from './insights.js';
import { assignRole, joinIncident, renounceRole, setIncidentStatus, STATUS_RIGHT, subscribeIncident, unsubscribeIncident } from './lifecycle.js';
import { HttpError } from '../core/errors.js';
import { fullIncident } from './read.js';
import { createIncidentHandoff, handoffPrefill } from '../oncall/handoffs.js';
import { handoffResource } from '../oncall/resources.js';
import { idOrNameParam, idParam, idValue } from '../engine/crud.js';
import { nestNamed } from '../engine/nested.js';
import { incidentResource } from './resources.js';
import { coercedDate } from '../core/input.js';

const tags = ['Incident'];
const id = idValue;
const date = () => coercedDate();
const eventType = z.enum(Object.keys(EVENT_TYPES) as [EventType, ...EventType[]]);

const reportBodies = {
  tactical: z.strictObject({
    conditions: requiredText(20_000),
    actions: text(20_000).transform((v) => v ?? ''),
    needs: text(20_000).transform((v) => v ?? ''),
  }),
  executive: z.strictObject({
    current_status: requiredText(20_000),
    overview: text(20_000).transform((v) => v ?? ''),
    next_steps: text(20_000).transform((v) => v ?? ''),
  }),
};

const stepPatch = z.strictObject({
  status: z.enum(STEP_STATUSES).optional(),
  notes: text(20_000),
  name: requiredText(200).optional(),
  description: text(5000),
});

/** Incident actions beyond CRUD (spec §7 /iaos and /incident_steps). */
export function registerIncidentRoutes(scope: FastifyInstance, deps: { mailer: Mailer }) {
  const app = scope.withTypeProvider<ZodTypeProvider>();

  app.get('/iaos/timeline/filters', { schema: { tags, summary: 'Timeline filter toggles, their defaults and event types' } }, async () => ({
    filters: TIMELINE_FILTERS,
    event_types: EVENT_TYPES,
    sources: EVENT_SOURCES,
  }));

  app.get(
    '/iaos/metric/forecast',
    {
      schema: {
        tags,
        summary: 'Incidents per month and a forecast',
        querystring: z.strictObject({ months: z.coerce.number().int().min(2).max(120).default(24), ahead: z.coerce.number().int().min(1).max(24).default(3) }),
      },
    },
    (req) => inTenant(req, (ctx) => incidentForecast(ctx, req.query.months, req.query.ahead), { readOnly: true }),
  );

  app.get(
    '/iaos/metric/summary',
    {
      schema: {
        tags,
        summary: 'Dashboard figures: incidents, cases and tasks per month, times to stable and close, cost, people, data sources, feedback ratings',
        querystring: z.strictObject({ since: date().optional(), project_id: id.optional() }),
      },
    },
    (req) =>
      inTenant(req, (ctx) => dashboardSummary(ctx, { since: req.query.since ?? new Date(Date.now() - 365 * 86400_000), projectId: req.query.project_id }), {
        readOnly: true,
      }),
  );

  app.get('/iaos/similar-incidents/:id', { schema: { tags, summary: 'Similar incidents, scored', params: idParam } }, (req) =>
    inTenant(req, (ctx) => similarIncidents(ctx, req.params.id), { readOnly: true }),
  );

  app.get(
    '/iaos/:id',
    {
      schema: {
        tags,
        summary: 'One incident (by id or name, IAO-2) with participants, roles, timeline, tasks, reports, resources, steps and costs',
        params: idOrNameParam,
      },
    },
    async (req) => nestNamed(incidentResource, await inTenant(req, (ctx) => fullIncident(ctx, req.params.id), { oneRound: true })),
  );

  for (const [path, status] of [
    ['stable', 'Stable'],
    ['closed', 'Closed'],
    ['active', 'Active'],
  ] as const) {
    app.post(
      `/iaos/:id/${path}`,
      { schema: { tags, summary: `Mark the incident ${status.toLowerCase()} (${STATUS_RIGHT})`, params: idParam } },
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

  app.post('/iaos/:id/join', { schema: { tags, summary: 'Join the incident as a participant', params: idParam } }, (req) =>
    inTenant(req, async (ctx) => ({ message: await joinIncident(ctx, req.params.id) })),
  );
  app.post('/iaos/:id/subscribe', { schema: { tags, summary: 'Subscribe to tactical report e-mails', params: idParam } }, (req) =>
    inTenant(req, async (ctx) => ({ message: await subscribeIncident(ctx, req.params.id) })),
  );

  app.post('/iaos/:id/unsubscribe', { schema: { tags, summary: 'Stop tactical report e-mails', params: idParam } }, (req) =>
    inTenant(req, async (ctx) => ({ message: await unsubscribeIncident(ctx, req.params.id) })),
  );

  app.post(
    '/iaos/:id/roles',
    { schema: { tags, summary: 'Give a person a role', params: idParam, body: z.strictObject({ email: email(), role: z.enum(INCIDENT_ROLES) }) } },
    (req) =>
      inTenant(req, async (ctx) => {
        await loadIncident(ctx, req.params.id, true);
        const added = await assignRole(ctx, req.params.id, req.body.email, req.body.role);
        return { message: added ? `${req.body.email} is now ${req.body.role}.` : `${req.body.email} already holds the ${req.body.role} role.` };
      }),
  );
  app.post(
    '/iaos/:id/roles/:roleId/renounce',
    { schema: { tags, summary: 'Renounce a role (kept as Inactive)', params: z.object({ id, roleId: id }) } },
    (req) =>
      inTenant(req, async (ctx) => {
        await loadIncident(ctx, req.params.id, true);
        await renounceRole(ctx, req.params.id, req.params.roleId);
        return { message: 'Role renounced.' };
      }),
  );

  app.get('/iaos/:id/report/prefill', { schema: { tags, summary: 'Report dialog defaults (actions from unresolved tasks)', params: idParam } }, (req) =>
    inTenant(req, (ctx) => reportPrefill(ctx, req.params.id)),
  );
  app.post(
    '/iaos/:id/report/:type',
    {
      schema: {
        tags,
        summary: 'Create a tactical or executive report',
        params: z.object({ id, type: z.enum(REPORT_TYPES) }),
        body: z.record(z.string(), z.unknown()),
      },
    },
    async (req, reply) => {
      const parsed = reportBodies[req.params.type].safeParse(req.body);
      if (!parsed.success) {
        const detail = parsed.error.issues.map((i) => ({
          msg: i.code === 'unrecognized_keys' ? `Unknown field '${i.keys.join("', '")}'.` : i.message,
          loc: ['body', ...i.path.map(String)],
          type: i.code,
        }));
        return reply.status(422).send({ detail });
      }
      const { report, mails } = await inTenant(req, (ctx) => createReport(ctx, req.params.id, { type: req.params.type, ...parsed.data } as never));
      // Mail leaves only after the report is committed; a failed delivery does not undo the report.
      const sent = await Promise.allSettled(mails.map((m) => deps.mailer(m)));
      for (const s of sent) if (s.status === 'rejected') req.log.warn({ err: s.reason }, 'report mail failed');
      return reply.status(201).send({
        message: `${req.params.type === 'tactical' ? 'Tactical' : 'Executive'} report created successfully.`,
        report,
        emailed: sent.filter((s) => s.status === 'fulfilled').length,
      });
    },
  );

  app.get(
    '/oncall/handoffs/prefill',
    {
      schema: {
        tags: ['Handoff'],
        summary: "Handoff dialog defaults: the caller's shift, its ongoing incidents (or one incident) and their tasks",
        querystring: z.strictObject({ incident_id: id.optional() }),
      },
    },
    (req) => inTenant(req, (ctx) => handoffPrefill(ctx, req.query.incident_id), { readOnly: true }),
  );
  app.post(
    '/iaos/:id/handoff',
    {
      schema: {
        tags,
        summary: "Record an on-call handoff from the incident (in the incident's project) on its timeline",
        params: idParam,
        body: handoffResource.create,
      },
    },
    async (req, reply) => {
      const handoff = await inTenant(req, (ctx) => createIncidentHandoff(ctx, req.params.id, req.body as Record<string, unknown>));
      return reply.status(201).send({ message: 'Handoff created successfully.', handoff });
    },
  );

  app.post(
    '/iaos/:id/comments/add',
    { schema: { tags, summary: 'Add a comment', params: idParam, body: z.strictObject({ text: requiredText(20_000) }) } },
    async (req, reply) => {
      const comment = await inTenant(req, (ctx) => addComment(ctx, { incident_id: req.params.id }, req.body.text));
      return reply.status(201).send({ message: 'Comment added successfully.', comment });
    },
  );

  app.post(
    '/iaos/:id/add-resource',
    {
      schema: {
        tags,
        summary: 'Attach a document, link or ticket',
        params: idParam,
        body: z.strictObject({ resource_type: requiredText(100), name: requiredText(500), weblink: z.url('Must be a URL').nullish(), description: text(5000) }),
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
    { schema: { tags, summary: "One of the incident's documents (a postmortem, a runbook link) with its content", params: z.object({ id, resourceId: id }) } },
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
    { schema: { tags, summary: 'Build the post-incident review document in the background', params: idParam } },
    async (req, reply) => {
      const message = await inTenant(req, (ctx) => requestPostmortem(ctx, req.params.id));
      return reply.status(202).send({ message });
    },
  );

  const eventBody = {
    description: requiredText(20_000),
    started_at: date().optional(),
    after: date().optional(),
    details: z.record(z.string(), z.unknown()).nullish(),
    pinned: z.boolean().optional(),
    type: eventType.optional(),
    source: z.enum(EVENT_SOURCES).optional(),
  };
  app.post(
    '/iaos/:id/event',
    { schema: { tags, summary: 'Add a timeline event (custom events go 1 s after `after`)', params: idParam, body: z.strictObject(eventBody) } },
    async (req, reply) => {
      const event = await inTenant(req, (ctx) => addCustomEvent(ctx, req.params.id, req.body));
      return reply.status(201).send(event);
    },
  );
  app.patch(
    '/iaos/:id/event',
    {
      schema: {
        tags,
        summary: 'Edit a timeline event (pin, text, time)',
        params: idParam,
        body: z.strictObject({
          id,
          description: requiredText(20_000).optional(),
          started_at: date().optional(),
          details: z.record(z.string(), z.unknown()).nullish(),
          pinned: z.boolean().optional(),
          type: eventType.optional(),
        }),
      },
    },
    (req) =>
      inTenant(req, async (ctx) => {
        const { id: eventId, ...patch } = req.body;
        return updateEvent(ctx, req.params.id, eventId, patch);
      }),
  );
  app.delete(
    '/iaos/:id/event/:eventId',
    { schema: { tags, summary: 'Delete a timeline event', params: z.object({ id, eventId: id }) } },
    async (req, reply) => {
      await inTenant(req, (ctx) => deleteEvent(ctx, req.params.id, req.params.eventId));
      return reply.status(204).send();
    },
  );

  app.get('/iaos/:id/costs', { schema: { tags, summary: 'Response cost from tracked participant activity', params: idParam } }, (req) =>
    inTenant(req, async (ctx) => {
      await loadIncident(ctx, req.params.id);
      return incidentResponseCost(ctx, req.params.id);
    }),
  );

  app.get('/iaos/:id/conversation/messages', { schema: { tags, summary: "The incident conversation's messages", params: idParam } }, (req) =>
    inTenant(req, async (ctx) => ({ items: await listMessages(ctx, req.params.id) })),
  );
  app.post(
    '/iaos/:id/conversation/messages',
    { schema: { tags, summary: 'Post in the incident conversation', params: idParam, body: z.strictObject({ text: requiredText(20_000) }) } },
    async (req, reply) => {
      const message = await inTenant(req, (ctx) => postMessage(ctx, req.params.id, req.body.text));
      return reply.status(201).send(message);
    },
  );

  const stepTags = ['Incident step'];
  app.get('/incident_steps/:id/steps', { schema: { tags: stepTags, summary: "An incident's steps", params: idParam } }, (req) =>
    inTenant(req, async (ctx) => ({ items: await listSteps(ctx, req.params.id) })),
  );
  app.put(
    '/incident_steps/:id/:stepId',
    { schema: { tags: stepTags, summary: 'Update a step', params: z.object({ id, stepId: id }), body: stepPatch.extend({ step: stepPatch.optional() }) } },
    (req) =>
      inTenant(req, (ctx) => {
        const { step, ...direct } = req.body;
        return updateStep(ctx, req.params.id, req.params.stepId, { ...direct, ...step });
      }),
  );
  app.get(
    '/incident_steps/:id/:stepId/ai-summary',
    { schema: { tags: stepTags, summary: "A step's AI summary", params: z.object({ id, stepId: id }) } },
    (req) => inTenant(req, (ctx) => stepSummary(ctx, req.params.id, req.params.stepId)),
  );
}
