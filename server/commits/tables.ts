import { boolean, integer, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { tenantExtras, trigram } from '../core/db/mixins.js';

export const commits = pgTable(
  'commits',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    project_id: integer(),
    commit_id: text().notNull(),
    commit_message: text(),
    commit_author: text(),
    commit_date: timestamp({ withTimezone: true }),
    repository_url: text(),
    repository_name: text(),
    repository_branch: text(),
    source: text().notNull().default('GitHub'),
    sync_completed: boolean().notNull().default(false),
    sync_completed_at: timestamp({ withTimezone: true }),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('commits', t, [t.commit_date.desc().nullsFirst()]),
    unique('commits_org_repository_commit_unique').on(t.organization_id, t.repository_url, t.commit_id).nullsNotDistinct(),
    trigram('commits', t.organization_id, t.commit_message),
  ],
);

/**
 * Where each repository's sync stands: the ETag of its first page (a 304 costs no rate limit), when
 * it last completed, the rate limit's reset when GitHub said to wait, and the last failure in words.
 */
export const commitSyncs = pgTable(
  'commit_syncs',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    project_id: integer(),
    plugin_instance_id: integer().notNull(),
    repository_url: text().notNull(),
    etag: text(),
    /** The `since` the ETag was answered for: the same URL is asked again only while it holds. */
    since: timestamp({ withTimezone: true }),
    started_at: timestamp({ withTimezone: true }),
    completed_at: timestamp({ withTimezone: true }),
    wait_until: timestamp({ withTimezone: true }),
    error: text(),
    ...timestamps(),
  },
  (t) => [...tenantExtras('commit_syncs', t), unique('commit_syncs_org_repository_unique').on(t.organization_id, t.repository_url)],
);
