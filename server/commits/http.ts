import type { Config } from '../core/config.js';
import { outboundFetch } from '../core/http/outbound.js';

/** The fetch Octokit is handed: every call the commits domain makes goes through core's outbound address policy. */
export const commitsFetch =
  (policy: Pick<Config, 'OUTBOUND_ALLOW'>) =>
  (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
    outboundFetch(policy, input, init);
