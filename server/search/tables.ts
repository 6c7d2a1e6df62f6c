import { sql } from 'drizzle-orm';
import { customType, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { organizationId, tenantPolicy } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/** Words as search_split() (migration 0017) cuts them, so stored and typed words always agree. */
const words = (column: string) => sql.raw(`to_tsvector('simple', regexp_replace(lower(${column}), '[^[:alnum:]]+', ' ', 'g'))`);

/**
 * One row per thing global search finds (`GET /search`): an incident, a task, a chat message...
 * Statement triggers on each source table keep it in step inside the writer's own transaction
 * (migration `search_entries`, `search_entries_attach`), so what a request wrote is found by the
 * next one, and a rolled-back write never was. Uploads have one row each (their title, once
 * indexed); their passages are read from `chunks` itself (search/service.ts uploadRows), so an upload
 * writes each passage once.
 */
export const searchEntries = pgTable(
  'search_entries',
  {
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    /** The table the row comes from (`incidents`), and its id there (text: chats have uuids). */
    source: text().notNull(),
    source_id: text().notNull(),
    /** What the results call it: Incident, Conference, Ticket, TextSubmission... */
    type: text().notNull(),
    /** Lower-cased name that a search for it exactly ("iao-42", a host name) puts first; '' for none. */
    key: text().notNull(),
    title: text().notNull(),
    /** The admin screen that opens it, under the organization (`/iaos/IAO-42/view`). */
    link: text().notNull(),
    /** The text the highlighted passage is cut from (capped by the trigger). */
    body: text().notNull(),
    /** The incident and the case the row belongs to: it is visible only where they are. */
    incident_id: integer(),
    case_id: integer(),
    /** Submissions: readable by level (ai/retrieve.ts allowedLevels) or by their uploader. */
    sensitivity_level: text(),
    created_by: integer(),
    /** Private to this user (their AI chats). */
    owner_id: integer(),
    updated_at: timestamp({ withTimezone: true }).notNull(),
    tsv: tsvector()
      .notNull()
      .generatedAlwaysAs(sql`setweight(${words('title')}, 'A') || setweight(${words('body')}, 'B')`),
  },
  (t) => [
    primaryKey({ name: 'search_entries_pk', columns: [t.organization_id, t.source, t.source_id, t.type] }),
    // Organization first (btree_gin): a word common in other organizations costs nothing here.
    index('search_entries_org_tsv_idx').using('gin', t.organization_id, t.tsv),
    index('search_entries_org_key_idx').on(t.organization_id, t.key),
    // The newest matches of a broad search, walked in order and stopped early.
    index('search_entries_org_recent_idx').on(t.organization_id, t.updated_at.desc()),
    // The same within one type (a results page narrowed to it).
    index('search_entries_org_type_recent_idx').on(t.organization_id, t.type, t.updated_at.desc()),
    tenantPolicy('search_entries'),
  ],
);
