import { sql } from 'drizzle-orm';
import { check, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { incidentParticipants, incidents } from '../incidents/tables.js';
import { tenantExtras, tenantFk } from '../core/db/mixins.js';
import { individuals, services } from '../people/tables.js';

const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });

export const FEEDBACK_RATINGS = [
  'Very satisfied',
  'Somewhat satisfied',
  'Neither satisfied nor dissatisfied',
  'Somewhat dissatisfied',
  'Very dissatisfied',
] as const;
export const SERVICE_FEEDBACK_RATINGS = ['No effort', 'Little effort', 'Moderate effort', 'Lots of effort', 'Very high effort'] as const;
const inList = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '));

/** A participant's feedback on how an incident was handled. */
export const feedback = pgTable(
  'feedback',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    incident_id: integer(),
    participant_id: integer(),
    rating: text({ enum: FEEDBACK_RATINGS }).notNull(),
    feedback: text(),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('feedback', t, [t.created_at.desc().nullsFirst()]),
    check('feedback_rating_check', sql`${t.rating} in (${inList(FEEDBACK_RATINGS)})`),
    tenantFk('feedback_incident_fk', t.organization_id, t.incident_id, incidents).onDelete('cascade'),
    tenantFk('feedback_participant_fk', t.organization_id, t.participant_id, incidentParticipants).onDelete('cascade'),
  ],
);

/** An on-call individual's feedback on the effort a shift for a service took. */
export const serviceFeedback = pgTable(
  'service_feedback',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    service_id: integer(),
    individual_contact_id: integer(),
    rating: text({ enum: SERVICE_FEEDBACK_RATINGS }).notNull(),
    feedback: text(),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('service_feedback', t, [t.created_at.desc().nullsFirst()]),
    check('service_feedback_rating_check', sql`${t.rating} in (${inList(SERVICE_FEEDBACK_RATINGS)})`),
    tenantFk('service_feedback_service_fk', t.organization_id, t.service_id, services).onDelete('cascade'),
    tenantFk('service_feedback_individual_fk', t.organization_id, t.individual_contact_id, individuals).onDelete('cascade'),
  ],
);
