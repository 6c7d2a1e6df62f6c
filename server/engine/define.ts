import { getTableColumns, type Placeholder, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { RequestContext } from '../core/context.js';
import type { Role } from '../core/db/tables.js';

export type SortDirection = 'asc' | 'desc';

/** A filterable field that is not a plain column: builds its own condition (e.g. an EXISTS on a relation). */
export interface CustomFilter {
  type: 'number' | 'string' | 'boolean' | 'date';
  build(op: string, value: unknown): SQL;
  ops: readonly string[];
}

/** How a field is drawn and written in the admin app (defaults: server/engine/field-meta.ts). */
export type FieldKind =
  | 'text'
  | 'longtext'
  | 'email'
  | 'url'
  | 'color'
  | 'number'
  | 'boolean'
  | 'date'
  | 'enum'
  | 'enums'
  | 'reference'
  | 'references'
  | 'strings'
  | 'list'
  | 'json'
  | 'password'
  | 'markdown';

export interface FieldMeta {
  label?: string;
  kind?: FieldKind;
  /** Shown as a list column (default: short fields, the first eight). */
  list?: boolean;
  /** Drawn in forms (default true); false keeps an API-only field out of people's way. */
  form?: boolean;
  /** The model an id refers to, for ids the `references` check does not cover. */
  reference?: string;
  /** One line under the input saying what the field is for. */
  help?: string;
  /** Words for enum values, by value. */
  choices?: Record<string, string>;
  /** A reference picker offers only the target's records matching this (list filter, e.g. `{plugin_slug: [...]}`). */
  referenceFilter?: Record<string, unknown>;
  /** The fields of one entry of a list of records. */
  items?: Record<string, FieldMeta>;
}

export interface ResourceDefinition {
  /** Model name as the filter JSON's `model` names it, e.g. `Tag`. */
  model: string;
  /** Human label used in messages: "Tag type 'x' could not be found." */
  label: string;
  /** The plural people say (default: the label's English plural). */
  labelPlural?: string;
  /** The word the admin app shows where the API's noun is not people's (incidents are IAOs in messages). */
  displayLabel?: string;
  /** The field that names a record in titles, pickers and confirmations (default: name, title, ...). */
  recordRepresentation?: string;
  /** Per field: label, input kind, list column, help, where the default (field-meta.ts) is wrong. */
  fieldMeta?: Record<string, FieldMeta>;
  /** Path under /api/v1/{organization}, e.g. `/tag_types`. */
  path: string;
  table: PgTable;
  /** Body schemas. Update defaults to a partial create. */
  create: z.ZodObject;
  update?: z.ZodObject;
  pageSize: number;
  sort: [string, SortDirection][];
  /** Columns `q` searches: rows where one of them contains the text, ignoring case (ILIKE). */
  search: string[];
  /**
   * `q` is answered from `search_words`, the words of the rows kept by triggers, in the default order
   * without visiting the table (usesSearchIndex in server/engine/list-query.ts says when). For a large
   * table whose one `q` field is also its sort (`sort: [[f, 'asc']]`, `search: [f]`, no `scope`); a
   * migration attaches the triggers: `select search_index_attach('<table>', '<f>', '<f>')`.
   */
  searchIndex?: boolean;
  /** Columns a filter or sortBy may name (id is always allowed). */
  fields: string[];
  customFilters?: Record<string, CustomFilter>;
  /** Columns never sent to clients. */
  hidden?: string[];
  /**
   * Extra read-only values computed per row. Declared without a parameter, they are the same for every
   * caller, and the resource's list statements are compiled once per shape and shared; reading `ctx`
   * makes every list request build its own.
   */
  computed?: (ctx: RequestContext) => Record<string, SQL>;
  /** Fields that cannot change after creation. */
  immutable?: string[];
  /**
   * Foreign keys in the body (an id, or a list of ids) and the model each names, checked to exist in
   * the caller's organization; the registry resolves the name (server/engine/registry.ts).
   */
  references?: Record<string, string>;
  /**
   * Fields holding people by e-mail, as the spec nests them: a `<role>_email` text column (`owner_email`
   * is the spec's `owner`), or a list of e-mails (`assignees`). Bodies may send `{"email": ...}` objects
   * (a participant's `{"individual": {"email": ...}}` too); answers carry `owner: {"email": ...}` beside
   * `owner_email` (server/engine/nested.ts).
   */
  people?: string[];
  /**
   * Fields the answers carry beyond the table's columns, computed values and nested references (an
   * incident's timeline): a record sent back whole in an update has them ignored, not refused.
   */
  answerOnly?: string[];
  /** Least role that may create, update and delete (default Member). */
  writeRole?: Role;
  /** Least role that may list and read (default Member); below it, GET answers 403. */
  readRole?: Role;
  /**
   * Least role that may update (default writeRole), for the admin app to hide an edit form a role
   * cannot save; the domain's hooks still enforce it (an organization any member may create, only
   * an Admin edit).
   */
  updateRole?: Role;
  /** Which routes exist (default all). */
  routes?: Partial<Record<'list' | 'get' | 'create' | 'update' | 'delete', boolean>>;
  /**
   * Row condition that replaces `organization_id = current org` (shared tables, visibility rules).
   * `org` is the organization's id or, in a statement shared between callers, its placeholder.
   */
  scope?: (ctx: RequestContext, org: number | Placeholder) => SQL;
  /**
   * What of the caller `scope` depends on besides the organization (e.g. whether they see restricted
   * rows): with it, list statements are compiled once per shape and this key, and shared.
   */
  scopeShape?: (ctx: RequestContext) => string;
  hooks?: {
    /** A body object as a spec client may write it, made the definition's before validation (a search filter's picks into its expression). */
    prepare?(body: Record<string, unknown>): Record<string, unknown>;
    /** Adjust a validated body before insert; may throw HttpError. */
    beforeCreate?(ctx: RequestContext, data: Record<string, unknown>): Promise<Record<string, unknown>> | Record<string, unknown>;
    beforeUpdate?(ctx: RequestContext, id: number, data: Record<string, unknown>): Promise<Record<string, unknown>> | Record<string, unknown>;
    beforeDelete?(ctx: RequestContext, id: number): Promise<void> | void;
    /** Replace the insert entirely (returns the new id). */
    create?(ctx: RequestContext, data: Record<string, unknown>): Promise<number>;
    /** Replace the update entirely (returns false when the row is not visible). */
    update?(ctx: RequestContext, id: number, data: Record<string, unknown>): Promise<boolean>;
    /** Replace the delete entirely (returns false when the row is not visible). */
    delete?(ctx: RequestContext, id: number): Promise<boolean>;
    /** Add to the created record's response (e.g. a secret shown once). */
    afterCreate?(
      ctx: RequestContext,
      record: Record<string, unknown>,
      data: Record<string, unknown>,
    ): Promise<Record<string, unknown>> | Record<string, unknown>;
    /** After the create committed: what must not happen unless it did (e.g. sending mail); returns the response. */
    afterCommit?(req: FastifyRequest, record: Record<string, unknown>, data: Record<string, unknown>): Promise<Record<string, unknown>>;
  };
}

export function defineResource(def: ResourceDefinition): ResourceDefinition {
  const [sort, ...more] = def.sort;
  if (def.searchIndex && (more.length || sort?.[1] !== 'asc' || def.search.length !== 1 || def.search[0] !== sort[0] || def.scope)) {
    throw new Error(`${def.model}: a search index needs one q field that is also the ascending sort, and no scope.`);
  }
  // The word index answers without the row condition that hides restricted incidents' and cases' rows.
  const columns = getTableColumns(def.table);
  if (def.searchIndex && ('incident_id' in columns || 'case_id' in columns))
    throw new Error(`${def.model}: rows of incidents or cases cannot have a search index.`);
  return def;
}

export type Columns = Record<string, PgColumn>;
