import { send, startStandIn } from './base.js';

/**
 * Opsgenie REST (`Authorization: GenieKey …`), the lists an importer reads: GET /v2/users, /v2/teams and
 * /v2/teams/{id}, /v2/schedules?expand=rotation, /v2/schedules/{id}/overrides, /v2/escalations,
 * /v1/services. Lists are paged with limit/offset and `paging.next`; errors and 429s carry Opsgenie's
 * `{message, took, requestId}`.
 */
export interface OpsgenieData {
  users: { id: string; username: string; fullName: string }[];
  teams: { id: string; name: string; description?: string; members: { user: { id: string; username: string }; role: string }[] }[];
  schedules: Record<string, unknown>[];
  overrides: Record<string, Record<string, unknown>[]>;
  escalations: Record<string, unknown>[];
  services: { id: string; name: string; teamId: string; description?: string }[];
}

export async function opsgenieStandIn(key: string, data: OpsgenieData, pageSize = 2) {
  let n = 0;
  const requestId = () => `req-${++n}`;
  const stand = await startStandIn((req, res) => {
    if (req.headers.authorization !== `GenieKey ${key}`) return send(res, 401, { message: 'Could not authenticate', took: 0.001, requestId: requestId() });
    const list = (items: unknown[]) => {
      const offset = Number(req.query.get('offset') ?? 0);
      // The server caps a page (Opsgenie: 100 or 500), so a small cap here makes every list paged.
      const limit = Math.min(Number(req.query.get('limit') ?? pageSize), pageSize);
      const next = offset + limit < items.length ? `${stand.url}${req.path}?limit=${limit}&offset=${offset + limit}` : undefined;
      return send(res, 200, {
        data: items.slice(offset, offset + limit),
        paging: { ...(next ? { next } : {}) },
        totalCount: items.length,
        took: 0.01,
        requestId: requestId(),
      });
    };
    const team = /^\/v2\/teams\/([^/]+)$/.exec(req.path)?.[1];
    const overrides = /^\/v2\/schedules\/([^/]+)\/overrides$/.exec(req.path)?.[1];
    if (req.path === '/v2/users') return list(data.users);
    if (req.path === '/v2/teams') return send(res, 200, { data: data.teams.map(({ members: _m, ...t }) => t), took: 0.01, requestId: requestId() });
    if (team) {
      const found = data.teams.find((t) => t.id === team);
      return found
        ? send(res, 200, { data: found, took: 0.01, requestId: requestId() })
        : send(res, 404, { message: `No team exists with id [${team}]`, took: 0, requestId: requestId() });
    }
    if (req.path === '/v2/schedules') return send(res, 200, { data: data.schedules, expandable: ['rotation'], took: 0.01, requestId: requestId() });
    if (overrides) return send(res, 200, { data: data.overrides[overrides] ?? [], took: 0.01, requestId: requestId() });
    if (req.path === '/v2/escalations') return send(res, 200, { data: data.escalations, took: 0.01, requestId: requestId() });
    if (req.path === '/v1/services') return list(data.services);
    send(res, 404, { message: 'Requested resource not found', took: 0, requestId: requestId() });
  });
  return stand;
}

/** Opsgenie's rate limit answer. */
export const throttled = (seconds = 1) => ({
  status: 429,
  headers: { 'retry-after': String(seconds), 'x-ratelimit-state': 'THROTTLED' },
  body: { message: 'You are making too many requests! To avoid errors, we recommend you limit requests.', took: 0, requestId: 'throttled' },
});
