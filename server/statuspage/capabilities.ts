import type { LoadedPlugin } from '../plugins/registry.js';

export const PAGE_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
export const COMPONENT_STATUSES = ['operational', 'degraded_performance', 'partial_outage', 'major_outage', 'under_maintenance'] as const;
export type PageStatus = (typeof PAGE_STATUSES)[number];

/** What the public reads: never the incident's internal description or notes. */
export interface StatusUpdate {
  name: string;
  status: PageStatus;
  body: string;
  /** Component id → its status. */
  components: Record<string, string>;
}
export interface Component {
  id: string;
  name: string;
  status: string;
}

declare module '../plugins/registry.js' {
  interface Capabilities {
    /** The page's components with their status now (the preview). */
    list_status_components: (plugin: LoadedPlugin) => Promise<Component[]>;
    /** Opens the incident on the page. */
    post_status: (plugin: LoadedPlugin, update: StatusUpdate) => Promise<{ id: string; weblink: string }>;
    /** A follow-up update of an incident on the page (a resolve is one with status resolved). */
    update_status: (plugin: LoadedPlugin, id: string, update: StatusUpdate) => Promise<void>;
    resolve_status: (plugin: LoadedPlugin, id: string, update: Omit<StatusUpdate, 'status'>) => Promise<void>;
  }
}
