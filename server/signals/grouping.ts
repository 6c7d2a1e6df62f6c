import { createHash } from 'node:crypto';
import type { signals } from './tables.js';

type Signal = Pick<typeof signals.$inferSelect, 'grouping' | 'group_by'>;

/** A short, stable key for a list of values (the entities a dedup filter groups on, a case's label values). */
export const digest = (parts: string[]) => createHash('sha256').update(parts.join('\u0001')).digest('hex').slice(0, 32);

/** An open group: its key among the definition's groups and, for a dedup filter's, how long it stays open after its last event. */
export interface GroupKey {
  key: string;
  window: number | null;
}

/** Case-level groups (several alert series under one case) start with this; alert series with `k:`. */
export const CASE_GROUP_PREFIX = 'c:';

/**
 * The case an alert series belongs to when it is not a case of its own, by the definition's grouping:
 * the sender's group (Alertmanager and Grafana groupKey), or the values of the labels named in
 * group_by (its labels, else its details, else the payload's top level). Null: a case per series.
 */
export function caseGroupOf(signal: Signal, raw: Record<string, unknown>): GroupKey | null {
  if (signal.grouping === 'group') {
    const groupKey = raw.groupKey;
    return typeof groupKey === 'string' && groupKey ? { key: `${CASE_GROUP_PREFIX}g:${digest([groupKey])}`, window: null } : null;
  }
  if (signal.grouping === 'labels' && signal.group_by.length) {
    const labels = [raw.labels, raw.details, raw].find((x): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x))!;
    const values = signal.group_by.map((name) => `${name}=${typeof labels[name] === 'string' ? labels[name] : JSON.stringify(labels[name] ?? null)}`);
    return { key: `${CASE_GROUP_PREFIX}l:${digest(values)}`, window: null };
  }
  return null;
}
