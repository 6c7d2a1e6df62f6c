import type { ResourceMeta } from './meta-types.js';

const RANK = { Member: 0, Admin: 1, Manager: 2, Owner: 3 } as const;

/**
 * Whether `role` (the caller's, from /auth/me) may change a resource: the least role the server
 * reports for it in GET /meta/resources (writeRole, or updateRole for an edit). The admin offers
 * create and edit screens only where this holds, so a Member never fills in a form the server refuses.
 */
export function mayWrite(role: string | null | undefined, meta: Pick<ResourceMeta, 'writeRole' | 'updateRole'>, action: 'write' | 'update' = 'write') {
  const least = action === 'update' ? (meta.updateRole ?? meta.writeRole) : meta.writeRole;
  return !!role && Object.hasOwn(RANK, role) && RANK[role as keyof typeof RANK] >= RANK[least];
}

/** Whether `role` may read a resource at all (its readRole, e.g. API keys for Admins and above). */
export function mayRead(role: string | null | undefined, meta: Pick<ResourceMeta, 'readRole'>) {
  return !meta.readRole || (!!role && Object.hasOwn(RANK, role) && RANK[role as keyof typeof RANK] >= RANK[meta.readRole]);
}
