import type { LoadedPlugin } from '../plugins/registry.js';

/** What Firewatch asks of a ticketing system; the plugin chooses project and issue type from `metadata`. */
export interface TicketRequest {
  kind: 'incident' | 'case';
  /** The organization's slug. */
  organization: string;
  /** IAO-12, OCO-3: also the label that finds the ticket again (an idempotent re-run). */
  name: string;
  title: string;
  description: string | null;
  /** The record's page in Firewatch. */
  link: string;
  type_name: string | null;
  priority_name: string | null;
  /** The incident or case type's plugin_metadata for this plugin, as key → value. */
  metadata: Record<string, unknown>;
}
export interface TicketRef {
  resource_type: string;
  resource_id: string;
  weblink: string;
  /** Said to the user when the ticket was made with less than asked (a field Jira would not take). */
  warning?: string;
}
/** Firewatch's side of a status: the ticket system's status category it belongs in. */
export type StatusCategory = 'new' | 'indeterminate' | 'done';

declare module '../plugins/registry.js' {
  interface Capabilities {
    /** Opens the ticket, or finds the one opened before for the same record. */
    create_ticket: (plugin: LoadedPlugin, ticket: TicketRequest) => Promise<TicketRef>;
    /** Moves the ticket to a status of `category`; answers the status it is in now. */
    update_ticket: (plugin: LoadedPlugin, resourceId: string, change: { category: StatusCategory; note: string }) => Promise<{ status: string }>;
    /** Checks the credentials and the rights the plugin needs; answers each finding in words. */
    check_ticket_health: (plugin: LoadedPlugin) => Promise<{ ok: boolean; findings: string[] }>;
  }
}

const INCIDENT: Record<string, StatusCategory> = { Active: 'indeterminate', Stable: 'indeterminate', Closed: 'done' };
const CASE: Record<string, StatusCategory> = { New: 'new', Triage: 'indeterminate', Escalated: 'indeterminate', Stable: 'indeterminate', Closed: 'done' };
export const categoryOf = (kind: 'incident' | 'case', status: string): StatusCategory => (kind === 'incident' ? INCIDENT : CASE)[status] ?? 'indeterminate';
