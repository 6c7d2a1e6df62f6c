import type { Config } from './config.js';
import { RIGHTS, type Right } from './rights.js';
import type { Db, Tx } from './db/client.js';
import type { Role } from './db/tables.js';

/**
 * Who is acting, the same on HTTP, the socket and in jobs: a signed-in user, a script's API key (with
 * Member rights), a visitor of a public page, the system (a job), or on the socket nobody yet.
 */
export interface Actor {
  kind: 'user' | 'apikey' | 'anonymous' | 'system' | 'none';
  orgId: number;
  orgSlug: string;
  userId: number | null;
  apiKeyId: number | null;
  /** An anonymous visitor's session. */
  sessionId: number | null;
  /** Null for who is not a member: visitors, and a socket nobody signed in to. */
  role: Role | null;
  /** The signed-in user's sign-in session (their token's `sid`), if the actor is one. */
  sid?: string | null;
}

/** An actor with a member's rights: what a tenant transaction runs as. */
export type MemberActor = Actor & { role: Role };

/** Background work of an organization, with the rights of `role`. */
export const systemActor = (org: { orgId: number; orgSlug: string }, role: Role = 'Owner'): MemberActor => ({
  kind: 'system',
  orgId: org.orgId,
  orgSlug: org.orgSlug,
  userId: null,
  apiKeyId: null,
  sessionId: null,
  role,
});

/** What a request (or a job) knows about its actor, handed to every hook. */
export interface RequestContext extends MemberActor {
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
