import type { RequestContext } from './context.js';

/**
 * Domain events inside the request's transaction: incidents, cases and tasks publish what happened,
 * and listeners (outgoing webhooks, notifications, workflow triggers) act in the same transaction, so
 * what they queue exists exactly when the change committed. Events go out in batches of one type (a
 * signal processing batch opens hundreds of cases), so each listener reads its configuration once per
 * batch and queues its work in one insert; a single change is a batch of one.
 */
export type DomainEventType =
  | 'incident.created'
  | 'incident.updated'
  | 'case.created'
  | 'case.updated'
  | 'case.escalated'
  | 'task.created'
  | 'task.updated'
  /** An incident's tactical or executive report (ids: reports; incident_id: its incident). */
  | 'report.created'
  /** A document, link or ticket attached to an incident (ids: its resources; incident_id: its incident). */
  | 'resource.added'
  /** A processing batch's signal instances, once each is deduplicated, grouped or made a case (ids: the instances). */
  | 'signal.processed';
export interface DomainEvents {
  type: DomainEventType;
  /** The records it happened to, in order, each once. */
  ids: number[];
  /** For case.escalated (a batch of one): the incident it became; for report.created and resource.added, their incident. */
  incident_id?: number;
}
export interface DomainEvent {
  type: DomainEventType;
  id: number;
  incident_id?: number;
}
type Listener = (ctx: RequestContext, events: DomainEvents) => Promise<void>;
const listeners = new Set<Listener>();

export function subscribe(listener: Listener) {
  listeners.add(listener);
}

export async function publishMany(ctx: RequestContext, type: DomainEventType, ids: number[], extra: Pick<DomainEvents, 'incident_id'> = {}) {
  if (!ids.length) return;
  const events: DomainEvents = { type, ids: [...new Set(ids)], ...extra };
  for (const listener of listeners) await listener(ctx, events);
}

export const publish = (ctx: RequestContext, { type, id, ...extra }: DomainEvent) => publishMany(ctx, type, [id], extra);
