import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { bodyOf } from '../engine/body.js';
import { FEEDBACK_RATINGS, feedback, SERVICE_FEEDBACK_RATINGS, serviceFeedback } from './tables.js';
import { incidentParticipants, incidents } from '../incidents/tables.js';
import { invalid } from '../core/errors.js';
import { fieldsOf, mustExist, outer } from '../engine/definition-kit.js';
import { defineResource } from '../engine/define.js';
import { type RequestContext } from '../core/context.js';
import { text } from '../engine/fields.js';

/** The participant must belong to the feedback's incident. */
async function checkFeedbackLinks(ctx: RequestContext, data: Record<string, unknown>, current?: { incident_id: number | null; participant_id: number | null }) {
  await mustExist(ctx, incidents, data.incident_id, 'Incident', 'incident_id');
  await mustExist(ctx, incidentParticipants, data.participant_id, 'Participant', 'participant_id');
  const incidentId = data.incident_id !== undefined ? data.incident_id : current?.incident_id;
  const participantId = data.participant_id !== undefined ? data.participant_id : current?.participant_id;
  if (participantId == null) return data;
  const [p] = await ctx.tx
    .select({ incident_id: incidentParticipants.incident_id })
    .from(incidentParticipants)
    .where(and(eq(incidentParticipants.id, participantId as number), eq(incidentParticipants.organization_id, ctx.orgId)));
  if (p && incidentId != null && p.incident_id !== incidentId) throw invalid('The participant did not take part in this incident.', ['body', 'participant_id']);
  return incidentId == null && p ? { ...data, incident_id: p.incident_id } : data;
}

export const feedbackResource = defineResource({
  model: 'Feedback',
  label: 'Feedback',
  path: '/feedback',
  table: feedback,
  create: bodyOf(feedback, { rating: z.enum(FEEDBACK_RATINGS, { error: `Rating must be one of ${FEEDBACK_RATINGS.join(', ')}` }), feedback: text(10_000) }),
  pageSize: 10,
  sort: [['created_at', 'desc']],
  search: ['feedback', 'rating'],
  fields: fieldsOf(feedback),
  labelPlural: 'Feedback',
  fieldMeta: { incident_id: { reference: 'Incident' } },
  references: { project_id: 'Project' },
  // The spec's participant, as Dispatch nests one (who gave the feedback): `{id, individual: {email, name}}`.
  computed: () => ({
    participant: sql`(select json_build_object('id', p.id, 'individual', json_build_object('email', p.email, 'name', p.name))
      from ${incidentParticipants} p where p.organization_id = ${outer(feedback, 'organization_id')} and p.id = ${outer(feedback, 'participant_id')})`,
  }),
  answerOnly: ['participant'],
  hooks: {
    beforeCreate: (ctx, data) => checkFeedbackLinks(ctx, data),
    async beforeUpdate(ctx, id, data) {
      const [current] = await ctx.tx
        .select({ incident_id: feedback.incident_id, participant_id: feedback.participant_id })
        .from(feedback)
        .where(and(eq(feedback.id, id), eq(feedback.organization_id, ctx.orgId)));
      return checkFeedbackLinks(ctx, data, current);
    },
  },
});

export const serviceFeedbackResource = defineResource({
  model: 'ServiceFeedback',
  label: 'Service feedback',
  path: '/servicefeedback',
  table: serviceFeedback,
  create: bodyOf(serviceFeedback, {
    rating: z.enum(SERVICE_FEEDBACK_RATINGS, { error: `Rating must be one of ${SERVICE_FEEDBACK_RATINGS.join(', ')}` }),
    feedback: text(10_000),
  }),
  pageSize: 10,
  sort: [['created_at', 'desc']],
  search: ['feedback', 'rating'],
  fields: fieldsOf(serviceFeedback),
  labelPlural: 'Service feedback',
  references: { project_id: 'Project', service_id: 'Service', individual_contact_id: 'IndividualContact' },
});
