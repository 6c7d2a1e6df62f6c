import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { comments, conversationMessages, events } from './tables.js';
import { EVENT_SOURCES, EVENT_TYPES, TIMELINE_FILTERS, type EventType } from './events.js';
import { addComment, addCustomEvent, deleteEvent, listMessages, postMessage, updateEvent } from './actions.js';
import { inTenant } from '../core/tenancy.js';
import { coercedDate } from '../core/input.js';
import { requiredText } from '../engine/fields.js';
import { idParam, idValue } from '../engine/crud.js';
import { answers, arrayOf, bool, itemsOf, mapOf, messageAnswer, objectOf, rowOf, str } from '../engine/answers.js';

const tags = ['Incident'];
const id = idValue;
const date = () => coercedDate();
const eventType = z.enum(Object.keys(EVENT_TYPES) as [EventType, ...EventType[]]);

/** The timeline's routes (under /iaos and /cases, where people read them), one register function per kind of entry. */
export function registerTimelineRoutes(scope: FastifyInstance) {
  registerFilterRoute(scope);
  registerEventRoutes(scope);
  registerCommentRoutes(scope);
  registerConversationRoutes(scope);
}

/** The filter toggles and event vocabulary the timeline view offers. */
function registerFilterRoute(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/iaos/timeline/filters',
    {
      schema: {
        tags,
        summary: 'Timeline filter toggles, their defaults and event types',
        ...answers(
          200,
          objectOf({
            filters: arrayOf(objectOf({ key: str, label: str, default: bool })),
            event_types: mapOf(str, 'Event type -> the filter key that shows it'),
            sources: arrayOf(str),
          }),
        ),
      },
    },
    async () => ({
      filters: TIMELINE_FILTERS,
      event_types: EVENT_TYPES,
      sources: EVENT_SOURCES,
    }),
  );
}

/** Custom events: added, edited (or pinned) and deleted. */
function registerEventRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
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
    {
      schema: {
        tags,
        summary: 'Add a timeline event (custom events go 1 s after `after`)',
        params: idParam,
        body: z.strictObject(eventBody),
        ...answers(201, rowOf(events)),
      },
    },
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
        ...answers(200, rowOf(events)),
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
    { schema: { tags, summary: 'Delete a timeline event', params: z.object({ id, eventId: id }), ...answers(204, null) } },
    async (req, reply) => {
      await inTenant(req, (ctx) => deleteEvent(ctx, req.params.id, req.params.eventId));
      return reply.status(204).send();
    },
  );
}

/** Comments on an incident or a case. */
function registerCommentRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  // The same action on both records it can belong to.
  for (const [path, key, tags] of [
    ['/iaos/:id/comments/add', 'incident_id', ['Incident']],
    ['/cases/:id/comments/add', 'case_id', ['Case']],
  ] as const) {
    app.post(
      path,
      {
        schema: {
          tags: [...tags],
          summary: 'Add a comment',
          params: idParam,
          body: z.strictObject({ text: requiredText(20_000) }),
          ...messageAnswer({ comment: rowOf(comments) }, 201),
        },
      },
      async (req, reply) => {
        const comment = await inTenant(req, (ctx) => addComment(ctx, { [key]: req.params.id }, req.body.text));
        return reply.status(201).send({ message: 'Comment added successfully.', comment });
      },
    );
  }
}

/** The incident's conversation. */
function registerConversationRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/iaos/:id/conversation/messages',
    { schema: { tags, summary: "The incident conversation's messages", params: idParam, ...answers(200, itemsOf(rowOf(conversationMessages))) } },
    (req) => inTenant(req, async (ctx) => ({ items: await listMessages(ctx, req.params.id) })),
  );
  app.post(
    '/iaos/:id/conversation/messages',
    {
      schema: {
        tags,
        summary: 'Post in the incident conversation',
        params: idParam,
        body: z.strictObject({ text: requiredText(20_000) }),
        ...answers(201, rowOf(conversationMessages)),
      },
    },
    async (req, reply) => {
      const message = await inTenant(req, (ctx) => postMessage(ctx, req.params.id, req.body.text));
      return reply.status(201).send(message);
    },
  );
}
