import { integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { organizationId, tenantPolicy } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';

/**
 * Where each imported record went: (source system, kind, the source's id) to the Firewatch row. A re-run
 * updates the rows it names instead of adding new ones; a run stopped midway finds what it already
 * wrote (the map is written in the same transaction as the rows). Only its key is indexed: nothing
 * looks a row up by its target, and an import writes one entry per record.
 */
export const importMap = pgTable(
  'import_map',
  {
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    source: text().notNull(),
    kind: text().notNull(),
    source_id: text().notNull(),
    target_id: integer().notNull(),
    imported_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organization_id, t.source, t.kind, t.source_id] }), tenantPolicy('import_map')],
);
