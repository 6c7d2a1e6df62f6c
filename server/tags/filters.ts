import { eq, exists, ilike, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { CustomFilter } from '../engine/define.js';
import { anyOf } from '../engine/filters.js';
import { tags, tagTypes } from './tables.js';

/**
 * `{"model": "Tag", "field": "name"|"id", ...}` on a tagged record (an incident, a case) through its
 * link table, as one EXISTS.
 */
export function tagFilter(
  link: PgTable & { organization_id: PgColumn; tag_id: PgColumn },
  ownerColumn: PgColumn,
  parent: { organization_id: PgColumn; id: PgColumn },
  field: 'name' | 'id',
): CustomFilter {
  return {
    type: field === 'id' ? 'number' : 'string',
    ops: field === 'id' ? ['==', 'in'] : ['==', 'in', 'ilike'],
    build: (op, value) => {
      const match =
        field === 'id'
          ? op === 'in'
            ? anyOf(tags.id, value as number[])
            : eq(tags.id, value as number)
          : op === 'in'
            ? anyOf(tags.name, value as string[])
            : op === 'ilike'
              ? ilike(tags.name, value as string)
              : eq(tags.name, value as string);
      return exists(
        sql`(select 1 from ${link} join ${tags} on ${tags.organization_id} = ${link.organization_id} and ${tags.id} = ${link.tag_id} where ${link.organization_id} = ${parent.organization_id} and ${ownerColumn} = ${parent.id} and ${match})`,
      );
    },
  };
}

/** `{"model": "TagType", "field": "name", ...}`: the record has a tag of that type. */
function tagTypeFilter(
  link: PgTable & { organization_id: PgColumn; tag_id: PgColumn },
  ownerColumn: PgColumn,
  parent: { organization_id: PgColumn; id: PgColumn },
): CustomFilter {
  return {
    type: 'string',
    ops: ['==', 'in'],
    build: (op, v) =>
      exists(
        sql`(select 1 from ${link} join ${tags} on ${tags.organization_id} = ${link.organization_id} and ${tags.id} = ${link.tag_id} join ${tagTypes} on ${tagTypes.organization_id} = ${tags.organization_id} and ${tagTypes.id} = ${tags.tag_type_id} where ${link.organization_id} = ${parent.organization_id} and ${ownerColumn} = ${parent.id} and ${op === 'in' ? anyOf(tagTypes.name, v as string[]) : eq(tagTypes.name, v as string)})`,
      ),
  };
}

/** The tag filters of a tagged record (Tag.name, Tag.id, TagType.name), the same for incidents and cases. */
export function tagFilters(
  link: PgTable & { organization_id: PgColumn; tag_id: PgColumn },
  ownerColumn: PgColumn,
  parent: { organization_id: PgColumn; id: PgColumn },
) {
  return {
    'Tag.name': tagFilter(link, ownerColumn, parent, 'name'),
    'Tag.id': tagFilter(link, ownerColumn, parent, 'id'),
    'TagType.name': tagTypeFilter(link, ownerColumn, parent),
  };
}
