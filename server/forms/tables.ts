import { sql } from 'drizzle-orm';
import { boolean, check, integer, jsonb, pgTable, text, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { incidents } from '../incidents/tables.js';
import { tenantExtras, tenantFk } from '../core/db/mixins.js';

const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });
export const FORM_STATUSES = ['Draft', 'Completed'] as const;

/** A form type holds the JSON schema its forms are filled in against. */
export const formTypes = pgTable(
  'form_types',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    name: text().notNull(),
    description: text(),
    enabled: boolean().notNull().default(true),
    form_schema: jsonb().$type<Record<string, unknown>>().notNull(),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('form_types', t, [t.name]),
    unique('form_types_org_project_name_unique').on(t.organization_id, t.project_id, t.name).nullsNotDistinct(),
  ],
);

export const forms = pgTable(
  'forms',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    form_type_id: integer().notNull(),
    incident_id: integer(),
    status: text({ enum: FORM_STATUSES }).notNull().default('Draft'),
    form_data: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    creator: text(),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('forms', t, [t.created_at.desc().nullsFirst()]),
    check('forms_status_check', sql`${t.status} in ('Draft', 'Completed')`),
    tenantFk('forms_form_type_fk', t.organization_id, t.form_type_id, formTypes).onDelete('cascade'),
    tenantFk('forms_incident_fk', t.organization_id, t.incident_id, incidents).onDelete('cascade'),
  ],
);
