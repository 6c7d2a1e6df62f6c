import { eq, exists, ilike, and, sql } from 'drizzle-orm';
import { bodyOf } from '../engine/body.js';
import { tags, tagTypes } from './tables.js';
import { defineResource } from '../engine/define.js';
import { count, requiredText, text, url } from '../engine/fields.js';
import { idList } from '../engine/definition-kit.js';

export const tagTypeResource = defineResource({
  model: 'TagType',
  label: 'Tag type',
  path: '/tag_types',
  table: tagTypes,
  create: bodyOf(tagTypes, { name: requiredText(100), description: text(2000) }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description'],
  fields: ['name', 'description', 'default', 'exclusive', 'project_id', 'created_at'],
  references: { project_id: 'Project' },
});

export const tagResource = defineResource({
  model: 'Tag',
  label: 'Tag',
  path: '/tags',
  table: tags,
  create: bodyOf(tags, {
    name: requiredText(200),
    source: text(100),
    uri: url(),
    description: text(2000),
    external_id: text(200),
    count: count().optional(),
    /** Terms that also stand for the tag: their occurrence in a text recommends it. */
    terms: idList().optional(),
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
  references: { tag_type_id: 'TagType', terms: 'Term', project_id: 'Project' },
});
