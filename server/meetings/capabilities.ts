import type { LoadedPlugin } from '../plugins/registry.js';

export interface MeetingRequest {
  title: string;
  description: string;
  start: Date;
  minutes: number;
  attendees: string[];
  /** Same request, same meeting (Google's createRequest.requestId). */
  request_id: string;
}

declare module '../plugins/registry.js' {
  interface Capabilities {
    /** Schedules a meeting with a video link and invites the attendees. */
    schedule_meeting: (plugin: LoadedPlugin, meeting: MeetingRequest) => Promise<{ weblink: string; meeting_id: string }>;
  }
}

/** A refusal's words from a Google or Zoom error body ({error:{message}}, {error_description}, {message}). */
export function serviceWords(service: string, hint: string) {
  return (status: number, body: unknown) => {
    const b = (body ?? {}) as { error?: { message?: string } | string; error_description?: string; message?: string };
    const said = (typeof b.error === 'object' ? b.error?.message : (b.error_description ?? b.error)) ?? b.message ?? String(body ?? '').slice(0, 200);
    if (status === 401 || status === 400) return `${service} refused the credentials (${status}): ${said}. ${hint}`;
    if (status === 403) return `${service} refused the call (403): ${said}. ${hint}`;
    return `${service} answered ${status}: ${said}`;
  };
}
