import { sql } from 'drizzle-orm';
import { bigint, boolean, check, customType, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { id, organizationId, tenantPolicy, timestamps } from '../core/db/columns.js';
import { organizations, users } from '../core/db/tables.js';
import { projects } from '../core/db/projects.js';

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (v) => Buffer.from(v),
});
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

export const SUBMISSION_KINDS = ['text', 'file', 'video_transcript'] as const;
export const SUBMISSION_STATUSES = ['uploaded', 'indexing', 'indexed', 'failed'] as const;
/** public: anyone, anonymous visitors included; internal: members and API keys; restricted: Admins and the uploader. */
export const SENSITIVITY_LEVELS = ['public', 'internal', 'restricted'] as const;
export type SubmissionKind = (typeof SUBMISSION_KINDS)[number];
export type SubmissionStatus = (typeof SUBMISSION_STATUSES)[number];
export type SensitivityLevel = (typeof SENSITIVITY_LEVELS)[number];

/** Where a chunk sits in its source, so a citation can open it there. */
export interface ChunkPlace {
  page?: number;
  heading?: string;
  /** Cue start and end, in seconds. */
  start?: number;
  end?: number;
  line?: number;
  row?: number;
  path?: string;
}

/** A temporary visitor key (stored hashed) for the public landing page. */
export const anonymousSessions = pgTable(
  'anonymous_sessions',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    key_hash: text().notNull(),
    expires_at: timestamp({ withTimezone: true }).notNull(),
    last_seen_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('anonymous_sessions_org_id_unique').on(t.organization_id, t.id),
    unique('anonymous_sessions_org_key_unique').on(t.organization_id, t.key_hash),
    tenantPolicy('anonymous_sessions'),
  ],
);

/** Projects an anonymous session created (the projects table has no owner column for visitors). */
export const anonymousProjects = pgTable(
  'anonymous_projects',
  {
    organization_id: organizationId(),
    session_id: integer().notNull(),
    project_id: integer().notNull(),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('anonymous_projects_org_project_unique').on(t.organization_id, t.project_id),
    index('anonymous_projects_org_session_idx').on(t.organization_id, t.session_id),
    foreignKey({
      name: 'anonymous_projects_session_fk',
      columns: [t.organization_id, t.session_id],
      foreignColumns: [anonymousSessions.organization_id, anonymousSessions.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'anonymous_projects_project_fk',
      columns: [t.organization_id, t.project_id],
      foreignColumns: [projects.organization_id, projects.id],
    }).onDelete('cascade'),
    tenantPolicy('anonymous_projects'),
  ],
);

/** A text, file or video transcript given to a project; its raw content is kept in submission_parts. */
export const submissions = pgTable(
  'submissions',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    project_id: integer().notNull(),
    eccs_project_id: text(),
    kind: text({ enum: SUBMISSION_KINDS }).notNull(),
    title: text().notNull(),
    file_name: text(),
    file_type: text(),
    source_url: text(),
    size_bytes: integer().notNull().default(0),
    sensitivity_level: text({ enum: SENSITIVITY_LEVELS }).notNull().default('internal'),
    status: text({ enum: SUBMISSION_STATUSES }).notNull().default('uploaded'),
    progress: integer().notNull().default(0),
    error: text(),
    chunk_count: integer().notNull().default(0),
    /** Whether the project's lexeme counts (chunk_lexemes) include this submission's chunks. */
    lexemes_counted: boolean().notNull().default(false),
    created_by: integer().references(() => users.id, { onDelete: 'set null' }),
    anonymous_session_id: integer(),
    indexed_at: timestamp({ withTimezone: true }),
    ...timestamps(),
  },
  (t) => [
    unique('submissions_org_id_unique').on(t.organization_id, t.id),
    index('submissions_org_project_idx').on(t.organization_id, t.project_id, t.created_at),
    foreignKey({
      name: 'submissions_project_fk',
      columns: [t.organization_id, t.project_id],
      foreignColumns: [projects.organization_id, projects.id],
    }).onDelete('cascade'),
    check('submissions_kind_check', sql`${t.kind} in ('text', 'file', 'video_transcript')`),
    check('submissions_status_check', sql`${t.status} in ('uploaded', 'indexing', 'indexed', 'failed')`),
    check('submissions_sensitivity_check', sql`${t.sensitivity_level} in ('public', 'internal', 'restricted')`),
    tenantPolicy('submissions'),
  ],
);

/**
 * A submission's raw content, a part of about a megabyte a row (UPLOAD_PART_BYTES in ingest.ts), in
 * order of `seq`. Written as the upload arrives and read back part by part by the indexer, so no
 * statement handles more than one part: a whole large file in one value made the embedded database's
 * WebAssembly heap grow by several copies of it, for good (review F25).
 */
export const submissionParts = pgTable(
  'submission_parts',
  {
    organization_id: organizationId(),
    submission_id: integer().notNull(),
    seq: integer().notNull(),
    data: bytea().notNull(),
  },
  (t) => [
    primaryKey({ name: 'submission_parts_pk', columns: [t.organization_id, t.submission_id, t.seq] }),
    foreignKey({
      name: 'submission_parts_submission_fk',
      columns: [t.organization_id, t.submission_id],
      foreignColumns: [submissions.organization_id, submissions.id],
    }).onDelete('cascade'),
    tenantPolicy('submission_parts'),
  ],
);

/**
 * A passage of a submission with its place, indexed for full-text search (tsv). There is no trigram
 * index on the text: keeping one took about 40% of ingestion time, and retrieval's literal match of a
 * code only selects candidates when no question word is known (a scan of the project's chunks then).
 */
export const chunks = pgTable(
  'chunks',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    organization_id: organizationId(),
    project_id: integer().notNull(),
    submission_id: integer().notNull(),
    ordinal: integer().notNull(),
    text: text().notNull(),
    place: jsonb().$type<ChunkPlace>().notNull().default({}),
    // Copied from the submission so retrieval filters without a join.
    sensitivity_level: text({ enum: SENSITIVITY_LEVELS }).notNull(),
    tsv: tsvector()
      .notNull()
      .generatedAlwaysAs(sql`setweight(to_tsvector('english', coalesce(place->>'heading', '')), 'B') || setweight(to_tsvector('english', text), 'D')`),
  },
  (t) => [
    // btree_gin lets the organization and project lead the full-text index.
    index('chunks_org_project_tsv_idx').using('gin', t.organization_id, t.project_id, t.tsv),
    index('chunks_org_submission_idx').on(t.organization_id, t.submission_id, t.ordinal),
    // Anonymous visitors read public chunks only: these find them without reading the others (retrieve.ts accessScopes).
    index('chunks_public_tsv_idx')
      .using('gin', t.organization_id, t.project_id, t.tsv)
      .where(sql`${t.sensitivity_level} = 'public'`),
    index('chunks_public_submission_idx')
      .on(t.organization_id, t.submission_id, t.ordinal)
      .where(sql`${t.sensitivity_level} = 'public'`),
    foreignKey({
      name: 'chunks_submission_fk',
      columns: [t.organization_id, t.submission_id],
      foreignColumns: [submissions.organization_id, submissions.id],
    }).onDelete('cascade'),
    tenantPolicy('chunks'),
  ],
);

/**
 * How many chunks of a project contain each lexeme (ts_stat's ndoc), kept up to date as submissions
 * are indexed and removed, so retrieval weighs rare words over common ones with one index lookup.
 */
export const chunkLexemes = pgTable(
  'chunk_lexemes',
  {
    organization_id: organizationId(),
    project_id: integer().notNull(),
    lexeme: text().notNull(),
    ndoc: integer().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organization_id, t.project_id, t.lexeme] }),
    index('chunk_lexemes_org_lexeme_idx').on(t.organization_id, t.lexeme),
    foreignKey({
      name: 'chunk_lexemes_project_fk',
      columns: [t.organization_id, t.project_id],
      foreignColumns: [projects.organization_id, projects.id],
    }).onDelete('cascade'),
    tenantPolicy('chunk_lexemes'),
  ],
);

/** A conversation in a project, reopened with chat?chat_id=; `shared` opens it read-only on the landing page. */
export const chats = pgTable(
  'chats',
  {
    id: uuid().primaryKey().defaultRandom(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    project_id: integer(),
    title: text().notNull(),
    user_id: integer().references(() => users.id, { onDelete: 'cascade' }),
    anonymous_session_id: integer(),
    shared_at: timestamp({ withTimezone: true }),
    ...timestamps(),
  },
  (t) => [
    unique('chats_org_id_unique').on(t.organization_id, t.id),
    index('chats_org_user_idx').on(t.organization_id, t.user_id, t.updated_at),
    foreignKey({ name: 'chats_project_fk', columns: [t.organization_id, t.project_id], foreignColumns: [projects.organization_id, projects.id] }).onDelete(
      'cascade',
    ),
    tenantPolicy('chats'),
  ],
);

/** A cited source as the answer shows it: [n] → chunk and its place. */
export interface MessageSource {
  n: number;
  object_type: string;
  object_id: number | string;
  submission_id?: number;
  title: string;
  place: ChunkPlace;
  snippet: string;
  url?: string | null;
}

export const chatMessages = pgTable(
  'chat_messages',
  {
    id: id(),
    organization_id: organizationId(),
    chat_id: uuid().notNull(),
    role: text({ enum: ['user', 'assistant'] }).notNull(),
    text: text().notNull(),
    sources: jsonb().$type<MessageSource[]>().notNull().default([]),
    /** 'extractive' or the model's name. */
    answered_by: text(),
    notice: text(),
    user_id: integer().references(() => users.id, { onDelete: 'set null' }),
    anonymous_session_id: integer(),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('chat_messages_org_id_unique').on(t.organization_id, t.id),
    index('chat_messages_org_chat_idx').on(t.organization_id, t.chat_id, t.id),
    // For messages-per-day limits.
    index('chat_messages_org_user_day_idx').on(t.organization_id, t.user_id, t.created_at),
    foreignKey({ name: 'chat_messages_chat_fk', columns: [t.organization_id, t.chat_id], foreignColumns: [chats.organization_id, chats.id] }).onDelete(
      'cascade',
    ),
    tenantPolicy('chat_messages'),
  ],
);

export const FEEDBACK_STATUSES = ['processing', 'processed', 'failed'] as const;

/**
 * Like or dislike of an answer. A like waits in `processing` until a job turns the question and
 * answer into a curated Q&A submission of the project (`submission_id`), or `failed` with `error`.
 */
export const messageFeedback = pgTable(
  'message_feedback',
  {
    id: id(),
    organization_id: organizationId(),
    message_id: integer().notNull(),
    project_id: integer(),
    user_id: integer().references(() => users.id, { onDelete: 'cascade' }),
    anonymous_session_id: integer(),
    value: text({ enum: ['like', 'dislike'] }).notNull(),
    status: text({ enum: FEEDBACK_STATUSES }).notNull().default('processing'),
    error: text(),
    /** The curated Q&A made from this like (no foreign key: deleting that submission leaves the like). */
    submission_id: integer(),
    ...timestamps(),
  },
  (t) => [
    unique('message_feedback_org_message_user_unique').on(t.organization_id, t.message_id, t.user_id, t.anonymous_session_id).nullsNotDistinct(),
    index('message_feedback_org_project_idx').on(t.organization_id, t.project_id, t.status),
    foreignKey({
      name: 'message_feedback_message_fk',
      columns: [t.organization_id, t.message_id],
      foreignColumns: [chatMessages.organization_id, chatMessages.id],
    }).onDelete('cascade'),
    check('message_feedback_value_check', sql`${t.value} in ('like', 'dislike')`),
    tenantPolicy('message_feedback'),
  ],
);

/** Curated content items per platform; trending ranks them by recent engagement. */
export const curatedContent = pgTable(
  'curated_content',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    platform: text().notNull().default('linkedin'),
    text: text().notNull(),
    link: text(),
    engagement_count: integer().notNull().default(0),
    last_engaged_at: timestamp({ withTimezone: true }),
    ...timestamps(),
  },
  (t) => [
    unique('curated_content_org_id_unique').on(t.organization_id, t.id),
    index('curated_content_org_platform_idx').on(t.organization_id, t.platform, t.last_engaged_at),
    tenantPolicy('curated_content'),
  ],
);

/** One engagement (view, click, share) with a curated item, so trending can weigh recent ones. */
export const curatedEngagements = pgTable(
  'curated_engagements',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    organization_id: organizationId(),
    content_id: integer().notNull(),
    kind: text().notNull().default('view'),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('curated_engagements_org_content_idx').on(t.organization_id, t.content_id, t.created_at),
    foreignKey({
      name: 'curated_engagements_content_fk',
      columns: [t.organization_id, t.content_id],
      foreignColumns: [curatedContent.organization_id, curatedContent.id],
    }).onDelete('cascade'),
    tenantPolicy('curated_engagements'),
  ],
);
