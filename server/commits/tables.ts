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
