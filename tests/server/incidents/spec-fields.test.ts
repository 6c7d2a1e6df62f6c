import t from 'tap';
import { incidentApp } from './helpers.js';

/**
 * The spec's fields of incidents, cases and sources (spec §3) that a client both writes and reads:
 * lists of references as ids or `[{id}]` in, `[{id, name}]` out, records kept in other systems as
 * objects, each one sent back as answered.
 */

type Named = { id: number; name: string };
const names = (list: Named[]) => list.map((x) => x.name);
const detailOf = (body: { detail?: { loc: unknown[]; msg: string }[] }) => body.detail?.[0];

t.test("an incident's services and queries are written as ids or nested objects and answered with their names", async (t) => {
  const app = await incidentApp(t);
  const { api, createIncident, projectId } = app;
  const checkout = (await api('POST', '/services', { name: 'checkout' })).body as Named;
  const payments = (await api('POST', '/services', { name: 'payments' })).body as Named;
  const source = (await api('POST', '/data/sources', { name: 'app-logs', project_id: projectId })).body;
  const errors = (await api('POST', '/data/queries', { name: '5xx by host', text: 'select host, count(*) from logs', source_id: source.id })).body as Named;

  const incident = await createIncident({ services: [{ id: checkout.id, name: 'ignored' }, payments.id], queries: [errors.id] });
  const full = (await api('GET', `/iaos/${incident.id}`)).body;
  t.same(
    full.services,
    [
      { id: checkout.id, name: 'checkout' },
      { id: payments.id, name: 'payments' },
    ],
    'in the order given, with names',
  );
  t.same(full.queries, [{ id: errors.id, name: '5xx by host' }]);

  // The slim list row does not carry them; the full record does.
  const row = (await api('GET', '/iaos')).body.items.find((i: { id: number }) => i.id === incident.id);
  t.notOk('services' in row, 'not in the list row');

  // The whole record as answered goes back with the services changed.
  const back = await api('PUT', `/iaos/${incident.id}`, { ...full, services: [{ id: payments.id, name: 'payments' }] });
  t.equal(back.status, 200, JSON.stringify(back.body));
  const after = (await api('GET', `/iaos/${incident.id}`)).body;
  t.same(names(after.services), ['payments']);
  t.same(names(after.queries), ['5xx by host'], 'untouched');
  t.ok(
    after.events.some((e: { description: string }) => e.description.startsWith('Services changed by')),
    'the change is on the timeline',
  );

  const cleared = await api('PUT', `/iaos/${incident.id}`, { queries: [] });
  t.equal(cleared.status, 200);
  t.same((await api('GET', `/iaos/${incident.id}`)).body.queries, []);

  // A service that does not exist (or belongs to another organization) is refused at its field.
  const missing = await api('PUT', `/iaos/${incident.id}`, { services: [999_999] });
  t.equal(missing.status, 422);
  t.same(detailOf(missing.body)?.loc, ['body', 'services']);
  const other = await app.organization('elsewhere');
  const foreign = await app.request({ method: 'POST', url: '/api/v1/elsewhere/services', token: other.token, payload: { name: 'theirs' } });
  t.equal(foreign.status, 201, JSON.stringify(foreign.body));
  const refused = await api('POST', '/iaos', { title: 'x', project_id: projectId, services: [{ id: foreign.body.id }] });
  t.equal(refused.status, 422, "another organization's service");
  t.same(detailOf(refused.body)?.loc, ['body', 'services']);
  const wrongShape = await api('POST', '/iaos', { title: 'x', project_id: projectId, queries: ['5xx'] });
  t.equal(wrongShape.status, 422);
  t.match(detailOf(wrongShape.body)?.loc, ['body', 'queries']);
});

t.test("an incident's documents, storage and status page come from what is attached to it; terms, checklist and assignee follow its fields", async (t) => {
  const { api, createIncident, projectId } = await incidentApp(t);
  const type = (await api('POST', '/incident_types', { name: 'Outage', project_id: projectId, custom_checklist: [{ text: 'Page the DBA', required: true }] }))
    .body;
  const incident = await createIncident({ incident_type_id: type.id, title: 'Slow pages', description: 'Nothing yet.' });
  for (const resource of [
    { resource_type: 'dispatch-incident-document', name: 'Investigation notes', weblink: 'https://docs.example.com/notes' },
    { resource_type: 'dispatch-storage', name: 'Evidence folder', weblink: 'https://drive.example.com/f/1' },
    { resource_type: 'dispatch-statuspage', name: 'Status page incident', weblink: 'https://status.example.com/i/7' },
  ]) {
    const added = await api('POST', `/iaos/${incident.id}/add-resource`, resource);
    t.equal(added.status, 201, JSON.stringify(added.body));
  }
  let full = (await api('GET', `/iaos/${incident.id}`)).body;
  t.same(names(full.documents), ['Investigation notes']);
  t.equal(full.storage.weblink, 'https://drive.example.com/f/1');
  t.equal(full.statuspage.name, 'Status page incident');
  t.same(full.postmortems, [], 'no postmortem until one is made');
  t.same(full.custom_checklist, [{ text: 'Page the DBA', required: true }]);
  t.same(full.assignee, { email: 'commander@example.com' });
  t.same(full.terms, []);

  // Writing the fields they follow: a new commander is the assignee; a glossary word in the description is a term.
  const term = (await api('POST', '/terms', { text: 'replica lag' })).body;
  const put = await api('PUT', `/iaos/${incident.id}`, { commander_email: 'oncall@example.com', description: 'Replica lag of 40 s on the read pool.' });
  t.equal(put.status, 200, JSON.stringify(put.body));
  full = (await api('GET', `/iaos/${incident.id}`)).body;
  t.same(full.assignee, { email: 'oncall@example.com' });
  t.same(full.terms, [{ id: term.id, text: 'replica lag' }]);
  const doc = await api('GET', `/iaos/${incident.id}/resources/${full.documents[0].id}`);
  t.equal(doc.status, 200);
  t.equal(doc.body.name, 'Investigation notes', 'a document opens from the incident');
});

t.test("a case's documents, ticket, storage and storycurve fields", async (t) => {
  const { api, projectId } = await incidentApp(t);
  const runbook = (
    await api('POST', '/documents', { name: 'Phishing runbook', resource_type: 'dispatch-incident-runbook', weblink: 'https://docs.example.com/phish' })
  ).body;
  const faq = (await api('POST', '/documents', { name: 'Mail FAQ', resource_type: 'dispatch-incident-reference-faq-document' })).body;
  t.ok(runbook.id && faq.id);
  const ticket = { resource_type: 'jira', resource_id: 'SEC-12', weblink: 'https://jira.example.com/browse/SEC-12' };
  const made = await api('POST', '/cases', {
    title: 'Odd mail',
    project_id: projectId,
    documents: [{ id: runbook.id, name: 'Phishing runbook' }],
    ticket,
    storycurve_sketch_id: 42,
    storycurve_url: 'https://storycurve.example.com/sketch/42',
  });
  t.equal(made.status, 201, JSON.stringify(made.body));
  let full = (await api('GET', `/cases/${made.body.name}`)).body;
  t.same(full.documents, [{ id: runbook.id, name: 'Phishing runbook', resource_type: 'dispatch-incident-runbook', weblink: 'https://docs.example.com/phish' }]);
  t.same(full.ticket, ticket);
  t.equal(full.storage, null);
  t.equal(full.storycurve_sketch_id, 42);
  t.equal(full.storycurve_url, 'https://storycurve.example.com/sketch/42');
  const row = (await api('GET', '/cases')).body.items.find((c: { id: number }) => c.id === made.body.id);
  t.notOk('ticket' in row, 'the slim list row leaves them out');

  // Sent back as answered, with documents as plain ids and a storage folder added.
  const storage = { resource_type: 'google-drive-folder', resource_id: 'f-1', weblink: 'https://drive.example.com/f/1' };
  const back = await api('PUT', `/cases/${made.body.id}`, { ...full, documents: [faq.id, runbook.id], storage, storycurve_sketch_id: null });
  t.equal(back.status, 200, JSON.stringify(back.body));
  full = (await api('GET', `/cases/${made.body.id}`)).body;
  t.same(names(full.documents), ['Mail FAQ', 'Phishing runbook']);
  t.same(full.storage, storage);
  t.equal(full.storycurve_sketch_id, null);
  t.same(full.ticket, ticket, 'unchanged');

  // Bad values are refused at their field.
  const unknownKey = await api('PUT', `/cases/${made.body.id}`, { ticket: { ...ticket, status: 'open' } });
  t.equal(unknownKey.status, 422);
  t.match(detailOf(unknownKey.body)?.loc, ['body', 'ticket']);
  const badLink = await api('PUT', `/cases/${made.body.id}`, { storycurve_url: 'not a link' });
  t.equal(badLink.status, 422);
  t.match(detailOf(badLink.body)?.loc, ['body', 'storycurve_url']);
  const noDoc = await api('PUT', `/cases/${made.body.id}`, { documents: [999_999] });
  t.equal(noDoc.status, 422);
  t.same(detailOf(noDoc.body)?.loc, ['body', 'documents']);
});

t.test("a source's incidents and alerts; the incidents a member cannot see stay out of its answer", async (t) => {
  const app = await incidentApp(t);
  const { api, createIncident, projectId } = app;
  const open = await createIncident({ title: 'Login errors' });
  const restricted = await createIncident({ title: 'Credential leak', visibility: 'Restricted' });
  const alerts = [
    { name: 'Failed logins spike', description: 'More than 100 failures a minute', originator: 'SIEM', external_link: 'https://siem.example.com/rules/7' },
    { name: 'Log gap', originator: 'pipeline' },
  ];
  const made = await api('POST', '/data/sources', {
    name: 'auth-logs',
    project_id: projectId,
    incidents: [{ id: open.id, name: open.name }, restricted.id],
    alerts,
  });
  t.equal(made.status, 201, JSON.stringify(made.body));
  t.same(made.body.incidents, [
    { id: open.id, name: open.name, title: 'Login errors' },
    { id: restricted.id, name: restricted.name, title: 'Credential leak' },
  ]);
  t.same(made.body.alerts, alerts);

  const member = await app.login('member@example.com', { role: 'Member' });
  const seen = await api('GET', `/data/sources/${made.body.id}`, undefined, member);
  t.same(
    seen.body.incidents.map((i: { id: number }) => i.id),
    [open.id],
    'the restricted incident is not named to a member',
  );
  const listed = await api('GET', '/data/sources', undefined, member);
  t.same(
    listed.body.items[0].incidents.map((i: { id: number }) => i.id),
    [open.id],
    'nor in the list',
  );

  // Sent back as answered with one incident fewer and an alert more.
  const back = await api('PUT', `/data/sources/${made.body.id}`, {
    ...made.body,
    incidents: made.body.incidents.slice(1),
    alerts: [...alerts, { name: 'Late data' }],
  });
  t.equal(back.status, 200, JSON.stringify(back.body));
  t.same(
    back.body.incidents.map((i: { id: number }) => i.id),
    [restricted.id],
  );
  t.same(
    back.body.alerts.map((a: { name: string }) => a.name),
    ['Failed logins spike', 'Log gap', 'Late data'],
  );

  // A member may not name an incident hidden from them, and an alert needs its name.
  const hidden = await api('PUT', `/data/sources/${made.body.id}`, { incidents: [restricted.id] }, member);
  t.equal(hidden.status, 422);
  t.same(detailOf(hidden.body)?.loc, ['body', 'incidents']);
  const nameless = await api('PUT', `/data/sources/${made.body.id}`, { alerts: [{ description: 'no name' }] });
  t.equal(nameless.status, 422);
  t.match(detailOf(nameless.body)?.loc, ['body', 'alerts', 0, 'name']);
});

t.test("incidents' and cases' workflow_instances; cases filtered by assignee under Dispatch's contact model", async (t) => {
  const { api, createIncident, projectId } = await incidentApp(t);
  const engine = await api('POST', '/plugins/instances', { plugin_slug: 'step-engine', title: 'Steps', configuration: {}, project_id: projectId });
  t.equal(engine.status, 201, JSON.stringify(engine.body));
  const workflow = await api('POST', '/workflows', {
    name: 'Collect logs',
    plugin_instance_id: engine.body.id,
    project_id: projectId,
    steps: [{ kind: 'timeline', with: { description: 'Logs asked for' } }],
  });
  t.equal(workflow.status, 201, JSON.stringify(workflow.body));
  const incident = await createIncident();
  const made = (await api('POST', '/cases', { title: 'Odd mail', project_id: projectId, assignee_email: 'analyst@example.com' })).body;
  await api('POST', '/cases', { title: 'Other mail', project_id: projectId, assignee_email: 'someone@example.com' });
  t.same((await api('GET', `/iaos/${incident.id}`)).body.workflow_instances, [], 'none before a run');

  const onIncident = await api('POST', `/workflows/${workflow.body.id}/run`, { run_reason: 'Need logs', incident: { id: incident.id } });
  t.equal(onIncident.status < 300, true, JSON.stringify(onIncident.body));
  const onCase = await api('POST', `/workflows/${workflow.body.id}/run`, { run_reason: 'Check headers', case_id: made.id });
  t.equal(onCase.status < 300, true, JSON.stringify(onCase.body));

  const full = (await api('GET', `/iaos/${incident.id}`)).body;
  t.equal(full.workflow_instances.length, 1);
  t.match(full.workflow_instances[0], { workflow: { id: workflow.body.id, name: 'Collect logs' }, run_reason: 'Need logs' });
  const fullCase = (await api('GET', `/cases/${made.id}`)).body;
  t.same(
    fullCase.workflow_instances.map((w: { run_reason: string }) => w.run_reason),
    ['Check headers'],
  );
  // Sent back as answered, the runs are ignored rather than refused.
  t.equal((await api('PUT', `/cases/${made.id}`, { ...fullCase, title: 'Odd mail, checked' })).status, 200);
  t.equal((await api('PUT', `/iaos/${incident.id}`, { ...full, title: 'Database down, checked' })).status, 200);

  const byAssignee = await api(
    'GET',
    `/cases?filter=${encodeURIComponent(JSON.stringify([{ model: 'IndividualContact', field: 'email', op: '==', value: 'analyst@example.com' }]))}`,
  );
  t.equal(byAssignee.status, 200, JSON.stringify(byAssignee.body));
  t.same(
    byAssignee.body.items.map((c: { title: string }) => c.title),
    ['Odd mail, checked'],
  );
});
