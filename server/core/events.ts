import type { RequestContext } from './context.js';

/**
 * Domain events inside the request's transaction: incidents, cases and tasks publish what happened,
 * and listeners (outgoing webhooks, workflow triggers) act in the same transaction, so what they
 * queue exists exactly when the change committed.
 */
export type DomainEventType = 'incident.created' | 'incident.updated' | 'case.created' | 'case.updated' | 'case.escalated' | 'task.created' | 'task.updated';
export interface DomainEvent {
  type: DomainEventType;
  id: number;
  /** For case.escalated: the incident it became. */
  incident_id?: number;
}
type Listener = (ctx: RequestContext, event: DomainEvent) => Promise<void>;
const listeners = new Set<Listener>();

export function subscribe(listener: Listener) {
  listeners.add(listener);
}

export async function publish(ctx: RequestContext, event: DomainEvent) {
  for (const listener of listeners) await listener(ctx, event);
}
