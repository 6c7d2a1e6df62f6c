import { send, standIn, type Owner } from './standin.js';

const STATUSES = [
  { id: '1', name: 'To Do', statusCategory: { key: 'new' } },
  { id: '3', name: 'In Progress', statusCategory: { key: 'indeterminate' } },
  { id: '5', name: 'Done', statusCategory: { key: 'done' } },
];

/**
 * Jira Cloud REST v3 as far as Firewatch speaks it: basic auth (e-mail and API token), issues with
 * labels, enhanced JQL search by label, transitions by status category (204), 400 for a field that
 * is not on the screen, a missing create permission, myself and mypermissions.
 */
export async function jiraStandIn(t: Owner, opts: { email: string; token: string; offScreen?: string[]; forbiddenProjects?: string[] }) {
  const issues = new Map<string, { key: string; project: string; fields: any; status: (typeof STATUSES)[number]; labels: string[] }>();
  const auth = `Basic ${Buffer.from(`${opts.email}:${opts.token}`).toString('base64')}`;
  const s = await standIn(t, (req, res) => {
    if (req.headers.authorization !== auth) return send(res, 401, { errorMessages: ['Client must be authenticated to access this resource.'], errors: {} });
    const path = req.path.split('?')[0]!;
    let m: RegExpExecArray | null;
    if (req.method === 'POST' && path === '/rest/api/3/search/jql') {
      const label = /labels = "([^"]+)"/.exec(req.body.jql)?.[1];
      return send(res, 200, { issues: [...issues.values()].filter((i) => i.labels.includes(label!)).map((i) => ({ id: i.key, key: i.key })), isLast: true });
    }
    if (req.method === 'POST' && path === '/rest/api/3/issue') {
      const f = req.body.fields;
      if (f.description?.type !== 'doc')
        return send(res, 400, {
          errorMessages: [],
          errors: { description: 'Operation value must be an Atlassian Document (see the Atlassian Document Format)' },
        });
      if (opts.forbiddenProjects?.includes(f.project.key))
        return send(res, 400, { errorMessages: [], errors: { project: 'You do not have permission to create issues in this project.' } });
      const off = Object.keys(f).filter((k) => opts.offScreen?.includes(k));
      if (off.length)
        return send(res, 400, {
          errorMessages: [],
          errors: Object.fromEntries(off.map((k) => [k, `Field '${k}' cannot be set. It is not on the appropriate screen, or unknown.`])),
        });
      const key = `${f.project.key}-${issues.size + 1}`;
      issues.set(key, { key, project: f.project.key, fields: f, status: STATUSES[0]!, labels: f.labels ?? [] });
      return send(res, 201, { id: String(issues.size), key, self: `${s.url}/rest/api/3/issue/${issues.size}` });
    }
    if ((m = /^\/rest\/api\/3\/issue\/([^/]+)(\/transitions)?$/.exec(path))) {
      const issue = issues.get(m[1]!);
      if (!issue) return send(res, 404, { errorMessages: ['Issue does not exist or you do not have permission to see it.'], errors: {} });
      if (!m[2]) return send(res, 200, { key: issue.key, fields: { status: issue.status } });
      if (req.method === 'GET')
        return send(res, 200, {
          transitions: STATUSES.filter((st) => st !== issue.status).map((st) => ({ id: `t${st.id}`, name: `Move to ${st.name}`, to: st })),
        });
      const to = STATUSES.find((st) => `t${st.id}` === req.body.transition?.id);
      if (!to) return send(res, 400, { errorMessages: ['Transition id is not valid.'], errors: {} });
      issue.status = to;
      return send(res, 204);
    }
    if (path === '/rest/api/3/myself') return send(res, 200, { accountId: 'acc-1', displayName: 'Firewatch bot', emailAddress: opts.email });
    if (path === '/rest/api/3/mypermissions') {
      const project = new URL(req.path, s.url).searchParams.get('projectKey')!;
      const have = !opts.forbiddenProjects?.includes(project);
      return send(res, 200, {
        permissions: Object.fromEntries(
          ['BROWSE_PROJECTS', 'CREATE_ISSUES', 'EDIT_ISSUES', 'TRANSITION_ISSUES', 'ADD_COMMENTS'].map((p) => [
            p,
            { key: p, havePermission: have || p === 'BROWSE_PROJECTS' },
          ]),
        ),
      });
    }
    return send(res, 404, { errorMessages: [`No stand-in route for ${req.method} ${path}`] });
  });
  return { ...s, issues };
}
