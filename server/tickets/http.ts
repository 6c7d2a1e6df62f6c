import type { Config } from '../core/config.js';
import { outboundFetch } from '../core/http/outbound.js';

/** The fetch jira.js is handed: every call to a ticketing system goes through core's outbound address policy. */
export const ticketsFetch =
  (policy: Pick<Config, 'OUTBOUND_ALLOW'>) =>
  (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
    outboundFetch(policy, input, init);
