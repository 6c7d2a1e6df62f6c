import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, tenantPolicy, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { tenantExtras, tenantFk } from '../core/db/mixins.js';
import { teams } from '../people/tables.js';

const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });
const ts = () => timestamp({ withTimezone: true });

export const oncallHandoffs = pgTable(
  'oncall_handoffs',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    handover_from: text().notNull(),
    handover_to: text().notNull(),
    start_time: ts(),
    end_time: ts(),
    shift_type: text(),
    location_type: text(),
    location_details: text(),
    critical_ongoing_issues: text(),
    tasks_completed: text(),
    pending_tasks: text(),
    mentions: text(),
    tools_and_access: text(),
    feedback: text(),
    handoff_completed: boolean().notNull().default(false),
    handoff_completed_at: ts(),
    ...timestamps(),
  },
  (t) => [...tenantExtras('oncall_handoffs', t, [t.end_time.desc().nullsFirst()])],
);

export const oncallPreshiftPreps = pgTable(
  'oncall_preshift_preps',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    handover_to: text().notNull(),
    shift_type: text(),
    location_type: text(),
    sent: boolean().notNull().default(false),
    sent_at: ts(),
    accepted: boolean().notNull().default(false),
    accepted_at: ts(),
    handshake_completed: boolean().notNull().default(false),
    handshake_completed_at: ts(),
    /** Sent by the schedule for the shift starting at shift_start (null: made by hand). */
    schedule_id: integer(),
    shift_start: ts(),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('oncall_preshift_preps', t, [t.sent_at.desc().nullsFirst()]),
    unique('oncall_preshift_preps_org_shift_unique').on(t.organization_id, t.schedule_id, t.shift_start, t.handover_to),
  ],
);

/** A layer (rotation) of a schedule; see schedule-math.ts for what each field means. */
export interface LayerSpec {
  name: string;
  /** The first hand-off, as wall time in the schedule's time zone: `YYYY-MM-DDTHH:MM`. */
  start: string;
  rotation: 'daily' | 'weekly' | 'custom';
  /** Days (daily), weeks (weekly) or hours (custom) per shift. */
  length: number;
  members: string[];
  /** When set, the layer only covers these windows (weekday 1 = Monday … 7, wall times); else always. */
  restrictions?: { days: number[]; start: string; end: string }[];
  /** Wall time after which the layer stops, if any. */
  end?: string | null;
}

export interface StepTarget {
  type: 'schedule' | 'person' | 'team' | 'team_all';
  id?: number;
  email?: string;
}
export interface PolicyStep {
  timeout_minutes: number;
  targets: StepTarget[];
}

export const oncallSchedules = pgTable(
  'oncall_schedules',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    name: text().notNull(),
    description: text(),
    time_zone: text().notNull().default('UTC'),
    layers: jsonb().$type<LayerSpec[]>().notNull().default([]),
    /** Minutes before a shift starts that its person gets the pre-shift prep. */
    prep_lead_minutes: integer().notNull().default(60),
    /** The secret of the schedule's iCal feed URL. */
    feed_token: text().notNull(),
    external_id: text(),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('oncall_schedules', t, [t.name]),
    unique('oncall_schedules_feed_token_unique').on(t.feed_token),
    unique('oncall_schedules_org_external_unique').on(t.organization_id, t.external_id),
  ],
);

export const oncallOverrides = pgTable(
  'oncall_overrides',
  {
    id: id(),
    organization_id: org(),
    schedule_id: integer().notNull(),
    email: text().notNull(),
    start_at: ts().notNull(),
    end_at: ts().notNull(),
    note: text(),
    external_id: text(),
    ...timestamps(),
  },
  (t) => [
    unique('oncall_overrides_org_id_unique').on(t.organization_id, t.id),
    index('oncall_overrides_org_schedule_idx').on(t.organization_id, t.schedule_id, t.end_at),
    unique('oncall_overrides_org_external_unique').on(t.organization_id, t.external_id),
    tenantFk('oncall_overrides_schedule_fk', t.organization_id, t.schedule_id, oncallSchedules).onDelete('cascade'),
    check('oncall_overrides_order_check', sql`${t.end_at} > ${t.start_at}`),
    tenantPolicy('oncall_overrides'),
  ],
);

export const oncallEscalationPolicies = pgTable(
  'oncall_escalation_policies',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    name: text().notNull(),
    description: text(),
    steps: jsonb().$type<PolicyStep[]>().notNull().default([]),
    /** Times the whole policy runs again after its last step when nobody acknowledged. */
    repeat: integer().notNull().default(0),
    external_id: text(),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('oncall_escalation_policies', t, [t.name]),
    unique('oncall_escalation_policies_org_external_unique').on(t.organization_id, t.external_id),
  ],
);

/** Who belongs to a team for paging ("notify all of a team"); the team itself is people's. */
export const oncallTeamMembers = pgTable(
  'oncall_team_members',
  {
    organization_id: org(),
    team_id: integer().notNull(),
    email: text().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organization_id, t.team_id, t.email] }),
    tenantFk('oncall_team_members_team_fk', t.organization_id, t.team_id, teams).onDelete('cascade'),
    tenantPolicy('oncall_team_members'),
  ],
);

export const PAGE_STATES = ['triggered', 'acknowledged', 'resolved'] as const;

/** A page: one alert to people, escalating through its steps until acknowledged; one per key. */
export const oncallPages = pgTable(
  'oncall_pages',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    key: text().notNull(),
    title: text().notNull(),
    details: text(),
    service_id: integer(),
    escalation_policy_id: integer(),
    incident_id: integer(),
    case_id: integer(),
    /** The plugin that carries it: `firewatch-oncall` (escalated here) or another on-call plugin's slug. */
    provider: text().notNull().default('firewatch-oncall'),
    plugin_instance_id: integer(),
    external_id: text(),
    state: text({ enum: PAGE_STATES }).notNull().default('triggered'),
    /** The policy's steps as they were when it was triggered. */
    steps: jsonb().$type<PolicyStep[]>().notNull().default([]),
    repeat: integer().notNull().default(0),
    /** The step last notified (-1: none yet) and in which round. */
    step: integer().notNull().default(-1),
    round: integer().notNull().default(0),
    /** The step due next and when; null when nothing is left to do. */
    next_step: integer(),
    next_round: integer(),
    next_at: ts(),
    acknowledged_by: text(),
    acknowledged_at: ts(),
    resolved_by: text(),
    resolved_at: ts(),
    ...timestamps(),
  },
  (t) => [
    unique('oncall_pages_org_id_unique').on(t.organization_id, t.id),
    unique('oncall_pages_org_key_unique').on(t.organization_id, t.key),
    index('oncall_pages_org_created_idx').on(t.organization_id, t.created_at.desc(), t.id),
    index('oncall_pages_org_due_idx')
      .on(t.organization_id, t.next_at)
      .where(sql`${t.state} = 'triggered' and ${t.next_at} is not null`),
    index('oncall_pages_org_incident_idx').on(t.organization_id, t.incident_id),
    index('oncall_pages_org_case_idx').on(t.organization_id, t.case_id),
    check('oncall_pages_state_check', sql`${t.state} in ('triggered', 'acknowledged', 'resolved')`),
    tenantPolicy('oncall_pages'),
  ],
);

export const CHANNEL_KINDS = ['email', 'ntfy', 'sms', 'voice', 'webhook', 'slack'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/** One way to reach a person, with its rule: how many minutes into a step it is used. */
export const oncallChannels = pgTable(
  'oncall_channels',
  {
    id: id(),
    organization_id: org(),
    email: text().notNull(),
    kind: text({ enum: CHANNEL_KINDS }).notNull(),
    /** E-mail address, ntfy topic, phone number (E.164), webhook URL or Slack user id. */
    address: text().notNull(),
    delay_minutes: integer().notNull().default(0),
    enabled: boolean().notNull().default(true),
    last_tested_at: ts(),
    ...timestamps(),
  },
  (t) => [
    unique('oncall_channels_org_id_unique').on(t.organization_id, t.id),
    index('oncall_channels_org_email_idx').on(t.organization_id, t.email),
    check('oncall_channels_delay_check', sql`${t.delay_minutes} >= 0`),
    tenantPolicy('oncall_channels'),
  ],
);

/** Each message a page's step sends to one person on one channel: the unique key keeps a step from sending twice. */
export const oncallNotifications = pgTable(
  'oncall_notifications',
  {
    id: id(),
    organization_id: org(),
    page_id: integer().notNull(),
    step: integer().notNull(),
    round: integer().notNull(),
    email: text().notNull(),
    /** 0: the person's address by e-mail (they have no channel). */
    channel_id: integer().notNull().default(0),
    kind: text({ enum: CHANNEL_KINDS }).notNull(),
    status: text().notNull().default('queued'),
    due_at: ts().notNull(),
    sent_at: ts(),
    error: text(),
    ...timestamps(),
  },
  (t) => [
    unique('oncall_notifications_once').on(t.organization_id, t.page_id, t.step, t.round, t.email, t.channel_id),
    tenantFk('oncall_notifications_page_fk', t.organization_id, t.page_id, oncallPages).onDelete('cascade'),
    tenantPolicy('oncall_notifications'),
  ],
);

/** Acknowledge and resolve links sent by e-mail: single use, expiring, stored as hashes. */
export const oncallPageTokens = pgTable(
  'oncall_page_tokens',
  {
    id: id(),
    organization_id: org(),
    page_id: integer().notNull(),
    email: text().notNull(),
    action: text({ enum: ['acknowledge', 'resolve'] }).notNull(),
    token_hash: text().notNull(),
    expires_at: ts().notNull(),
    used_at: ts(),
    created_at: ts().notNull().defaultNow(),
  },
  (t) => [
    unique('oncall_page_tokens_org_hash_unique').on(t.organization_id, t.token_hash),
    tenantFk('oncall_page_tokens_page_fk', t.organization_id, t.page_id, oncallPages).onDelete('cascade'),
    tenantPolicy('oncall_page_tokens'),
  ],
);

/** A person's own iCal feed (every schedule they are on). */
export const oncallPersonFeeds = pgTable(
  'oncall_person_feeds',
  {
    organization_id: org(),
    email: text().notNull(),
    token: text().notNull(),
    ...timestamps(),
  },
  (t) => [primaryKey({ columns: [t.organization_id, t.email] }), unique('oncall_person_feeds_token_unique').on(t.token), tenantPolicy('oncall_person_feeds')],
);
