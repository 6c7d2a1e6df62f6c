import { getTableColumns } from 'drizzle-orm';
import t from 'tap';
import { cases, incidents } from '../../../server/schema.js';
import { resources } from '../../../server/resources.js';
import { incidentApp } from './helpers.js';

/**
 * A restricted incident (and a restricted case) is seen only by its participants and by Admins and
 * above: through its own routes, and through every row that belongs to it (tasks, feedback, forms...).
 */

const MARK = 'QUOKKASECRET';

/** Every CRUD resource whose rows belong to an incident or a case (the incidents and cases lists have their own scope). */
/** Every route on one incident (and the case routes), with a body it would accept. */
const subRoutes: [string, string, Record<string, unknown>?][] = [
  ['GET', '/iaos/{id}'],
  ['PUT', '/iaos/{id}', { title: 'changed by outsider' }],
  ['DELETE', '/iaos/{id}'],
  ['GET', '/iaos/{id}/costs'],
  ['GET', '/iaos/{id}/conversation/messages'],
  ['POST', '/iaos/{id}/conversation/messages', { text: 'hello' }],
  ['GET', '/iaos/similar-incidents/{id}'],
  ['GET', '/iaos/{id}/report/prefill'],
  ['POST', '/iaos/{id}/report/{type}', { conditions: 'x' }],
  ['POST', '/iaos/{id}/event', { description: 'x' }],
  ['PATCH', '/iaos/{id}/event', { id: 1, description: 'changed by outsider' }],
  ['DELETE', '/iaos/{id}/event/{eventId}'],
  ['POST', '/iaos/{id}/comments/add', { text: 'x' }],
  ['POST', '/iaos/{id}/add-resource', { resource_type: 'doc', name: 'x' }],
  ['POST', '/iaos/{id}/postmortem/create'],
  ['GET', '/iaos/{id}/resources/{resourceId}'],
  ['POST', '/iaos/{id}/handoff', { handover_from: 'a', handover_to: 'b' }],
  ['POST', '/iaos/{id}/join'],
  ['POST', '/iaos/{id}/subscribe'],
  ['POST', '/iaos/{id}/unsubscribe'],
  ['POST', '/iaos/{id}/roles', { email: 'outsider@example.com', role: 'participant' }],
  ['POST', '/iaos/{id}/roles/{roleId}/renounce'],
  ['POST', '/iaos/{id}/stable'],
  ['POST', '/iaos/{id}/closed'],
  ['POST', '/iaos/{id}/active'],
  ['GET', '/iaos/{id}/statuspage/preview'],
  ['POST', '/iaos/{id}/statuspage', { name: 'x', status: 'investigating', body: 'x' }],
  ['GET', '/iaos/{id}/suspect-commits'],
  ['GET', '/incident_steps/{id}/steps'],
  ['PUT', '/incident_steps/{id}/{stepId}', { notes: 'x' }],
  ['GET', '/incident_steps/{id}/{stepId}/ai-summary'],
  ['GET', '/cases/{id}'],
  ['PUT', '/cases/{id}', { title: 'changed by outsider' }],
  ['DELETE', '/cases/{id}'],
  ['PUT', '/cases/{id}/escalate', {}],
  ['GET', '/cases/{id}/probable_cause'],
  ['POST', '/cases/{id}/comments/add', { text: 'x' }],
];

const linkedResources = resources.filter((def) => {
  const columns = getTableColumns(def.table);
  return def.table !== incidents && def.table !== cases && ('incident_id' in columns || 'case_id' in columns);
});

t.test('rows and sub-routes of a restricted incident or case: only participants and admins', async (t) => {
  const app = await incidentApp(t);
  const { api, createIncident, projectId, login, drain } = app;
  const outsider = await login('outsider@example.com', { role: 'Member' });
  const insider = await login('insider@example.com', { role: 'Member' });
  const admin = await login('admin@example.com', { role: 'Admin' });
  const key = (await api('POST', '/apikeys', { project_id: projectId, description: 'script' })).body.key as string;

  const open = await createIncident({ title: 'Disk full on the build host', description: 'The build host disk is full.' });
  const secret = await createIncident({ title: `Disk full on the ${MARK} host`, description: `The ${MARK} host disk is full.`, visibility: 'Restricted' });
  t.equal((await api('POST', `/iaos/${secret.id}/roles`, { email: 'insider@example.com', role: 'participant' })).status, 200, 'the insider takes part');
  const secretCase = (await api('POST', '/cases', { title: `${MARK} case`, project_id: projectId, visibility: 'Restricted' })).body;
  const openCase = (await api('POST', '/cases', { title: 'Printer jam', project_id: projectId, visibility: 'Open' })).body;
  await drain();

  // One row of each linked resource on the restricted incident (and a task on the restricted case).
  const formType = (await api('POST', '/form_types', { name: 'Checklist', form_schema: { type: 'object' } })).body;
  const seeded: Record<string, { path: string; id: number; update: Record<string, unknown>; onCase?: boolean }[]> = {};
  const seed = async (model: string, path: string, body: Record<string, unknown>, update: Record<string, unknown>) => {
    const res = await api('POST', path, body);
    t.equal(res.status, 201, `${model} created on the restricted incident or case`);
    (seeded[model] ??= []).push({ path, id: res.body.id, update });
  };
  await seed('Task', '/tasks', { description: `${MARK} rotate the keys`, incident_id: secret.id }, { description: 'changed by outsider' });
  await seed('Task', '/tasks', { description: `${MARK} case follow-up`, case_id: secretCase.id }, { description: 'changed by outsider' });
  await seed('Feedback', '/feedback', { rating: 'Very satisfied', feedback: `${MARK} went well`, incident_id: secret.id }, { feedback: 'changed by outsider' });
  await seed('Form', '/forms', { form_type_id: formType.id, incident_id: secret.id, creator: MARK }, { creator: 'changed by outsider' });
  // Rows the API only lists (workflow runs, plugin events, signal instances) go straight into their tables.
  const insert = async (model: string, values: Record<string, unknown>, onCase = false) => {
    const def = resources.find((d) => d.model === model)!;
    const [row] = (await app.database.db
      .insert(def.table)
      .values({ organization_id: secret.organization_id, ...values } as never)
      .returning()) as { id: number }[];
    (seeded[model] ??= []).push({ path: def.path, id: row!.id, update: {}, onCase });
  };
  const steps = (await api('POST', '/plugins/instances', { plugin_slug: 'step-engine', title: 'Steps' })).body;
  const workflow = (await api('POST', '/workflows', { name: 'Page the owners', plugin_instance_id: steps.id })).body;
  await insert('WorkflowInstance', {
    workflow_id: workflow.id,
    incident_id: secret.id,
    run_reason: `${MARK} run`,
    deadline_at: new Date(Date.now() + 3_600_000),
  });
  await insert('PluginEvent', { plugin_slug: 'step-engine', name: `${MARK} message posted`, incident_id: secret.id });
  await insert('OncallPage', { key: `${MARK}-page`, title: `${MARK} page`, incident_id: secret.id });
  await insert('OncallPage', { key: `${MARK}-case-page`, title: `${MARK} case page`, case_id: secretCase.id }, true);
  const signal = (await api('POST', '/signals', { name: 'Disk alerts', project_id: projectId })).body;
  // Already processed: the signal processor would otherwise give it a case of its own.
  await insert('SignalInstance', { signal_id: signal.id, source: 'native', raw: { host: MARK }, case_id: secretCase.id, processed_at: new Date() }, true);
  t.same(
    linkedResources.map((d) => d.model).filter((m) => !seeded[m]),
    [],
    'every resource with an incident_id or case_id is walked',
  );
  // Rows of the open incident and case stay visible to everyone.
  const openTask = (await api('POST', '/tasks', { description: 'clean the disk', incident_id: open.id })).body;
  const openCaseTask = (await api('POST', '/tasks', { description: 'clear the jam', case_id: openCase.id })).body;

  // Timeline, comments, reports, conversation on the restricted incident.
  const event = (await api('POST', `/iaos/${secret.id}/event`, { description: `${MARK} event` })).body;
  t.equal((await api('POST', `/iaos/${secret.id}/comments/add`, { text: `${MARK} comment` })).status, 201);
  t.equal((await api('POST', `/iaos/${secret.id}/report/tactical`, { conditions: `${MARK} conditions` })).status, 201);
  t.equal((await api('POST', `/iaos/${secret.id}/conversation/messages`, { text: `${MARK} message` })).status, 201);

  const linkedOf = (def: (typeof linkedResources)[number]) => ({
    incident: 'incident_id' in getTableColumns(def.table),
    case: 'case_id' in getTableColumns(def.table),
  });
  const hidden = (rows: Record<string, unknown>[]) =>
    rows.filter((r) => r.incident_id === secret.id || r.case_id === secretCase.id || JSON.stringify(r).includes(MARK));

  for (const [who, token] of [
    ['a Member who takes no part', outsider],
    ['an API key', key],
  ] as const) {
    await t.test(`${who} never sees nor changes them`, async (t) => {
      for (const def of linkedResources) {
        const list = await api('GET', `${def.path}?itemsPerPage=-1`, undefined, token);
        t.equal(list.status, 200, `${def.path} lists`);
        t.same(hidden(list.body.items), [], `${def.path}: no row of the restricted incident or case`);
        const searched = await api('GET', `${def.path}?q=${MARK}`, undefined, token);
        t.equal(searched.body.total, 0, `${def.path}?q= finds nothing`);
        if (linkedOf(def).incident) {
          const byId = await api(
            'GET',
            `${def.path}?filter=${encodeURIComponent(JSON.stringify([{ field: 'incident_id', op: '==', value: secret.id }]))}`,
            undefined,
            token,
          );
          t.equal(byId.body.total, 0, `${def.path} filtered by incident_id`);
        }
        for (const row of seeded[def.model]!) {
          t.equal((await api('GET', `${row.path}/${row.id}`, undefined, token)).status, 404, `${row.path}/${row.id} is not found`);
          t.equal((await api('PUT', `${row.path}/${row.id}`, row.update, token)).status, 404, `${row.path}/${row.id} cannot be changed`);
          t.equal((await api('DELETE', `${row.path}/${row.id}`, undefined, token)).status, 404, `${row.path}/${row.id} cannot be deleted`);
        }
      }
      const byName = await api(
        'GET',
        `/tasks?filter=${encodeURIComponent(JSON.stringify([{ model: 'Incident', field: 'name', op: '==', value: secret.name }]))}`,
        undefined,
        token,
      );
      t.equal(byName.body.total, 0, 'the Incident.name filter finds no task (nor tells the incident exists)');
      const byNames = await api(
        'GET',
        `/tasks?filter=${encodeURIComponent(JSON.stringify([{ model: 'Incident', field: 'name', op: 'in', value: [secret.name, open.name] }]))}`,
        undefined,
        token,
      );
      t.same(
        byNames.body.items.map((r: { id: number }) => r.id),
        [openTask.id],
      );
      for (const [action] of [['mark-resolved'], ['mark-open']]) {
        t.equal((await api('POST', `/tasks/${seeded.Task![0]!.id}/${action}`, undefined, token)).status, 404, `task ${action}`);
      }

      // References to the restricted incident or case (or its participants) are refused as unknown.
      const refused = async (path: string, body: Record<string, unknown>, field: string) => {
        const res = await api('POST', path, body, token);
        t.equal(res.status, 422, `${path} with ${field}`);
        t.equal(res.body.detail?.[0]?.loc?.at(-1), field);
      };
      await refused('/feedback', { rating: 'Very dissatisfied', incident_id: secret.id }, 'incident_id');
      await refused('/forms', { form_type_id: formType.id, incident_id: secret.id }, 'incident_id');
      await refused('/tasks', { description: 'sneak in', incident_id: secret.id }, 'incident_id');
      await refused('/tasks', { description: 'sneak in', case_id: secretCase.id }, 'case_id');
      t.equal((await api('PUT', `/tasks/${openTask.id}`, { incident_id: secret.id }, token)).status, 422, 'a visible task cannot be moved onto it');

      // Every incident sub-route answers 404 for the restricted incident.
      for (const [method, template, body] of subRoutes) {
        const path = template
          .replace('{id}', String(template.startsWith('/cases') ? secretCase.id : secret.id))
          .replace('{eventId}', String(event.id))
          .replace(/\{(roleId|stepId|resourceId)\}/, '1')
          .replace('{type}', 'tactical');
        const res = await api(method, path, body && 'id' in body ? { ...body, id: event.id } : body, token);
        t.equal(res.status, 404, `${method} ${path}: ${JSON.stringify(res.body).slice(0, 120)}`);
      }
      t.equal((await api('GET', `/oncall/handoffs/prefill?incident_id=${secret.id}`, undefined, token)).status, 404, 'handoff prefill');
      const similar = await api('GET', `/iaos/similar-incidents/${open.id}`, undefined, token);
      t.notOk(
        similar.body.items.some((i: { id: number }) => i.id === secret.id),
        'not among similar incidents',
      );
      const summary = (await api('GET', '/iaos/metric/summary', undefined, token)).body;
      t.equal(summary.incidents.total, 1, 'dashboards count the open incident only');
      t.equal(summary.tasks.total, 2, "dashboards count the open incident's and case's tasks only");
      t.notOk(JSON.stringify(summary).includes(MARK), 'no restricted text on the dashboards');
      const openCaseRecord = await api('GET', `/cases/${openCase.id}`, undefined, token);
      t.same(
        openCaseRecord.body.tasks.map((x: { id: number }) => x.id),
        [openCaseTask.id],
      );
      t.equal((await api('GET', `/tasks/${openTask.id}`, undefined, token)).status, 200, 'tasks of open incidents are seen');
    });
  }

  // The walk above covers every route the API has on one incident or case.
  const paths = (await app.request({ method: 'GET', url: '/api/v1/docs/json' })).body.paths as Record<string, Record<string, unknown>>;
  const documented = Object.entries(paths)
    .filter(([p]) => /\/(iaos|incident_steps|cases)\/(\{id\}|similar-incidents\/\{id\})/.test(p))
    .flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${p.replace('/api/v1/{organization}', '')}`));
  const walked = new Set(subRoutes.map(([method, template]) => `${method} ${template}`));
  t.ok(documented.length >= 25, `${documented.length} routes on one incident or case`);
  t.same(
    documented.filter((r) => !walked.has(r)),
    [],
    'every one is walked',
  );

  // Nothing was changed by the outsiders.
  const full = (await api('GET', `/iaos/${secret.id}`)).body;
  t.equal(full.title, `Disk full on the ${MARK} host`);
  t.same(
    full.tasks.map((x: { description: string }) => x.description),
    [`${MARK} rotate the keys`],
  );
  t.ok(
    full.events.some((e: { id: number; description: string }) => e.id === event.id && e.description === `${MARK} event`),
    'the event is unchanged',
  );

  for (const [who, token] of [
    ['a participant', insider],
    ['an Admin', admin],
  ] as const) {
    await t.test(`${who} sees them`, async (t) => {
      const tasks = await api('GET', '/tasks?itemsPerPage=-1', undefined, token);
      t.ok(
        tasks.body.items.some((r: { id: number }) => r.id === seeded.Task![0]!.id),
        'the task of the restricted incident',
      );
      for (const def of linkedResources) {
        // The insider takes part in the incident, not the restricted case: rows of the case are the Admin's.
        for (const row of seeded[def.model]!.filter((r, i) => (def.model !== 'Task' || i === 0 || who === 'an Admin') && (!r.onCase || who === 'an Admin'))) {
          t.equal((await api('GET', `${row.path}/${row.id}`, undefined, token)).status, 200, `${row.path}/${row.id}`);
        }
      }
      const byName = await api(
        'GET',
        `/tasks?filter=${encodeURIComponent(JSON.stringify([{ model: 'Incident', field: 'name', op: '==', value: secret.name }]))}`,
        undefined,
        token,
      );
      t.equal(byName.body.total, 1);
      t.equal((await api('GET', `/iaos/${secret.id}/costs`, undefined, token)).status, 200);
      t.equal((await api('GET', `/iaos/${secret.id}/conversation/messages`, undefined, token)).body.items.length, 1);
      t.equal((await api('PUT', `/tasks/${seeded.Task![0]!.id}`, { status: 'Resolved' }, token)).status, 200, 'and may change its task');
      t.equal((await api('GET', '/iaos/metric/summary', undefined, token)).body.tasks.total, who === 'an Admin' ? 4 : 3);
    });
  }
});
