import { eq, exists, ilike, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { CustomFilter } from '../engine/define.js';
import { anyOf } from '../engine/filters.js';
import { tags } from './tables.js';

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
