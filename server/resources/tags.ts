import { eq, exists, ilike, and, sql } from 'drizzle-orm';
import { z } from 'zod';
import { tags, tagTypes } from '../db/schema/index.js';
import { defineResource } from './define.js';
import { count, flag, ref, requiredRef, requiredText, text, url } from './fields.js';
import { idList } from './common.js';
import { termResource } from './knowledge.js';
import { projectResource } from './projects.js';

export const tagTypeResource = defineResource({
  model: 'TagType',
  label: 'Tag type',
  path: '/tag_types',
  table: tagTypes,
  create: z.strictObject({ name: requiredText(100), description: text(2000), default: flag().optional(), exclusive: flag().optional(), project_id: ref().nullish() }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description'],
  fields: ['name', 'description', 'default', 'exclusive', 'project_id', 'created_at'],
  references: { project_id: () => projectResource },
});

export const tagResource = defineResource({
  model: 'Tag',
  label: 'Tag',
  path: '/tags',
  table: tags,
  create: z.strictObject({
    name: requiredText(200),
    tag_type_id: requiredRef(),
    source: text(100),
    uri: url(),
    description: text(2000),
    external_id: text(200),
    discoverable: flag().optional(),
    count: count().optional(),
    /** Terms that also stand for the tag: their occurrence in a text recommends it. */
    terms: idList().optional(),
    project_id: ref().nullish(),
  }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name'],
  searchIndex: true,
  fields: ['name', 'source', 'uri', 'description', 'count', 'external_id', 'discoverable', 'tag_type_id', 'terms', 'project_id', 'created_at'],
  customFilters: {
    // `{"model": "TagType", "field": "name", ...}`: tags whose type matches.
    'TagType.name': {
      type: 'string',
      ops: ['==', 'ilike'],
      build: (op, value) =>
        exists(
          sql`(select 1 from ${tagTypes} where ${and(eq(tagTypes.organization_id, tags.organization_id), eq(tagTypes.id, tags.tag_type_id), op === '==' ? eq(tagTypes.name, value as string) : ilike(tagTypes.name, value as string))})`,
        ),
    },
  },
  references: { tag_type_id: () => tagTypeResource, terms: () => termResource, project_id: () => projectResource },
});
