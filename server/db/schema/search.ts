import { sql } from 'drizzle-orm';
import { index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { organizationId, tenantPolicy } from './columns.js';
import { organizations } from './core.js';

/**
 * The words of the `q` fields of every row of a resource declared with `searchIndex`, one row per
 * distinct word (lower case, split at anything that is not a letter or digit: `search_tokens()`),
 * each carrying the row's sort key (its lower-cased name). Triggers keep it in step with the
 * resource's table (migration 0017, `search_index_attach`). A search reads the matching rows'
 * ids in name order from here alone, without visiting the table.
 */
export const searchWords = pgTable(
  'search_words',
  {
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    /** The resource's table name, e.g. `tags`. */
    resource: text().notNull(),
    word: text().notNull(),
    /** `lower(<the resource's sort column>)`; lists order it with `collate "C"`. */
    sort_key: text().notNull(),
    /** The row's id in the resource's table. */
    id: integer().notNull(),
  },
  (t) => [
    // Probes "does row id have a word containing ...", and the triggers' deletes.
    primaryKey({ name: 'search_words_pk', columns: [t.organization_id, t.resource, t.id, t.word] }),
    // A word's rows with their sort keys, index-only.
    index('search_words_match_idx').on(t.organization_id, t.resource, t.word, t.sort_key, t.id),
    tenantPolicy('search_words'),
  ],
);

/**
 * Every word `search_words` has held for a resource in an organization: where a search finds which
 * words contain what was typed (trigram index). Words are added, never removed, so a word no row uses
 * any more only costs a lookup that finds no rows.
 */
export const searchVocabulary = pgTable(
  'search_vocabulary',
  {
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    resource: text().notNull(),
    word: text().notNull(),
  },
  (t) => [
    primaryKey({ name: 'search_vocabulary_pk', columns: [t.organization_id, t.resource, t.word] }),
    index('search_vocabulary_trgm_idx').using('gin', t.organization_id, t.resource, sql`${t.word} gin_trgm_ops`),
    tenantPolicy('search_vocabulary'),
  ],
);
