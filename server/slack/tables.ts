import { boolean, index, integer, jsonb, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { tenantExtras, tenantFk } from '../core/db/mixins.js';
import { pluginInstances } from '../plugins/tables.js';
import { conversations } from '../timeline/tables.js';
import { incidents } from '../incidents/tables.js';
import { cases } from '../cases/tables.js';
import { signalGroups } from '../signals/tables.js';

const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });
const ts = () => timestamp({ withTimezone: true });

/**
 * A Slack workspace installed into an organization through "Add to Slack" (OAuth v2): one per
 * organization and workspace. Its plugin instance (`slack-app`) holds the app's credentials and the
 * bot token, sealed like every plugin secret; this row says which workspace it is and how it fares.
 */
export const slackInstallations = pgTable(
  'slack_installations',
  {
    id: id(),
    organization_id: org(),
    plugin_instance_id: integer().notNull(),
    team_id: text().notNull(),
    team_name: text(),
    enterprise_id: text(),
    app_id: text(),
    bot_user_id: text(),
    scopes: text().array().notNull().default([]),
    installed_by: text(),
    /** Null while installed; set by app_uninstalled or tokens_revoked. */
    uninstalled_at: ts(),
    /** The last `ok:false` Slack answered (method, error, the fix in words), shown as the installation's health. */
    last_error: jsonb().$type<{ method: string; error: string; hint: string; at: string } | null>(),
    last_ok_at: ts(),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('slack_installations', t),
    unique('slack_installations_org_team_unique').on(t.organization_id, t.team_id),
    tenantFk('slack_installations_plugin_fk', t.organization_id, t.plugin_instance_id, pluginInstances).onDelete('cascade'),
  ],
);

/**
 * The Slack channel of an incident or case: its conversation, seen from Slack. What was done there is
 * recorded as it is done, so the channel follows its record (name, topic, card, bookmarks, reports)
 * with nothing asked twice.
 */
export const slackChannels = pgTable(
  'slack_channels',
  {
    id: id(),
    organization_id: org(),
    installation_id: integer().notNull(),
    conversation_id: integer().notNull(),
    incident_id: integer(),
    case_id: integer(),
    channel_id: text().notNull(),
    name: text().notNull(),
    is_private: boolean().notNull(),
    /** The topic set on the channel (the record's name, title and status). */
    topic: text(),
    /** The pinned card's message, updated in place, and a digest of what it shows (unchanged: not sent again). */
    card_ts: text(),
    card_digest: text(),
    /** The record's page and conference are bookmarked. */
    bookmarked: boolean().notNull().default(false),
    /** The links of the record's documents bookmarked so far. */
    documents_bookmarked: text().array().notNull().default([]),
    /** The incident's tactical and executive reports posted so far. */
    reports_posted: integer().array().notNull().default([]),
    /**
     * The job posting the channel's reports now, until when (renewed at each report): one at a time, so
     * two syncs never post them out of order.
     */
    reports_posting_by: text(),
    reports_posting_until: ts(),
    /**
     * The job bringing the rest of what the channel shows up to date (name, topic, people, card,
     * bookmarks), until when: one at a time, so two jobs never post and pin two cards or invite twice.
     */
    following_by: text(),
    following_until: ts(),
    /** People invited (by e-mail) and those without a Slack account, each reported once. */
    invited: text().array().notNull().default([]),
    missing: text().array().notNull().default([]),
    archived_at: ts(),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('slack_channels', t),
    unique('slack_channels_org_channel_unique').on(t.organization_id, t.channel_id),
    unique('slack_channels_org_conversation_unique').on(t.organization_id, t.conversation_id),
    index('slack_channels_org_incident_idx').on(t.organization_id, t.incident_id),
    tenantFk('slack_channels_installation_fk', t.organization_id, t.installation_id, slackInstallations).onDelete('cascade'),
    tenantFk('slack_channels_conversation_fk', t.organization_id, t.conversation_id, conversations).onDelete('cascade'),
    tenantFk('slack_channels_incident_fk', t.organization_id, t.incident_id, incidents).onDelete('cascade'),
    index('slack_channels_org_case_idx').on(t.organization_id, t.case_id),
    tenantFk('slack_channels_case_fk', t.organization_id, t.case_id, cases).onDelete('cascade'),
  ],
);

/**
 * Each delivery Slack made, by its event id (Events API, Socket Mode) or envelope id: the first to
 * insert it handles it, so a retry, or the same event on two sockets, changes nothing.
 */
export const slackDeliveries = pgTable(
  'slack_deliveries',
  {
    id: id(),
    organization_id: org(),
    key: text().notNull(),
    received_at: ts().notNull().defaultNow(),
  },
  (t) => [...tenantExtras('slack_deliveries', t), unique('slack_deliveries_org_key_unique').on(t.organization_id, t.key)],
);

/** A channel message mirrored into the conversation, and the timeline event its 📌 made. */
export const slackMessages = pgTable(
  'slack_messages',
  {
    id: id(),
    organization_id: org(),
    channel_id: text().notNull(),
    ts: text().notNull(),
    conversation_message_id: integer(),
    event_id: integer(),
    ...timestamps(),
  },
  (t) => [...tenantExtras('slack_messages', t), unique('slack_messages_org_channel_ts_unique').on(t.organization_id, t.channel_id, t.ts)],
);

/**
 * The one message a case, or a signal group without a case, has in a channel its definitions name
 * (conversation_target): posted once, then edited in place (chat.update) as signals repeat and the
 * case moves, so a burst of duplicates is one message with a count, not a flood.
 */
export const slackNotices = pgTable(
  'slack_notices',
  {
    id: id(),
    organization_id: org(),
    plugin_instance_id: integer().notNull(),
    /** The channel as the definition names it ("#ops" or an id). */
    target: text().notNull(),
    case_id: integer(),
    signal_group_id: integer(),
    /** Where Slack put it (chat.update takes the channel's id, not its name) and the message's ts; null while it is being posted. */
    channel_id: text(),
    ts: text(),
    /** A digest of what the message shows: unchanged, it is not sent again. */
    digest: text(),
    /** Until when the job posting it holds it: a job that died posting lets it lapse to the next. */
    posting_until: ts(),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('slack_notices', t),
    unique('slack_notices_org_subject_unique').on(t.organization_id, t.plugin_instance_id, t.target, t.case_id, t.signal_group_id).nullsNotDistinct(),
    index('slack_notices_org_case_idx').on(t.organization_id, t.case_id),
    tenantFk('slack_notices_plugin_fk', t.organization_id, t.plugin_instance_id, pluginInstances).onDelete('cascade'),
    tenantFk('slack_notices_case_fk', t.organization_id, t.case_id, cases).onDelete('cascade'),
    tenantFk('slack_notices_group_fk', t.organization_id, t.signal_group_id, signalGroups).onDelete('cascade'),
  ],
);
