import type { Config } from './config.js';
import { RIGHTS, type Right } from './rights.js';
import type { Db, Tx } from './db/client.js';
import type { Role } from './db/tables.js';

/** What a request knows about its caller, handed to every hook. */
export interface RequestContext {
  orgId: number;
  orgSlug: string;
  userId: number | null;
  role: Role;
  /** The signed-in user's session (their token's `sid`), if the caller is one. */
  sid?: string | null;
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

export const ROLE_RANK: Record<Role, number> = { Member: 0, Admin: 1, Manager: 2, Owner: 3 };
export const atLeast = (role: Role, least: Role) => ROLE_RANK[role] >= ROLE_RANK[least];
/** Whether `role` has `right` (core/rights.ts). */
export const may = (role: Role, right: Right) => atLeast(role, RIGHTS[right].least);

/** Bearer secrets say what they are by their prefix: API keys and anonymous visitors' keys. */
export const API_KEY_PREFIX = 'fw_';
export const ANONYMOUS_KEY_PREFIX = 'fwanon_';
