import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';

/**
 * The spec's `conversation` and `conference` (§3), beside the stored `conversation_id` and
 * `conference_url`: null until the provisioning job made them, which is what the admin's §4 polls wait for.
 */
export const conversationOf = (organizationId: PgColumn | SQL, conversationId: PgColumn | SQL) =>
  sql`(select jsonb_build_object('id', c.id, 'name', c.name, 'created_at', c.created_at) from conversations c where c.organization_id = ${organizationId} and c.id = ${conversationId})`;

export const conferenceOf = (conferenceUrl: PgColumn | SQL) =>
  sql`(case when ${conferenceUrl} is null then null else jsonb_build_object('weblink', ${conferenceUrl}) end)`;
