import { events } from './tables.js';
import type { RequestContext } from '../core/context.js';
import { notifyChange } from '../live/changes.js';

/**
 * Timeline event types and the filter toggle each belongs to (spec §9: the first seven are on by
 * default; field, assessment, context, user curated and notification are off). An event someone adds
 * while the page is open still shows at once: the page turns its filter on (admin incidents/parts.tsx).
 */
export const EVENT_TYPES = {
  'Participant updated': 'participant_updates',
  Other: 'other_events',
  'AI generated': 'ai_generated_events',
  'Resource updated': 'resource_updates',
  'Step updated': 'step_updates',
  'Task updated': 'task_updates',
  'Imported message': 'conversation_events',
  'Field updated': 'field_updates',
  'Assessment updated': 'assessment_updates',
  Context: 'context_events',
  'Custom event': 'user_curated_events',
  Notification: 'notification_events',
} as const;
export type EventType = keyof typeof EVENT_TYPES;
export const TIMELINE_FILTERS = [
  { key: 'participant_updates', label: 'Participant updates', default: true },
  { key: 'other_events', label: 'Other events', default: true },
  { key: 'ai_generated_events', label: 'AI generated events', default: true },
  { key: 'resource_updates', label: 'Resource updates', default: true },
  { key: 'step_updates', label: 'Step updates', default: true },
  { key: 'task_updates', label: 'Task updates', default: true },
  { key: 'conversation_events', label: 'Conversation events', default: true },
  { key: 'field_updates', label: 'Field updates', default: false },
  { key: 'assessment_updates', label: 'Assessment updates', default: false },
  { key: 'context_events', label: 'Context', default: false },
  { key: 'user_curated_events', label: 'User curated events', default: false },
  { key: 'notification_events', label: 'Notifications', default: false },
] as const;
export const EVENT_SOURCES = ['Firewatch', 'Incident Participant', 'Case Participant', 'AI', 'Workflow', 'Conversation'] as const;

export interface NewEvent {
  incident_id?: number | null;
  case_id?: number | null;
  type: EventType;
  source?: string;
  description: string;
  details?: Record<string, unknown> | null;
  owner?: string | null;
  started_at?: Date;
  pinned?: boolean;
}

/** Writes one timeline entry; every change the API makes calls this. */
export async function addEvent(ctx: RequestContext, e: NewEvent) {
  const [row] = await ctx.tx
    .insert(events)
    .values({
      organization_id: ctx.orgId,
      incident_id: e.incident_id ?? null,
      case_id: e.case_id ?? null,
      type: e.type,
      source: e.source ?? 'Firewatch',
      description: e.description,
      details: e.details ?? null,
      owner: e.owner ?? null,
      pinned: e.pinned ?? false,
      ...(e.started_at ? { started_at: e.started_at } : {}),
    })
    .returning();
  // Every change writes a timeline entry, so this tells the record's open pages (at commit).
  await notifyChange(ctx, e);
  return row!;
}
