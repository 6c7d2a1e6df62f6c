import { integer, jsonb, pgTable, text, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { tenantExtras } from '../core/db/mixins.js';

/** An incident's incident on a public status page (one each): what was said there last, and its link. */
export const statusPosts = pgTable(
  'status_posts',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    incident_id: integer().notNull(),
    plugin_instance_id: integer().notNull(),
    /** The status page's id of it; null until the first post went through. */
    page_incident_id: text(),
    weblink: text(),
    /** investigating, identified, monitoring or resolved. */
    status: text(),
    name: text(),
    body: text(),
    components: jsonb().$type<Record<string, string>>().notNull().default({}),
    error: text(),
    ...timestamps(),
  },
  (t) => [...tenantExtras('status_posts', t), unique('status_posts_org_incident_unique').on(t.organization_id, t.incident_id)],
);
