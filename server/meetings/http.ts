import type { Config } from '../core/config.js';
import { rateLimitedFetch } from '../core/http/outbound.js';

/** A short Retry-After is waited for here: a conference link is made while the incident is provisioned. */
const WAIT_IN_PLACE_SECONDS = 10;

/** Every call the meetings domain makes goes through here, and so through core's outbound address policy. */
export const meetingsFetch = (service: string, policy: Pick<Config, 'OUTBOUND_ALLOW'>, input: string, init: RequestInit = {}): Promise<Response> =>
  rateLimitedFetch(policy, input, init, { service, waitInPlaceUpTo: WAIT_IN_PLACE_SECONDS, attempts: 2 });
