import t from 'tap';
import { ensureDefaults } from '../../../server/accounts/service.js';
import { testApp } from '../../helpers.js';

/** A new organization works at once: a project, settings with defaults, applied when a create leaves them out. */
const LADDERS = ['incident_priorities', 'incident_severities', 'case_priorities', 'case_severities'];
const TYPES = ['incident_types', 'case_types'];

t.test("a new organization starts with a team's day-one settings", async (t) => {
  const app = await testApp(t);
  const org = await app.organization('newco');
  const get = (path: string) => app.request({ method: 'GET', url: `/api/v1/newco${path}`, token: org.token });
  const projects = (await get('/projects')).body.items;
  t.same(
    projects.map((p: { name: string }) => p.name),
    ['Default'],
    'one project, Default',
  );
  for (const path of [...LADDERS, ...TYPES]) {
    const items = (await get(`/${path}?itemsPerPage=100`)).body.items as {
      name: string;
      enabled: boolean;
      default: boolean;
      color?: string;
      view_order?: number;
      project_id: number;
    }[];
    t.ok(items.length >= 3, `${path}: several`);
    t.equal(items.filter((i) => i.default).length, 1, `${path}: exactly one default`);
    t.ok(
      items.every((i) => i.enabled && i.project_id === projects[0].id),
      `${path}: enabled, in the default project`,
    );
    if (LADDERS.includes(path)) {
      t.ok(
        items.every((i) => /^#[0-9A-F]{6}$/.test(i.color!)),
        `${path}: each has a colour`,
      );
      t.equal(new Set(items.map((i) => i.view_order)).size, items.length, `${path}: a distinct view order each`);
    }
  }
  for (const path of ['/incident_cost_types', '/incident_roles', '/tag_types', '/cost_models'])
    t.ok((await get(path)).body.items.length >= 1, `${path}: seeded`);
  const templates = (await get('/documents?itemsPerPage=100')).body.items.filter((d: { resource_type: string }) =>
    d.resource_type?.endsWith('-document-template'),
  );
  t.equal(templates.length, 8, 'one document of each template type');
  const other = await app.organization('otherco');
  const theirs = await app.request({ method: 'GET', url: '/api/v1/otherco/incident_types', token: other.token });
  t.equal(theirs.body.items.length, (await get('/incident_types')).body.items.length, 'every new organization gets its own');
});

t.test('incidents and cases created without a type, priority or severity get the defaults', async (t) => {
  const app = await testApp(t);
  const token = await app.login('owner@example.com');
  const call = (method: string, path: string, payload?: unknown) =>
    app.request({ method: method as never, url: `/api/v1/default${path}`, token, payload: payload as never });
  const project = (await call('GET', '/projects')).body.items[0];
  const byName = async (path: string) =>
    Object.fromEntries(((await call('GET', `${path}?itemsPerPage=100`)).body.items as { name: string; id: number }[]).map((i) => [i.name, i.id]));
  const [types, priorities, severities] = await Promise.all([byName('/incident_types'), byName('/incident_priorities'), byName('/incident_severities')]);

  const made = await call('POST', '/iaos', { title: 'Checkout is slow', project_id: project.id });
  t.equal(made.status, 201);
  const incident = (await call('GET', `/iaos/${made.body.id}`)).body;
  t.equal(incident.incident_type_id, types.Default);
  t.equal(incident.incident_priority_id, priorities.Medium);
  t.equal(incident.incident_severity_id, severities.Undetermined);

  const chosen = await call('POST', '/iaos', {
    title: 'Login down',
    project_id: project.id,
    incident_priority_id: priorities.Critical,
    incident_severity_id: null,
  });
  const second = (await call('GET', `/iaos/${chosen.body.id}`)).body;
  t.equal(second.incident_priority_id, priorities.Critical, 'a given value is kept');
  t.equal(second.incident_severity_id, null, 'an explicit null stays null');

  // Switched off, the default is neither applied nor offered.
  await call('PUT', `/incident_priorities/${priorities.Medium}`, { enabled: false });
  const third = (await call('GET', `/iaos/${(await call('POST', '/iaos', { title: 'Queue backlog', project_id: project.id })).body.id}`)).body;
  t.equal(third.incident_priority_id, null, 'a disabled default is not applied');
  const meta = (await call('GET', '/meta/resources')).body;
  const incidentMeta = (Array.isArray(meta) ? meta : meta.resources).find((r: { name?: string; path?: string }) => r.path === '/iaos');
  const field = JSON.stringify(incidentMeta);
  t.match(field, /"incident_priority_id"[^}]*"referenceFilter":\{"enabled":true\}/, 'the admin picker asks for enabled priorities only');

  const caseTypes = await byName('/case_types');
  const casePriorities = await byName('/case_priorities');
  const kase = await call('POST', '/cases', { title: 'Phishing report', project_id: project.id });
  t.equal(kase.status, 201);
  const c = (await call('GET', `/cases/${kase.body.id}`)).body;
  t.equal(c.case_type_id, caseTypes.Default);
  t.equal(c.case_priority_id, casePriorities.Medium);
});

t.test('an existing default organization is seeded once, and what was deleted stays deleted', async (t) => {
  const app = await testApp(t);
  const token = await app.login('owner@example.com');
  const projects = await app.request({ method: 'GET', url: '/api/v1/default/projects', token });
  t.equal(projects.body.items.length, 1, 'default got its project at start');
  const gone = await app.request({ method: 'DELETE', url: `/api/v1/default/projects/${projects.body.items[0].id}`, token });
  t.equal(gone.status, 204);
  await ensureDefaults(app.database.db, { trialDays: 14 });
  const after = await app.request({ method: 'GET', url: '/api/v1/default/projects', token });
  t.equal(after.body.items.length, 0, 'a restart does not bring it back');
});
