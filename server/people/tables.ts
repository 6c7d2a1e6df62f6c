import { boolean, integer, jsonb, pgTable, text, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { evergreenColumns, tenantExtras, trigram } from '../core/db/mixins.js';

const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });
/** Search filter ids this object is matched by (checked against the organization's search filters). */
const filters = () => jsonb().$type<number[]>().notNull().default([]);

export const services = pgTable(
  'services',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    name: text().notNull(),
    type: text().notNull().default('pagerduty-oncall'),
    external_id: text(),
    is_active: boolean().notNull().default(true),
    description: text(),
    filters: filters(),
    health_metrics: boolean().notNull().default(false),
    ...evergreenColumns(),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('services', t, [t.name]),
    unique('services_org_project_name_unique').on(t.organization_id, t.project_id, t.name).nullsNotDistinct(),
    trigram('services', t.organization_id, t.name),
  ],
);

export const individuals = pgTable(
  'individuals',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    name: text().notNull(),
    email: text().notNull(),
    company: text(),
    notes: text(),
    title: text(),
    external_id: text(),
    filters: filters(),
    is_external: boolean().notNull().default(false),
    is_active: boolean().notNull().default(true),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('individuals', t, [t.name]),
    unique('individuals_org_project_email_unique').on(t.organization_id, t.project_id, t.email).nullsNotDistinct(),
    trigram('individuals', t.organization_id, t.name),
  ],
);

export const teams = pgTable(
  'teams',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    name: text().notNull(),
    email: text(),
    company: text(),
    notes: text(),
    filters: filters(),
    ...evergreenColumns(),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('teams', t, [t.name]),
    unique('teams_org_project_name_unique').on(t.organization_id, t.project_id, t.name).nullsNotDistinct(),
    trigram('teams', t.organization_id, t.name),
  ],
);
