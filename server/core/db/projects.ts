import { foreignKey, index, integer, jsonb, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, tenantPolicy, timestamps } from './columns.js';
import { organizations, users } from './tables.js';

export const projects = pgTable(
  'projects',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text(),
    color: text().notNull().default('#0077B6'),
    custom_ttp_patterns: jsonb().$type<string[]>().notNull().default([]),
    annual_employee_cost: integer().notNull().default(50000),
    business_year_hours: integer().notNull().default(2080),
    owner_email: text(),
    owner_conversation: text(),
    ...timestamps(),
  },
  (t) => [
    unique('projects_org_id_unique').on(t.organization_id, t.id),
    unique('projects_org_name_unique').on(t.organization_id, t.name),
    tenantPolicy('projects'),
  ],
);

/** Script credentials: the secret is shown once; only its SHA-256 is kept. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    project_id: integer().notNull(),
    description: text(),
    key_prefix: text().notNull(),
    key_hash: text().notNull(),
    created_by: integer().references(() => users.id, { onDelete: 'set null' }),
    last_used_at: timestamp({ withTimezone: true }),
    ...timestamps(),
  },
  (t) => [
    unique('api_keys_org_hash_unique').on(t.organization_id, t.key_hash),
    index('api_keys_org_project_idx').on(t.organization_id, t.project_id),
    foreignKey({ name: 'api_keys_project_fk', columns: [t.organization_id, t.project_id], foreignColumns: [projects.organization_id, projects.id] }).onDelete(
      'cascade',
    ),
    tenantPolicy('api_keys'),
  ],
);
