import { sql } from 'drizzle-orm';
import { boolean, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique, uniqueIndex } from 'drizzle-orm/pg-core';
import { id, organizationId, tenantPolicy, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { tenantExtras, tenantFk } from '../core/db/mixins.js';

/** Where an event came in: the native API or a wire-compatible endpoint. */
export const SIGNAL_SOURCES = ['native', 'pagerduty', 'alertmanager', 'grafana', 'opsgenie'] as const;
/** What an event asks of its open alert (PagerDuty's event_action; Alertmanager's resolved is resolve). */
export const EVENT_ACTIONS = ['trigger', 'acknowledge', 'resolve'] as const;
/** What a stored instance may ask: an alert's actions, or a change (PagerDuty change events) that only lands on timelines. */
export const INSTANCE_ACTIONS = [...EVENT_ACTIONS, 'change'] as const;
/**
 * How a definition's alerts become cases: one per sender's group (Alertmanager and Grafana groupKey;
 * per alert for senders without groups), one per alert series, or one per value of the labels in group_by.
 */
export const GROUPINGS = ['group', 'alert', 'labels'] as const;
export const FILTER_ACTIONS = ['none', 'snooze', 'deduplicate'] as const;
export const FILTER_MODES = ['active', 'monitor', 'inactive', 'expired'] as const;
export const ENTITY_SCOPES = ['single', 'multiple', 'all'] as const;

/** A kind of value found in signals (an e-mail, a host): a JSONPath selects candidates, the regular expression keeps or cuts them. */
export const entityTypes = pgTable(
  'entity_types',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    project_id: integer(),
    name: text().notNull(),
    description: text(),
    jpath: text(),
    regular_expression: text(),
    enabled: boolean().notNull().default(true),
    scope: text({ enum: ENTITY_SCOPES }).notNull().default('multiple'),
    default: boolean().notNull().default(false),
    ...timestamps(),
  },
  (t) => [unique('entity_types_org_name_unique').on(t.organization_id, t.name), ...tenantExtras('entity_types', t, [t.name])],
);

/** One value of one type, once per (type, normalized value) in an organization. */
export const entities = pgTable(
  'entities',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    project_id: integer(),
    entity_type_id: integer().notNull(),
    value: text().notNull(),
    normalized: text().notNull(),
    source: text(),
    description: text(),
    ...timestamps(),
  },
  (t) => [
    unique('entities_org_type_normalized_unique').on(t.organization_id, t.entity_type_id, t.normalized),
    tenantFk('entities_type_fk', t.organization_id, t.entity_type_id, entityTypes).onDelete('cascade'),
    ...tenantExtras('entities', t, [t.value]),
  ],
);

/**
 * A signal filter. `window` is in seconds (deduplicate: instances within it join one case);
 * `expiration` ends a snooze. The expression uses the filter JSON grammar over the instance's
 * entities (server/signals/filters.ts).
 */
export const signalFilters = pgTable(
  'signal_filters',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    project_id: integer(),
    name: text().notNull(),
    description: text(),
    expression: jsonb().$type<unknown[]>().notNull().default([]),
    mode: text({ enum: FILTER_MODES }).notNull().default('active'),
    action: text({ enum: FILTER_ACTIONS }).notNull().default('snooze'),
    expiration: timestamp({ withTimezone: true }),
    window: integer().notNull().default(600),
    ...timestamps(),
  },
  (t) => [...tenantExtras('signal_filters', t, [t.name])],
);

export const signalEngagements = pgTable(
  'signal_engagements',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    project_id: integer(),
    name: text().notNull(),
    description: text(),
    message: text(),
    require_mfa: boolean().notNull().default(false),
    entity_type_id: integer(),
    ...timestamps(),
  },
  (t) => [...tenantExtras('signal_engagements', t, [t.name])],
);

/** A signal definition: what an alert source's events become (case type, priority, entity types, filters). */
export const signals = pgTable(
  'signals',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    project_id: integer().notNull(),
    name: text().notNull(),
    description: text(),
    variant: text(),
    owner: text(),
    external_id: text(),
    external_url: text(),
    case_type_id: integer(),
    case_priority_id: integer(),
    oncall_service_id: integer(),
    conversation_target: text(),
    create_case: boolean().notNull().default(true),
    enabled: boolean().notNull().default(true),
    source: text(),
    entity_type_ids: integer()
      .array()
      .notNull()
      .default(sql`'{}'::integer[]`),
    filter_ids: integer()
      .array()
      .notNull()
      .default(sql`'{}'::integer[]`),
    engagement_ids: integer()
      .array()
      .notNull()
      .default(sql`'{}'::integer[]`),
    tag_ids: integer()
      .array()
      .notNull()
      .default(sql`'{}'::integer[]`),
    workflow_ids: integer()
      .array()
      .notNull()
      .default(sql`'{}'::integer[]`),
    /** SHA-256 of the source's ingest key (shown once at creation); it opens ingestion only. */
    ingest_key_hash: text().notNull(),
    /** The key before the last rotation, still accepted until previous_key_expires_at (sources move over). */
    previous_ingest_key_hash: text(),
    previous_key_expires_at: timestamp({ withTimezone: true }),
    /** Events a minute this source may send; more get a 429 (PagerDuty style). Null: the server's default. */
    rate_limit_per_minute: integer(),
    /** When set, Grafana deliveries must carry its HMAC-SHA256 signature. */
    hmac_secret: text(),
    /** The headers Grafana's HMAC options name (any name may be set there); null: Grafana's defaults, and no timestamp. */
    signature_header: text(),
    timestamp_header: text(),
    grouping: text({ enum: GROUPINGS }).notNull().default('group'),
    /** The labels that name a case when grouping is 'labels'. */
    group_by: text()
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    ...timestamps(),
  },
  (t) => [
    unique('signals_ingest_key_hash_unique').on(t.ingest_key_hash),
    index('signals_previous_ingest_key_idx')
      .on(t.previous_ingest_key_hash)
      .where(sql`previous_ingest_key_hash is not null`),
    ...tenantExtras('signals', t, [t.name]),
  ],
);

/**
 * A source's token bucket, shared by every app process on the database: a process reserves tokens
 * in chunks (one statement per chunk, not per request), so N processes still allow the source's rate once.
 */
export const signalRateBuckets = pgTable(
  'signal_rate_buckets',
  {
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    signal_id: integer().notNull(),
    tokens: doublePrecision().notNull(),
    refilled_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organization_id, t.signal_id] }),
    tenantFk('signal_rate_buckets_signal_fk', t.organization_id, t.signal_id, signals).onDelete('cascade'),
    tenantPolicy('signal_rate_buckets'),
  ],
);

/**
 * One alert series while it is open (triggered or acknowledged): every event with the same key joins
 * it and its case. The partial unique index makes concurrent duplicates meet on one row.
 */
export const signalGroups = pgTable(
  'signal_groups',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    signal_id: integer().notNull(),
    group_key: text().notNull(),
    status: text({ enum: ['triggered', 'acknowledged', 'resolved', 'expired'] })
      .notNull()
      .default('triggered'),
    /** Seconds after last_seen that the group stays open to duplicates; null: until resolved. */
    window: integer(),
    case_id: integer(),
    count: integer().notNull().default(1),
    first_seen: timestamp({ withTimezone: true }).notNull().defaultNow(),
    last_seen: timestamp({ withTimezone: true }).notNull().defaultNow(),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('signal_groups_open_key_unique')
      .on(t.organization_id, t.signal_id, t.group_key)
      .where(sql`status in ('triggered', 'acknowledged')`),
    tenantFk('signal_groups_signal_fk', t.organization_id, t.signal_id, signals).onDelete('cascade'),
    unique('signal_groups_org_id_unique').on(t.organization_id, t.id),
    tenantPolicy('signal_groups'),
  ],
);

/** One received event, committed before the source gets its 2xx; processed_at is set by the job. */
export const signalInstances = pgTable(
  'signal_instances',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    project_id: integer(),
    signal_id: integer().notNull(),
    source: text({ enum: SIGNAL_SOURCES }).notNull(),
    event_action: text({ enum: INSTANCE_ACTIONS }).notNull().default('trigger'),
    /** The source's key for the alert series (PagerDuty dedup_key, Alertmanager fingerprint). */
    dedup_key: text(),
    raw: jsonb().$type<Record<string, unknown>>().notNull(),
    filter_action: text({ enum: FILTER_ACTIONS }),
    filter_id: integer(),
    group_id: integer(),
    case_id: integer(),
    processed_at: timestamp({ withTimezone: true }),
    ...timestamps(),
  },
  (t) => [
    tenantFk('signal_instances_signal_fk', t.organization_id, t.signal_id, signals).onDelete('cascade'),
    index('signal_instances_unprocessed_idx')
      .on(t.organization_id, t.id)
      .where(sql`processed_at is null`),
    index('signal_instances_signal_idx').on(t.organization_id, t.signal_id, t.id),
    index('signal_instances_case_idx').on(t.organization_id, t.case_id),
    ...tenantExtras('signal_instances', t, [t.created_at]),
  ],
);

export const signalInstanceEntities = pgTable(
  'signal_instance_entities',
  {
    organization_id: organizationId(),
    signal_instance_id: integer().notNull(),
    entity_id: integer().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organization_id, t.signal_instance_id, t.entity_id] }),
    index('signal_instance_entities_entity_idx').on(t.organization_id, t.entity_id),
    tenantFk('signal_instance_entities_instance_fk', t.organization_id, t.signal_instance_id, signalInstances).onDelete('cascade'),
    tenantFk('signal_instance_entities_entity_fk', t.organization_id, t.entity_id, entities).onDelete('cascade'),
    tenantPolicy('signal_instance_entities'),
  ],
);

/** A re-extraction of one entity type over past instances (PUT /entity_type/{id}/process), with its progress. */
export const entityTypeRuns = pgTable(
  'entity_type_runs',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    entity_type_id: integer().notNull(),
    status: text({ enum: ['queued', 'running', 'completed', 'failed'] })
      .notNull()
      .default('queued'),
    /** Instances to look at (counted when the run starts), looked at so far, and those the type found a value in. */
    total: integer().notNull().default(0),
    processed: integer().notNull().default(0),
    matched: integer().notNull().default(0),
    /** The last instance id done: a run taken up again after a crash goes on from here. */
    cursor: integer().notNull().default(0),
    error: text(),
    finished_at: timestamp({ withTimezone: true }),
    ...timestamps(),
  },
  (t) => [
    tenantFk('entity_type_runs_type_fk', t.organization_id, t.entity_type_id, entityTypes).onDelete('cascade'),
    index('entity_type_runs_type_idx').on(t.organization_id, t.entity_type_id, t.id),
    unique('entity_type_runs_org_id_unique').on(t.organization_id, t.id),
    tenantPolicy('entity_type_runs'),
  ],
);

/** A request that the person an entity names confirm an alert, sent by e-mail; answered through its token. */
export const signalEngagementRequests = pgTable(
  'signal_engagement_requests',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    engagement_id: integer().notNull(),
    case_id: integer().notNull(),
    entity_id: integer().notNull(),
    signal_instance_id: integer(),
    email: text().notNull(),
    /** SHA-256 of the secret in the approve/deny links. */
    token_hash: text().notNull(),
    status: text({ enum: ['pending', 'approved', 'denied'] })
      .notNull()
      .default('pending'),
    sent_at: timestamp({ withTimezone: true }),
    answered_at: timestamp({ withTimezone: true }),
    ...timestamps(),
  },
  (t) => [
    unique('signal_engagement_requests_token_unique').on(t.token_hash),
    unique('signal_engagement_requests_once').on(t.organization_id, t.engagement_id, t.case_id, t.entity_id),
    tenantFk('signal_engagement_requests_engagement_fk', t.organization_id, t.engagement_id, signalEngagements).onDelete('cascade'),
    tenantFk('signal_engagement_requests_entity_fk', t.organization_id, t.entity_id, entities).onDelete('cascade'),
    unique('signal_engagement_requests_org_id_unique').on(t.organization_id, t.id),
    tenantPolicy('signal_engagement_requests'),
  ],
);

/** Users who asked to hear when an entity turns up in a new case (POST /entity/{id}/subscribe). */
export const entitySubscriptions = pgTable(
  'entity_subscriptions',
  {
    organization_id: organizationId(),
    entity_id: integer().notNull(),
    user_id: integer().notNull(),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organization_id, t.entity_id, t.user_id] }),
    tenantFk('entity_subscriptions_entity_fk', t.organization_id, t.entity_id, entities).onDelete('cascade'),
    tenantPolicy('entity_subscriptions'),
  ],
);
