import { sql } from 'drizzle-orm';
import { boolean, foreignKey, index, integer, jsonb, pgTable, text, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, tenantPolicy, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { projects } from '../core/db/projects.js';

export const tagTypes = pgTable(
  'tag_types',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    project_id: integer(),
    name: text().notNull(),
    description: text(),
    default: boolean().notNull().default(false),
    exclusive: boolean().notNull().default(false),
    ...timestamps(),
  },
  (t) => [
    unique('tag_types_org_id_unique').on(t.organization_id, t.id),
    unique('tag_types_org_name_unique').on(t.organization_id, t.name),
    foreignKey({ name: 'tag_types_project_fk', columns: [t.organization_id, t.project_id], foreignColumns: [projects.organization_id, projects.id] }).onDelete(
      'cascade',
    ),
    tenantPolicy('tag_types'),
  ],
);

export const tags = pgTable(
  'tags',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    project_id: integer(),
    tag_type_id: integer().notNull(),
    name: text().notNull(),
    source: text().notNull().default('product'),
    uri: text(),
    description: text().notNull().default('Generic tag'),
    count: integer().notNull().default(0),
    external_id: text(),
    discoverable: boolean().notNull().default(true),
    /** Ids of the terms (synonyms, abbreviations) that also stand for this tag in a text. */
    terms: jsonb().$type<number[]>().notNull().default([]),
    ...timestamps(),
  },
  (t) => [
    unique('tags_org_id_unique').on(t.organization_id, t.id),
    unique('tags_org_type_name_unique').on(t.organization_id, t.tag_type_id, t.name),
    // The default sort. The list's facets and the name itself ride along after id, so a page's id
    // window, its count and a `q` walk in name order read no table rows (index-only; PostgreSQL
    // needs the plain column beside the expression for that).
    index('tags_org_name_v2_idx').on(t.organization_id, sql`lower(${t.name}) collate "C"`, t.id, t.tag_type_id, t.source, t.discoverable, t.name),
    // "Most used first" (sortBy=count&descending=true, id ascending breaks ties). NULLS FIRST is what
    // ORDER BY ... DESC means, so the index matches it (NULLS LAST would not, even on a NOT NULL column).
    index('tags_org_count_idx').on(t.organization_id, t.count.desc().nullsFirst(), t.id),
    index('tags_org_terms_idx').using('gin', t.organization_id, t.terms),
    index('tags_org_name_trgm_idx').using('gin', t.organization_id, t.name.op('gin_trgm_ops')),
    foreignKey({ name: 'tags_project_fk', columns: [t.organization_id, t.project_id], foreignColumns: [projects.organization_id, projects.id] }).onDelete(
      'cascade',
    ),
    foreignKey({ name: 'tags_tag_type_fk', columns: [t.organization_id, t.tag_type_id], foreignColumns: [tagTypes.organization_id, tagTypes.id] }),
    tenantPolicy('tags'),
  ],
);
