import t from 'tap';
import { incidentApp } from '../incidents/helpers.js';

/** Issue 40: a first workflow needs no plugin instance, and one without steps is neither enabled nor run. */
const note = [{ kind: 'timeline', with: { description: 'Noted' } }];

t.test('a workflow made without an engine runs on the built-in step engine', async (t) => {
  const { api, projectId, createIncident } = await incidentApp(t);
  const first = await api('POST', '/workflows', { name: 'Tell the room', project_id: projectId, steps: note });
  t.equal(first.status, 201, JSON.stringify(first.body));
  t.match(first.body.plugin_instance, { slug: 'step-engine', title: 'Built-in step engine' });
  t.equal(first.body.enabled, true, 'with a step it is enabled');
  const second = await api('POST', '/workflows', { name: 'Tell the room again', project_id: projectId, steps: note });
  t.equal(second.body.plugin_instance_id, first.body.plugin_instance_id, 'one built-in engine per organization, reused');
  const preselected = await api('POST', '/workflows/default_engine');
  t.same(preselected.body, { id: first.body.plugin_instance_id, title: 'Built-in step engine' }, 'what the form preselects');
  const engines = (await api('GET', '/plugins/instances')).body.items.filter((p: { plugin_slug: string }) => p.plugin_slug === 'step-engine');
  t.equal(engines.length, 1);
  const incident = await createIncident();
  const run = await api('POST', `/workflows/${first.body.id}/run`, { incident_id: incident.id });
  t.equal(run.status, 201, JSON.stringify(run.body));
});

t.test('a workflow without steps stays off, cannot be switched on and cannot run', async (t) => {
  const { api, projectId, createIncident } = await incidentApp(t);
  const empty = await api('POST', '/workflows', { name: 'Nothing yet', project_id: projectId });
  t.equal(empty.status, 201, JSON.stringify(empty.body));
  t.equal(empty.body.enabled, false, 'made, but off until it has a step');
  const message = 'A workflow without steps has nothing to run: add a step before enabling or running it.';
  const on = await api('PUT', `/workflows/${empty.body.id}`, { enabled: true });
  t.equal(on.status, 422);
  t.match(on.body.detail, [{ msg: message, loc: ['body', 'enabled'] }]);
  const madeOn = await api('POST', '/workflows', { name: 'On but empty', project_id: projectId, enabled: true });
  t.equal(madeOn.status, 422, 'asked to be enabled without a step');
  const incident = await createIncident();
  const run = await api('POST', `/workflows/${empty.body.id}/run`, { incident_id: incident.id });
  t.equal(run.status, 422);
  t.match(run.body.detail, [{ msg: message }]);

  const filled = await api('PUT', `/workflows/${empty.body.id}`, { steps: note, enabled: true });
  t.equal(filled.status, 200, JSON.stringify(filled.body));
  t.equal(filled.body.enabled, true);
  const emptied = await api('PUT', `/workflows/${empty.body.id}`, { steps: [] });
  t.equal(emptied.status, 422, 'an enabled workflow keeps at least one step');
  const offAndEmpty = await api('PUT', `/workflows/${empty.body.id}`, { steps: [], enabled: false });
  t.equal(offAndEmpty.status, 200, 'switched off, it may be emptied');
});
