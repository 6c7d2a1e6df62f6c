import t from 'tap';
import { incidentApp } from './helpers.js';

/** Issue 40: the spec's last partial rows (spec-coverage.md): fields and names as the spec spells them. */

t.test("incident conference and conversation, case conversation: there once made (the §4 polls' end)", async (t) => {
  const { api, createIncident, drain, projectId } = await incidentApp(t);
  const incident = await createIncident();
  const kase = (await api('POST', '/cases', { title: 'Odd mail', project_id: projectId })).body;
  // The provisioning job may run at once; whenever it has not, both read null (see spec-links.ts).
  await drain();
  const after = (await api('GET', `/iaos/${incident.id}`)).body;
  t.match(after.conversation, { id: after.conversation_id, name: `${incident.name} Database down` }, 'the conversation, as the spec names it');
  t.match(after.conference, { weblink: after.conference_url });
  t.ok(after.conference.weblink, 'with its link');
  const listed = (await api('GET', '/iaos')).body.items.find((i: { id: number }) => i.id === incident.id);
  t.same([listed.conversation?.id, listed.conference?.weblink], [after.conversation_id, after.conference_url], 'the list answers them too');
  const caseAfter = (await api('GET', `/cases/${kase.id}`)).body;
  t.match(caseAfter.conversation, { id: caseAfter.conversation_id }, "the case's conversation");
  t.ok(caseAfter.conversation_id);
  const caseListed = (await api('GET', '/cases')).body.items.find((c: { id: number }) => c.id === kase.id);
  t.equal(caseListed.conversation?.id, caseAfter.conversation_id);
  const back = await api('PUT', `/iaos/${incident.id}`, { ...after, title: 'Database down again' });
  t.equal(back.status, 200, 'the record sent back as read is accepted');
});

t.test('search types as the spec names them', async (t) => {
  const { api } = await incidentApp(t);
  for (const type of ['WebCrawl', 'ECCSProject', 'FileSubmissions', 'FileSubmission']) {
    const res = await api('GET', `/search?q=runbook&type=${type}`);
    t.equal(res.status, 200, `${type}: ${JSON.stringify(res.body)}`);
  }
  const bad = await api('GET', '/search?q=runbook&type=Nonsense');
  t.equal(bad.status, 422);
  t.match(bad.body.detail[0].msg, /WebCrawl.*ECCSProject.*FileSubmissions/);
});

t.test('a signal definition takes workflows as [{id}] and answers them by name', async (t) => {
  const { api, projectId } = await incidentApp(t);
  const wf = (await api('POST', '/workflows', { name: 'Collect logs', project_id: projectId, steps: [{ kind: 'timeline', with: { description: 'x' } }] })).body;
  const made = await api('POST', '/signals', { name: 'Disk alerts', project_id: projectId, workflows: [{ id: wf.id }] });
  t.equal(made.status, 201, JSON.stringify(made.body));
  t.same(made.body.workflow_ids, [wf.id]);
  t.match(made.body.workflows, [{ id: wf.id, name: 'Collect logs' }]);
  const cleared = await api('PUT', `/signals/${made.body.id}`, { workflows: [] });
  t.equal(cleared.status, 200, JSON.stringify(cleared.body));
  t.same(cleared.body.workflow_ids, []);
});
