import type { LoadedPlugin } from '../plugins/registry.js';
import type { RequestContext } from '../core/context.js';

/** Runs work in a transaction of the page's organization (the caller's own, inside a request). */
export type Tenant = <T>(fn: (ctx: RequestContext) => Promise<T>) => Promise<T>;

export interface ServiceRef {
  id: number;
  name: string;
  type: string;
  external_id: string | null;
}
export interface PageRequest {
  page_id: number;
  key: string;
  title: string;
  details: string | null;
  service: ServiceRef | null;
}
export interface OnCallPerson {
  email: string;
  /** The escalation level or layer it came from, when the system says. */
  level?: number;
  until?: string | null;
}
export interface PushMessage {
  topic: string;
  title: string;
  text: string;
  /** ntfy's 1 (min) … 5 (urgent). */
  priority: number;
  actions: { label: string; url: string }[];
}

declare module '../plugins/registry.js' {
  interface Capabilities {
    /** Who is on call for a service at a moment. */
    who_is_on_call: (plugin: LoadedPlugin, query: { service: ServiceRef; at: Date }, env: { tenant: Tenant }) => Promise<OnCallPerson[]>;
    /** Starts paging for a page record; answers the remote system's id for it, if any. */
    page: (plugin: LoadedPlugin, page: PageRequest, env: { tenant: Tenant }) => Promise<{ external_id: string | null }>;
    /** Resolves a page there when its incident or case closed. */
    resolve_page: (plugin: LoadedPlugin, page: { key: string; external_id: string | null }) => Promise<void>;
    /** A push notification (ntfy). */
    send_push: (plugin: LoadedPlugin, message: PushMessage) => Promise<void>;
    /** An SMS and a voice call (Twilio). */
    send_sms: (plugin: LoadedPlugin, message: { to: string; text: string }) => Promise<void>;
    place_call: (plugin: LoadedPlugin, message: { to: string; text: string }) => Promise<void>;
    /** A direct message to a person of the chat workspace (the Slack app provides it). */
    send_direct_message: (plugin: LoadedPlugin, message: { user: string; text: string }) => Promise<void>;
  }
}
