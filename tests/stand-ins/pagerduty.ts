import { send, startStandIn } from './base.js';

/**
 * PagerDuty REST API v2 (`Authorization: Token token=…`, `Accept: application/vnd.pagerduty+json;version=2`):
 * GET /services/{id}, GET /oncalls (escalation_policy_ids[], include[]=users, offset/limit paging with
 * `more`), POST /incidents (the `From` header is required; an open incident with the same service and
 * incident_key is refused), GET /incidents?incident_key=, PUT /incidents/{id} (resolve). Error bodies
 * are PagerDuty's `{"error": {"message", "code", "errors"?}}`.
 */
export interface PdOnCall {
  policy: string;
  level: number;
  user: { id: string; email: string };
  end?: string;
}

export async function pagerDutyStandIn(key: string, data: { services: Record<string, string>; oncalls: PdOnCall[] }) {
  const incidents: { id: string; service: string; incident_key: string; status: string; title: string; from: string }[] = [];
  const error = (message: string, code: number, errors?: string[]) => ({ error: { message, code, ...(errors ? { errors } : {}) } });
  const stand = await startStandIn((req, res) => {
    if (req.headers.authorization !== `Token token=${key}`) return send(res, 401, error('Unauthorized', 2006));
    const service = /^\/services\/([A-Z0-9]+)$/.exec(req.path)?.[1];
    if (req.method === 'GET' && service) {
      const policy = data.services[service];
      return policy
        ? send(res, 200, { service: { id: service, type: 'service', escalation_policy: { id: policy, type: 'escalation_policy_reference' } } })
        : send(res, 404, error('Not Found', 2100));
    }
    if (req.method === 'GET' && req.path === '/oncalls') {
      const policies = req.query.getAll('escalation_policy_ids[]');
      const withUsers = req.query.getAll('include[]').includes('users');
      const offset = Number(req.query.get('offset') ?? 0);
      const limit = Number(req.query.get('limit') ?? 25);
      const all = data.oncalls.filter((o) => !policies.length || policies.includes(o.policy));
      const slice = all.slice(offset, offset + limit).map((o) => ({
        escalation_policy: { id: o.policy, type: 'escalation_policy_reference' },
        escalation_level: o.level,
        user: withUsers ? { id: o.user.id, type: 'user', email: o.user.email } : { id: o.user.id, type: 'user_reference' },
        start: null,
        end: o.end ?? null,
      }));
      return send(res, 200, { oncalls: slice, limit, offset, more: offset + limit < all.length, total: null });
    }
    if (req.method === 'POST' && req.path === '/incidents') {
      const from = req.headers.from;
      if (typeof from !== 'string' || !from)
        return send(res, 400, error('Invalid Input Provided', 2001, ['You must specify a user\'s email address in the "From" header to perform this action']));
      const { incident } = JSON.parse(req.body) as { incident: { title: string; service: { id: string }; incident_key: string } };
      if (!data.services[incident.service.id]) return send(res, 400, error('Invalid Input Provided', 2001, ['Service not found']));
      if (incidents.some((i) => i.service === incident.service.id && i.incident_key === incident.incident_key && i.status !== 'resolved'))
        return send(res, 400, error('Invalid Input Provided', 2001, [`Open incident with key '${incident.incident_key}' already exists.`]));
      const created = {
        id: `Q${String(incidents.length + 1).padStart(6, '0')}`,
        service: incident.service.id,
        incident_key: incident.incident_key,
        status: 'triggered',
        title: incident.title,
        from,
      };
      incidents.push(created);
      return send(res, 201, { incident: { ...created, type: 'incident' } });
    }
    if (req.method === 'GET' && req.path === '/incidents') {
      const k = req.query.get('incident_key');
      return send(res, 200, { incidents: incidents.filter((i) => !k || i.incident_key === k), more: false });
    }
    const id = /^\/incidents\/([A-Z0-9]+)$/.exec(req.path)?.[1];
    if (req.method === 'PUT' && id) {
      if (!req.headers.from) return send(res, 400, error('Invalid Input Provided', 2001, ['From header required']));
      const found = incidents.find((i) => i.id === id);
      if (!found) return send(res, 404, error('Not Found', 2100));
      found.status = (JSON.parse(req.body) as { incident: { status: string } }).incident.status;
      return send(res, 200, { incident: { ...found, type: 'incident' } });
    }
    send(res, 404, error('Not Found', 2100));
  });
  return { ...stand, incidents };
}
