import type { SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import type { Config } from '../config.js';
import type { Db, Tx } from '../db/client.js';
import type { Role } from '../db/schema/index.js';

/** What a request knows about its caller, handed to every hook. */
export interface RequestContext {
  orgId: number;
  orgSlug: string;
  userId: number | null;
  role: Role;
  /**
   * The privileged root database, for work that runs after the request (background jobs). Never
   * use it inside the request: on PGlite it waits for the request's own transaction forever.
   */
  system: Db;
  /** Runs `fn` in the request's transaction with the privileged role (cross-organization steps). */
  asSystem<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  config: Config;
  /** The transaction scoped to the request's organization. */
  tx: Tx;
}

export type SortDirection = 'asc' | 'desc';

/** A filterable field that is not a plain column: builds its own condition (e.g. an EXISTS on a relation). */
export interface CustomFilter {
  type: 'number' | 'string' | 'boolean' | 'date';
  build(op: string, value: unknown): SQL;
  ops: readonly string[];
}

export interface ResourceDefinition {
  /** Model name as the filter JSON's `model` names it, e.g. `Tag`. */
  model: string;
  /** Human label used in messages: "Tag type 'x' could not be found." */
  label: string;
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
   * without visiting the table (usesSearchIndex in server/lib/list-query.ts says when). For a large
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
  /** Foreign keys in the body (an id, or a list of ids), checked to exist in the caller's organization. */
  references?: Record<string, () => ResourceDefinition>;
  /** Least role that may create, update and delete (default Member). */
  writeRole?: Role;
  /** Which routes exist (default all). */
  routes?: Partial<Record<'list' | 'get' | 'create' | 'update' | 'delete', boolean>>;
  /** Row condition that replaces `organization_id = current org` for shared tables. */
  scope?: (ctx: RequestContext) => SQL;
  hooks?: {
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
    afterCreate?(ctx: RequestContext, record: Record<string, unknown>, data: Record<string, unknown>): Promise<Record<string, unknown>> | Record<string, unknown>;
  };
}

export function defineResource(def: ResourceDefinition): ResourceDefinition {
  const [sort, ...more] = def.sort;
  if (def.searchIndex && (more.length || sort?.[1] !== 'asc' || def.search.length !== 1 || def.search[0] !== sort[0] || def.scope)) {
    throw new Error(`${def.model}: a search index needs one q field that is also the ascending sort, and no scope.`);
  }
  return def;
}

export type Columns = Record<string, PgColumn>;
