import { boolean, index, integer, jsonb, pgTable, text, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { evergreenColumns, tenantExtras, trigram } from '../core/db/mixins.js';

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
  (t) => [
    ...tenantExtras('documents', t, [t.name]),
    trigram('documents', t.organization_id, t.name),
    index('documents_org_type_idx').on(t.organization_id, t.resource_type, t.name),
  ],
);

export const terms = pgTable(
  'terms',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    text: text().notNull(),
    count: integer().notNull().default(0),
    discoverable: boolean().notNull().default(true),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('terms', t, [t.text]),
    unique('terms_org_project_text_unique').on(t.organization_id, t.project_id, t.text).nullsNotDistinct(),
    trigram('terms', t.organization_id, t.text),
  ],
);

export const definitions = pgTable(
  'definitions',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    text: text().notNull(),
    /** Ids of the terms this definition explains. */
    terms: jsonb().$type<number[]>().notNull().default([]),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('definitions', t, [t.text]),
    index('definitions_org_terms_idx').using('gin', t.organization_id, t.terms),
    trigram('definitions', t.organization_id, t.text),
  ],
);

export const bestPractices = pgTable(
  'best_practices',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    name: text().notNull(),
    description: text(),
    url: text(),
    count: integer().notNull().default(0),
    ...timestamps(),
  },
  (t) => [...tenantExtras('best_practices', t, [t.count.desc().nullsFirst()]), trigram('best_practices', t.organization_id, t.name)],
);

export const weblinks = pgTable(
  'weblinks',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    url: text().notNull(),
    title: text(),
    description: text(),
    count: integer().notNull().default(0),
    ...timestamps(),
  },
  (t) => [...tenantExtras('weblinks', t, [t.count.desc().nullsFirst()]), trigram('weblinks', t.organization_id, t.title)],
);
