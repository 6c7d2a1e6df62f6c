import type { Config } from '../core/config.js';
import { rateLimitedFetch } from '../core/http/outbound.js';

/**
 * Every call the status page domain makes goes through here, and so through core's outbound address
 * policy; Statuspage has also limited with 420 (Enhance Your Calm), taken as a 429.
 */
export const statuspageFetch = (policy: Pick<Config, 'OUTBOUND_ALLOW'>, input: string, init: RequestInit = {}): Promise<Response> =>
  rateLimitedFetch(policy, input, init, { service: 'Statuspage', limitedStatuses: [429, 420] });
