import { sql } from 'drizzle-orm';
import { customType, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { organizationId, tenantPolicy } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';

/** Text compared byte by byte: a list's text sort (textSortKey), so an index on it hands rows over in list order. */
const byteOrderedText = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });

/**
 * The words of the `q` fields of every row of a resource declared with `searchIndex`: one row per
 * distinct pair of a word and the word after it (lower case, split at anything that is not a letter
 * or digit: `search_word_pairs()`), each carrying the row's sort key (its lower-cased name). Triggers
 * keep it in step with the resource's table (migration 0017, `search_index_attach`). A search reads
 * the matching rows' ids in name order from here alone, without visiting the table.
 */
export const searchWords = pgTable(
  'search_words',
  {
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    /** The resource's table name, e.g. `tags`. */
    resource: text().notNull(),
    word: text().notNull(),
    /** The word that follows `word` in the text ('' after the last): `redis-fail` needs `fail...` after `...redis`. */
    next_word: byteOrderedText().notNull(),
    /** `lower(<the resource's sort column>)`, in the list's order. */
    sort_key: byteOrderedText().notNull(),
    /** The row's id in the resource's table. */
    id: integer().notNull(),
  },
  (t) => [
    // A row's words, for the triggers' deletes.
    primaryKey({ name: 'search_words_pk', columns: [t.organization_id, t.resource, t.id, t.word, t.next_word] }),
    // A word's rows in list order (sort key, id), index-only.
    index('search_words_match_idx').on(t.organization_id, t.resource, t.word, t.sort_key, t.id),
    // A word followed by a word that starts with ...: the rows of a search with separators.
    index('search_words_pair_idx').on(t.organization_id, t.resource, t.word, t.next_word, t.sort_key, t.id),
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
    // Led by the word, which a search never knows whole, so a list's generic plan finds the words
    // through the trigram index rather than by walking the organization's vocabulary.
    primaryKey({ name: 'search_vocabulary_pk', columns: [t.word, t.organization_id, t.resource] }),
    // Words alone: a trigram's posting list is then short, where one led by the organization would
    // intersect every word the organization has.
    index('search_vocabulary_trgm_idx').using('gin', sql`${t.word} gin_trgm_ops`),
    tenantPolicy('search_vocabulary'),
  ],
);
