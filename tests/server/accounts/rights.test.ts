import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { RIGHTS, type Right } from '../../../server/core/rights.js';
import { testApp, type TestApp } from '../../helpers.js';

/**
 * The README's "Roles" table is the rights definition (server/core/rights.ts), and the server does what
 * it says: every right is tried by every role, in an organization of its own, and is allowed exactly
 * where the table says "yes".
 */
const ROLES = ['Member', 'Admin', 'Manager', 'Owner'] as const;
type Role = (typeof ROLES)[number];

function readmeTable() {
  const readme = readFileSync(join(import.meta.dirname, '..', '..', '..', 'README.md'), 'utf8');
  const lines = readme.slice(readme.indexOf('### Roles')).split('\n');
  const start = lines.findIndex((l) => l.startsWith('| what'));
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('|'));
  const header = lines[start]!;
  const rows = lines.slice(start + 2, end);
  return {
    header: header
      .split('|')
      .map((c) => c.trim())
      .filter(Boolean),
    rows: rows.map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    ),
  };
}

t.test('the README states the rights the server defines', async (t) => {
  const { header, rows } = readmeTable();
  t.same(header, ['what', ...ROLES]);
  const stated = rows.map(([what, ...cells]) => ({ what, least: ROLES[cells.indexOf('yes')] }));
  t.same(
    stated,
    Object.values(RIGHTS).map(({ what, least }) => ({ what, least })),
  );
  for (const [what, ...cells] of rows)
    t.same(
      cells,
      [...cells].sort((a, b) => (a === b ? 0 : a === 'no' ? -1 : 1)),
      `${what}: once a role has it, every higher role has it`,
    );
});

/** One organization with an Owner, the acting user in `role`, and a Member to act on. */
async function setup(app: TestApp, role: Role, n: number) {
  const org = await app.organization(`rights-${n}`);
  const actor = role === 'Owner' ? org.token : await app.login(`actor@rights-${n}.test`, { org: org.slug, role });
  await app.login(`target@rights-${n}.test`, { org: org.slug, role: 'Member' });
  const call = (method: string, path: string, payload?: unknown, token = actor) =>
    app.request({ method: method as never, url: `/api/v1/${org.slug}${path}`, token, payload: payload as never });
  const users = await call('GET', '/users?itemsPerPage=50', undefined, org.token);
  const target = users.body.items.find((u: { email: string }) => u.email === `target@rights-${n}.test`).id as number;
  const projects = await call('GET', '/projects', undefined, org.token);
  const projectId = projects.body.items[0].id as number;
  return { org, call, target, projectId };
}

type Probe = (s: Awaited<ReturnType<typeof setup>>) => Promise<{ status: number }>;
const probes: Record<Right, Probe> = {
  work: ({ call }) => call('POST', '/tag_types', { name: 'Probe' }),
  createProjects: ({ call }) => call('POST', '/projects', { name: 'Probe project' }),
  seeRestricted: async ({ call, org, projectId }) => {
    const made = await call('POST', '/iaos', { title: 'Quiet one', project_id: projectId, visibility: 'Restricted' }, org.token);
    return call('GET', `/iaos/${made.body.id}`);
  },
  apiKeys: ({ call, projectId }) => call('POST', '/apikeys', { project_id: projectId, description: 'probe' }),
  invite: ({ call }) => call('POST', '/invitations', { email: 'invitee@example.com', role: 'Admin' }),
  changeRoles: ({ call, target }) => call('PUT', `/users/${target}`, { role: 'Admin' }),
  removeMembers: ({ call, target }) => call('DELETE', `/users/${target}`),
  editOrganization: ({ call, org }) => call('PUT', `/organizations/${org.id}`, { description: 'Edited by the rights walk', allow_signup: true }),
  webhooks: ({ call }) => call('POST', '/tasks/reminders/send'),
  integrations: ({ call }) => call('POST', '/plugins/instances', { plugin_slug: 'step-engine', title: 'Probe engine', configuration: {} }),
  owners: ({ call }) => call('POST', '/invitations', { email: 'owner2@example.com', role: 'Owner' }),
  anonymousAccess: ({ call, org }) => call('PUT', `/organizations/${org.id}`, { anonymous_access: false }),
  deleteOrganization: ({ call, org }) => call('DELETE', `/organizations/${org.id}`),
};

t.test('every role has exactly the rights of the table', async (t) => {
  const app = await testApp(t);
  let n = 0;
  for (const [right, { least, what }] of Object.entries(RIGHTS) as [Right, (typeof RIGHTS)[Right]][]) {
    for (const role of ROLES) {
      const allowed = ROLES.indexOf(role) >= ROLES.indexOf(least);
      const res = await probes[right](await setup(app, role, n++));
      // A restricted record is not forbidden but absent for those who may not see it.
      const denied = right === 'seeRestricted' ? 404 : 403;
      if (allowed) t.ok(res.status >= 200 && res.status < 300, `${role}: ${what} (answered ${res.status})`);
      else t.equal(res.status, denied, `${role} may not: ${what}`);
    }
  }
});

t.test('API keys are listed and read by Admins and above: a Member and an API key get 403 in the detail shape', async (t) => {
  const app = await testApp(t);
  const made = await setup(app, 'Admin', 0);
  const key = await made.call('POST', '/apikeys', { project_id: made.projectId, description: 'script' });
  t.equal(key.status, 201);
  const member = await app.login('member@rights-0.test', { org: made.org.slug, role: 'Member' });
  for (const [who, token] of [
    ['Member', member],
    ['API key', key.body.key as string],
  ] as const) {
    for (const path of ['/apikeys', `/apikeys/${key.body.id}`]) {
      const res = await made.call('GET', path, undefined, token);
      t.same(
        {
          status: res.status,
          type: res.body.detail?.[0]?.type,
          loc: res.body.detail?.[0]?.loc,
          prefix: JSON.stringify(res.body).includes(key.body.key_prefix),
        },
        { status: 403, type: 'forbidden', loc: [], prefix: false },
        `${who}: GET ${path}`,
      );
    }
  }
  for (const role of ['Admin', 'Manager', 'Owner'] as const) {
    const token = role === 'Owner' ? made.org.token : await app.login(`${role.toLowerCase()}@rights-0.test`, { org: made.org.slug, role });
    const list = await made.call('GET', '/apikeys', undefined, token);
    const one = await made.call('GET', `/apikeys/${key.body.id}`, undefined, token);
    t.same([list.status, list.body.total, one.status, one.body.key_prefix], [200, 1, 200, key.body.key_prefix], `${role} lists and reads them`);
  }
});
