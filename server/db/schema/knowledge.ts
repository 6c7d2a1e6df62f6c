import { index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from './columns.js';
import { organizations } from './core.js';
import { evergreenColumns, tenantExtras, trigram } from './mixins.js';

const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });

/** Documents, runbooks, references and templates: the kind is `resource_type`. */
export const documents = pgTable(
  'documents',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    name: text().notNull(),
    resource_type: text(),
    resource_id: text(),
    weblink: text(),
    description: text(),
    filters: jsonb().$type<number[]>().notNull().default([]),
    ...evergreenColumns(),
    ...timestamps(),
  },
  (t) => [...tenantExtras('documents', t, [t.name]), trigram('documents', t.organization_id, t.name), index('documents_org_type_idx').on(t.organization_id, t.resource_type, t.name)],
);
