import { sql } from 'drizzle-orm';
import { boolean, check, integer, jsonb, pgTable, text, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { evergreenColumns, tenantExtras } from '../core/db/mixins.js';

const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });

export const NOTIFICATION_TYPES = ['conversation', 'email'] as const;
export const SEARCH_FILTER_SUBJECTS = ['incident', 'case'] as const;

export const notifications = pgTable(
  'notifications',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    name: text().notNull(),
    description: text(),
    type: text({ enum: NOTIFICATION_TYPES }).notNull().default('conversation'),
    /** A channel name or an e-mail address, by type. */
    target: text().notNull(),
    enabled: boolean().notNull().default(true),
    /** Search filter ids whose matches are sent here. */
    filters: jsonb().$type<number[]>().notNull().default([]),
    ...evergreenColumns(),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('notifications', t, [t.name]),
    check('notifications_type_check', sql`${t.type} in ('conversation', 'email')`),
    unique('notifications_org_project_name_unique').on(t.organization_id, t.project_id, t.name).nullsNotDistinct(),
  ],
);

/**
 * A saved filter over incidents or cases, in the list filter grammar. Individuals, services, teams
 * and notifications name the filters they follow (their `filters` lists).
 */
export const searchFilters = pgTable(
  'search_filters',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    name: text().notNull(),
    description: text(),
    expression: jsonb().$type<unknown>().notNull(),
    type: text(),
    subject: text({ enum: SEARCH_FILTER_SUBJECTS }).notNull().default('incident'),
    enabled: boolean().notNull().default(true),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('search_filters', t, [t.name]),
    check('search_filters_subject_check', sql`${t.subject} in ('incident', 'case')`),
    unique('search_filters_org_project_name_unique').on(t.organization_id, t.project_id, t.name).nullsNotDistinct(),
  ],
);
