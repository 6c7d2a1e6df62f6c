import t from 'tap';
import { incidentApp } from '../incidents/helpers.js';

t.test('spec §3: a workflow answers case and incident, those its latest run the caller may see ran for', async (t) => {
  const { api, login, createIncident, projectId } = await incidentApp(t);
  const ok = async (method: string, path: string, body?: unknown, token?: string) => {
    const res = await api(method, path, body, token);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Record<string, any>;
  };
  const wf = await ok('POST', '/workflows', { name: 'Note it', project_id: projectId, steps: [{ kind: 'timeline', with: { description: 'Noted' } }] });
  const fresh = await ok('GET', `/workflows/${wf.id}`);
  t.equal(fresh.incident, null, 'never run: no incident');
  t.equal(fresh.case, null, 'nor case');

  const open = await createIncident({ title: 'Checkout slow' });
  await ok('POST', `/workflows/${wf.id}/run`, { run_reason: 'first', workflow: { id: wf.id }, incident: { id: open.id } });
  const afterIncident = await ok('GET', `/workflows/${wf.id}`);
  t.same(afterIncident.incident, { id: open.id, name: open.name }, 'the incident it ran for, as {id, name}');
  t.equal(afterIncident.case, null);

  const kase = await ok('POST', '/cases', { title: 'Odd login', project_id: projectId });
  await ok('POST', `/workflows/${wf.id}/run`, { run_reason: 'second', case: { id: kase.id } });
  const listed = (await ok('GET', '/workflows')).items.find((w: any) => w.id === wf.id);
  t.same(listed.case, { id: kase.id, name: kase.name }, 'the list answers the latest run: a case');
  t.equal(listed.incident, null, 'which ran for no incident');

  // A run on a restricted incident is the owner's latest; a member not on it still sees the one before.
  const secret = await createIncident({ title: 'Breach', visibility: 'Restricted' });
  await ok('POST', `/workflows/${wf.id}/run`, { incident_id: secret.id });
  t.same((await ok('GET', `/workflows/${wf.id}`)).incident, { id: secret.id, name: secret.name });
  const member = await login('member@example.com', { role: 'Member' });
  const asMember = await ok('GET', `/workflows/${wf.id}`, undefined, member);
  t.equal(asMember.incident, null, 'the member sees the case run as the latest, not the restricted one');
  t.same(asMember.case, { id: kase.id, name: kase.name });
  t.notOk(JSON.stringify(await ok('GET', '/workflows', undefined, member)).includes(`"${secret.name}"`), 'nor does the list name it');

  // A workflow read and sent back whole is accepted; case and incident are not set through it.
  const back = await api('PUT', `/workflows/${wf.id}`, { ...fresh, description: 'notes the incident' });
  t.equal(back.status, 200, JSON.stringify(back.body));
  t.equal(back.body.description, 'notes the incident');
  t.same(back.body.incident, { id: secret.id, name: secret.name }, 'still the latest run');
});
