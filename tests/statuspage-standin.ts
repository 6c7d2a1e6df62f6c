import { send, standIn, type Owner } from './standin.js';

/**
 * Atlassian Statuspage's REST API for one page with two components: `Authorization: OAuth <key>`,
 * {"error": ...} bodies, incidents created (201) and patched (each patch an incident update).
 */
export async function statuspageStandIn(t: Owner, opts: { key: string; pageId: string }) {
  const components = [
    { id: 'cmp-api', name: 'API', status: 'operational' },
    { id: 'cmp-web', name: 'Website', status: 'operational' },
  ];
  const incidents = new Map<string, { id: string; name: string; status: string; updates: { status: string; body: string }[] }>();
  const s = await standIn(t, (req, res) => {
    if (req.headers.authorization !== `OAuth ${opts.key}`) return send(res, 401, { error: 'Could not authenticate' });
    const prefix = `/v1/pages/${opts.pageId}`;
    if (!req.path.startsWith(prefix)) return send(res, 404, { error: 'Page not found' });
    const path = req.path.slice(prefix.length);
    const apply = (body: any) => {
      for (const [id, status] of Object.entries(body.incident.components ?? {})) {
        const c = components.find((x) => x.id === id);
        if (!c) return `Component ${id} not found`;
        c.status = status as string;
      }
      return null;
    };
    if (req.method === 'GET' && path === '/components') return send(res, 200, components);
    if (req.method === 'POST' && path === '/incidents') {
      const bad = apply(req.body);
      if (bad) return send(res, 422, { error: [bad] });
      const id = `inc${incidents.size + 1}`;
      const made = {
        id,
        name: req.body.incident.name,
        status: req.body.incident.status,
        updates: [{ status: req.body.incident.status, body: req.body.incident.body }],
      };
      incidents.set(id, made);
      return send(res, 201, { ...made, shortlink: `https://stspg.io/${id}` });
    }
    const m = /^\/incidents\/([^/]+)$/.exec(path);
    const incident = m && incidents.get(m[1]!);
    if (req.method === 'PATCH' && incident) {
      const bad = apply(req.body);
      if (bad) return send(res, 422, { error: [bad] });
      incident.status = req.body.incident.status ?? incident.status;
      incident.updates.push({ status: incident.status, body: req.body.incident.body });
      return send(res, 200, incident);
    }
    return send(res, 404, { error: 'Not found' });
  });
  return { ...s, components, incidents };
}
