import { integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { tenantExtras } from '../core/db/mixins.js';

/** A key result: progress is current / target, capped at 1. */
export interface KeyResult {
  title: string;
  target: number;
  current: number;
}

export const okrs = pgTable(
  'okrs',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    project_id: integer(),
    title: text().notNull(),
    description: text(),
    key_results: jsonb().$type<KeyResult[]>().notNull().default([]),
    ...timestamps(),
  },
  (t) => [...tenantExtras('okrs', t, [t.title])],
);
