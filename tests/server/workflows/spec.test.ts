import t, { type Test } from 'tap';
import { incidentApp } from '../incidents/helpers.js';
import { LOOPBACK_STAND_INS } from '../../helpers.js';
import { until } from './receivers.js';
import { created } from '../factories.js';

/**
 * Issue 21 against spec §3 and §9: the workflows list's sorts and its plugin_instance {title, slug},
 * workflow runs of restricted incidents, and the step engine's switch with its default branch.
 */
async function setup(t: Test) {
  const base = await incidentApp(t, { JOB_POLL_SECONDS: '0.5', ...LOOPBACK_STAND_INS });
  const plugin = async (plugin_slug: string, title: string, configuration: Record<string, unknown> = {}) => {
    return created('plugin', await base.api('POST', '/plugins/instances', { plugin_slug, title, configuration, project_id: base.projectId })) as Record<
      string,
      any
    >;
  };
  const workflow = async (body: Record<string, unknown>) => {
    return created('workflow', await base.api('POST', '/workflows', { project_id: base.projectId, ...body })) as Record<string, any>;
  };
  const finished = (id: number) =>
    until(`workflow instance ${id} to finish`, async () => {
      base.app.queue.notify('workflow-runs');
      const res = await base.api('GET', `/workflows/instances/${id}`);
      return ['Completed', 'Failed'].includes(res.body.status) && (res.body as Record<string, any>);
    });
  return { ...base, plugin, workflow, finished };
}

t.test('the workflows list: no default sort, every spec field sorts, plugin_instance answers {id, title, slug}', async (t) => {
  const { api, plugin, workflow, projectId } = await setup(t);
  const steps = await plugin('step-engine', 'Zulu steps');
  const engine = await plugin('http-workflow-engine', 'Alpha engine', {
    url: 'http://127.0.0.1:9',
    signing_secret: `whsec_${Buffer.from('engine-secret-of-thirty-two-bytes!!').toString('base64')}`,
  });
  const other = await api('POST', '/projects', { name: 'Aardvark' });
  t.equal(other.status, 201);
  // Made in an order that no field sorts the same way.
  const note = [{ kind: 'timeline', with: { description: 'Noted' } }];
  const b = await workflow({ name: 'Bravo', description: 'c', enabled: true, resource_id: 'r-1', plugin_instance_id: steps.id, steps: note });
  const c = await workflow({ name: 'charlie', description: 'a', enabled: false, resource_id: 'r-3', plugin_instance_id: engine.id, project_id: other.body.id });
  const a = await workflow({ name: 'Alpha', description: 'b', enabled: true, resource_id: 'r-2', plugin_instance_id: steps.id, steps: note });

  const names = async (query: string) => {
    const res = await api('GET', `/workflows${query}`);
    t.equal(res.status, 200, `${query}: ${JSON.stringify(res.body)}`);
    return (res.body.items as { name: string }[]).map((w) => w.name);
  };
  t.same(await names(''), ['Bravo', 'charlie', 'Alpha'], 'spec §9: no default sort, the order they were made');
  t.same(await names('?sortBy=name'), ['Alpha', 'Bravo', 'charlie'], 'name, ignoring case');
  t.same(await names('?sortBy=name&descending=true'), ['charlie', 'Bravo', 'Alpha']);
  t.same(await names('?sortBy=description'), ['charlie', 'Alpha', 'Bravo']);
  t.same(await names('?sortBy=resource_id&descending=true'), ['charlie', 'Alpha', 'Bravo']);
  t.same(await names('?sortBy=enabled&sortBy=name'), ['charlie', 'Alpha', 'Bravo'], 'enabled (false first), then name');
  t.same(await names('?sortBy=id&descending=true'), ['Alpha', 'charlie', 'Bravo']);
  t.same(await names('?sortBy=plugin_instance&sortBy=name'), ['charlie', 'Alpha', 'Bravo'], 'plugin_instance sorts by its title');
  t.same(await names('?sortBy=plugin_instance.title&descending=true&sortBy=name'), ['Alpha', 'Bravo', 'charlie']);
  t.same(await names('?sortBy=project&sortBy=name'), ['charlie', 'Alpha', 'Bravo'], 'project sorts by its name (Aardvark before Ops)');
  t.same(await names('?sortBy=project.name&descending=true&sortBy=name'), ['Alpha', 'Bravo', 'charlie']);
  const bad = await api('GET', '/workflows?sortBy=parameters');
  t.equal(bad.status, 422, 'a list of parameters does not sort');
  t.same(bad.body.detail[0].loc, ['query', 'sortBy', 0]);

  const listed = (await api('GET', '/workflows')).body.items as Record<string, any>[];
  t.same(
    listed.map((w) => w.plugin_instance),
    [
      { id: steps.id, title: 'Zulu steps', slug: 'step-engine' },
      { id: engine.id, title: 'Alpha engine', slug: 'http-workflow-engine' },
      { id: steps.id, title: 'Zulu steps', slug: 'step-engine' },
    ],
    'spec §3: a workflow names its plugin instance by title and slug',
  );
  t.same(
    listed.map((w) => w.project),
    [
      { id: projectId, name: 'Ops' },
      { id: other.body.id, name: 'Aardvark' },
      { id: projectId, name: 'Ops' },
    ],
  );
  const one = (await api('GET', `/workflows/${a.id}`)).body;
  t.same(one.plugin_instance, { id: steps.id, title: 'Zulu steps', slug: 'step-engine' }, 'the record too');
  t.equal(one.plugin_instance_id, steps.id, 'beside its id');
  const instance = (await api('GET', `/plugins/instances/${engine.id}`)).body;
  t.match(instance, {
    enabled: true,
    configuration: { url: 'http://127.0.0.1:9' },
    configuration_schema: { type: 'object' },
    plugin: { slug: 'http-workflow-engine' },
  });
  t.ok(b.id < c.id && c.id < a.id);
});

t.test('runs of a restricted incident are seen only by those who can see the incident', async (t) => {
  const { api, login, plugin, workflow, finished, createIncident } = await setup(t);
  const steps = await plugin('step-engine', 'Steps');
  const wf = await workflow({ name: 'Note it', plugin_instance_id: steps.id, steps: [{ kind: 'timeline', with: { description: 'Noted' } }] });
  const open = await createIncident({ title: 'Checkout slow' });
  const secret = await createIncident({ title: 'Breach', visibility: 'Restricted' });
  const openRun = (await api('POST', `/workflows/${wf.id}/run`, { incident_id: open.id })).body;
  const secretRun = (await api('POST', `/workflows/${wf.id}/run`, { incident_id: secret.id })).body;
  t.equal((await finished(openRun.id)).status, 'Completed');
  t.equal((await finished(secretRun.id)).status, 'Completed');

  const member = await login('member@example.com', { role: 'Member' });
  t.equal((await api('GET', `/workflows/instances/${openRun.id}`, undefined, member)).status, 200, 'a run of an open incident');
  const hidden = await api('GET', `/workflows/instances/${secretRun.id}`, undefined, member);
  t.equal(hidden.status, 404, 'a run of a restricted incident the member is not on');
  const list = (await api('GET', '/workflows/instances', undefined, member)).body;
  t.same(
    list.items.map((i: any) => i.id),
    [openRun.id],
    'the list leaves it out',
  );
  t.equal(list.total, 1);
  const run = await api('POST', `/workflows/${wf.id}/run`, { incident_id: secret.id }, member);
  t.equal(run.status, 422, 'nor can the member run a workflow on it');
  t.same(run.body.detail[0].loc, ['body', 'incident_id']);
  t.equal(run.body.detail[0].msg, `Incident '${secret.id}' could not be found.`);

  const asOwner = (await api('GET', '/workflows/instances')).body;
  t.equal(asOwner.total, 2, 'the owner sees both runs');

  // Once a participant, the member sees the run.
  const added = await api('POST', `/iaos/${secret.id}/roles`, { email: 'member@example.com', role: 'participant' });
  t.equal(added.status, 200, JSON.stringify(added.body));
  t.equal((await api('GET', `/workflows/instances/${secretRun.id}`, undefined, member)).status, 200, 'a participant sees it');
});

t.test('a switch step runs the first matching case, else its default branch, and resumes a wait inside a branch', async (t) => {
  const { api, plugin, workflow, finished, createIncident } = await setup(t);
  const steps = await plugin('step-engine', 'Steps');
  const timeline = (description: string) => ({ kind: 'timeline', with: { description } });
  const wf = await workflow({
    name: 'Branches',
    plugin_instance_id: steps.id,
    parameters: [{ key: 'env', value: 'prod' }],
    steps: [
      timeline('before {{parameters.env}}'),
      {
        kind: 'switch',
        with: {
          value: '{{incident.status}}',
          cases: [
            { equals: 'Stable', steps: [timeline('stable branch')] },
            { equals: ['Active', 'Closed'], steps: [timeline('active branch'), { kind: 'wait', with: { seconds: 1 } }, timeline('active after wait')] },
          ],
          default: [timeline('status default')],
        },
      },
      {
        kind: 'switch',
        with: {
          value: '{{parameters.env}}',
          cases: [{ equals: 'prod', steps: [timeline('prod branch')] }],
          default: [timeline('env default'), { kind: 'set_field', with: { field: 'resolution', value: 'env {{parameters.env}}' } }],
        },
      },
      timeline('after the switches'),
    ],
  });
  const incident = await createIncident();
  // The workflow's entries on the incident timeline.
  const events = async () =>
    ((await api('GET', `/iaos/${incident.id}`)).body.events as { description: string; source: string }[])
      .filter((e) => e.source === 'Workflow')
      .map((e) => e.description);

  const first = await finished((await api('POST', `/workflows/${wf.id}/run`, { incident_id: incident.id })).body.id);
  t.equal(first.status, 'Completed', first.status_reason);
  let seen = (await events()).filter((d) => !d.startsWith('Workflow Branches submitted') && d !== 'Workflow Branches completed');
  t.same(
    seen.filter((d) => !d.includes('(switch)')),
    ['before prod', 'active branch', 'active after wait', 'prod branch', 'after the switches'],
    'the Active case (with its wait), then the prod case; no other branch',
  );
  t.same(
    seen.filter((d) => d.includes('(switch)')),
    ["Workflow Branches: Step 2 (switch) took case 2 for 'Active'", "Workflow Branches: Step 3 (switch) took case 1 for 'prod'"],
  );

  const second = await finished((await api('POST', `/workflows/${wf.id}/run`, { incident_id: incident.id, parameters: { env: 'staging' } })).body.id);
  t.equal(second.status, 'Completed', second.status_reason);
  seen = (await events()).slice(-7);
  t.ok(seen.includes("Workflow Branches: Step 3 (switch) took the default branch for 'staging'"), JSON.stringify(seen));
  t.ok(seen.includes('env default'));
  t.notOk(seen.includes('prod branch'));
  t.equal((await api('GET', `/iaos/${incident.id}`)).body.resolution, 'env staging', 'the default branch ran its steps');

  // A failure inside a branch names its place.
  const failing = await workflow({
    name: 'Bad branch',
    plugin_instance_id: steps.id,
    steps: [{ kind: 'switch', with: { value: 'x', cases: [{ equals: 'y', steps: [] }], default: [{ kind: 'set_field', with: { field: 'status' } }] } }],
  });
  const bad = await finished((await api('POST', `/workflows/${failing.id}/run`, { incident_id: incident.id })).body.id);
  t.equal(bad.status, 'Failed');
  t.equal(bad.status_reason, "Step 1, default, step 1 (set_field) failed: Field 'status' cannot be set by a workflow (title, description, resolution).");

  // Bad switches are refused where they are written.
  const noCases = await api('POST', '/workflows', {
    name: 'x',
    plugin_instance_id: steps.id,
    steps: [{ kind: 'switch', with: { value: '{{incident.status}}', cases: [] } }],
  });
  t.equal(noCases.status, 422);
  t.same(noCases.body.detail[0].loc, ['body', 'steps', 0, 'with', 'cases']);
  t.equal(noCases.body.detail[0].msg, 'A switch needs at least one case');
  const nestedKind = await api('POST', '/workflows', {
    name: 'x',
    plugin_instance_id: steps.id,
    steps: [{ kind: 'switch', with: { value: 'v', cases: [{ equals: 'v', steps: [{ kind: 'teleport' }] }] } }],
  });
  t.equal(nestedKind.status, 422);
  t.same(nestedKind.body.detail[0].loc, ['body', 'steps', 0, 'with', 'cases', 0, 'steps', 0, 'kind']);
  t.equal(nestedKind.body.detail[0].msg, 'Step kind must be one of message, email, webhook, task, timeline, set_field, wait, switch');
  t.equal((await api('GET', '/workflows')).body.total, 2, 'bad input changed nothing');
});
