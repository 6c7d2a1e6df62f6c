import t from 'tap';
import { incidentApp } from './helpers.js';

t.test('incidents and cases speak the spec: nested references, names, record sent back, related filters and sorts', async (t) => {
  const { api, projectId } = await incidentApp(t);
  const type = (await api('POST', '/incident_types', { name: 'Outage', project_id: projectId })).body;
  const high = (await api('POST', '/incident_priorities', { name: 'High', view_order: 1, project_id: projectId })).body;
  const low = (await api('POST', '/incident_priorities', { name: 'Low', view_order: 9, project_id: projectId })).body;
  const tag = (await api('POST', '/tags', { name: 'db', tag_type_id: (await api('POST', '/tag_types', { name: 'Datastore' })).body.id })).body;

  const nested = await api('POST', '/iaos', {
    title: 'Nested',
    project: { id: projectId, name: 'Ops' },
    incident_type: { id: type.id },
    incident_priority: { id: high.id },
    tags: [{ id: tag.id, name: 'db' }],
  });
  const flat = await api('POST', '/iaos', { title: 'Flat', project_id: projectId, incident_type_id: type.id, incident_priority_id: low.id, tags: [tag.id] });
  t.equal(nested.status, 201, JSON.stringify(nested.body));
  t.equal(flat.status, 201, JSON.stringify(flat.body));
  t.same(nested.body.project, { id: projectId, name: 'Ops' });
  t.same(nested.body.incident_type, { id: type.id, name: 'Outage' });
  t.same(nested.body.incident_priority, { id: high.id, name: 'High' });
  t.equal(nested.body.incident_priority_id, high.id);

  // GET by the name the spec's screens use, with the nested references.
  const byName = await api('GET', `/iaos/${nested.body.name}`);
  t.equal(byName.status, 200, JSON.stringify(byName.body));
  t.equal(byName.body.id, nested.body.id);
  t.same(byName.body.incident_priority, { id: high.id, name: 'High' });
  t.same(byName.body.project, { id: projectId, name: 'Ops' });
  t.same(
    byName.body.tags.map((x: { id: number }) => x.id),
    [tag.id],
  );
  t.equal((await api('GET', '/iaos/IAO-999')).status, 404);

  // The whole record as answered goes back with one change.
  const back = await api('PUT', `/iaos/${nested.body.id}`, { ...byName.body, title: 'Nested, renamed', incident_priority: { id: low.id, name: 'Low' } });
  t.equal(back.status, 200, JSON.stringify(back.body));
  t.equal(back.body.title, 'Nested, renamed');
  t.same(back.body.incident_priority, { id: low.id, name: 'Low' });
  const unknown = await api('PUT', `/iaos/${nested.body.id}`, { ...byName.body, severity_level: 3 });
  t.equal(unknown.status, 422);

  // Filters naming the related model, and sorts on a related field.
  await api('PUT', `/iaos/${nested.body.id}`, { incident_priority_id: high.id });
  const q = (filter: unknown) => `/iaos?filter=${encodeURIComponent(JSON.stringify(filter))}`;
  const highs = await api('GET', q({ and: [{ model: 'IncidentPriority', field: 'name', op: '==', value: 'High' }] }));
  t.equal(highs.status, 200, JSON.stringify(highs.body));
  t.same(
    highs.body.items.map((i: { title: string }) => i.title),
    ['Nested, renamed'],
  );
  const inProject = await api(
    'GET',
    q([
      { model: 'Project', field: 'name', op: '==', value: 'Ops' },
      { model: 'TagType', field: 'name', op: '==', value: 'Datastore' },
    ]),
  );
  t.equal(inProject.body.total, 2);
  const sorted = await api('GET', '/iaos?sortBy[]=incident_priority.view_order&descending[]=true');
  t.equal(sorted.status, 200, JSON.stringify(sorted.body));
  t.same(
    sorted.body.items.map((i: { title: string }) => i.title),
    ['Flat', 'Nested, renamed'],
  );
  t.same(sorted.body.items[0].incident_priority, { id: low.id, name: 'Low' }, 'list records nest too');

  // A reference the domain checks itself (feedback on an incident) takes the nested form too.
  const feedback = await api('POST', '/feedback', { rating: 'Very satisfied', incident: { id: nested.body.id, name: nested.body.name } });
  t.equal(feedback.status, 201, JSON.stringify(feedback.body));
  t.same(feedback.body.incident, { id: nested.body.id, name: nested.body.name });

  // Cases the same way, by name too.
  const caseType = (await api('POST', '/case_types', { name: 'Phishing', project_id: projectId })).body;
  const made = await api('POST', '/cases', { title: 'Odd mail', project: { id: projectId }, case_type: { id: caseType.id } });
  t.equal(made.status, 201, JSON.stringify(made.body));
  t.same(made.body.case_type, { id: caseType.id, name: 'Phishing' });
  const caseByName = await api('GET', `/cases/${made.body.name}`);
  t.equal(caseByName.status, 200, JSON.stringify(caseByName.body));
  t.same(caseByName.body.case_type, { id: caseType.id, name: 'Phishing' });
  const caseBack = await api('PUT', `/cases/${made.body.id}`, { ...caseByName.body, title: 'Odd mail, checked' });
  t.equal(caseBack.status, 200, JSON.stringify(caseBack.body));
  const byType = await api('GET', `/cases?filter=${encodeURIComponent(JSON.stringify([{ model: 'CaseType', field: 'name', op: '==', value: 'Phishing' }]))}`);
  t.equal(byType.body.total, 1);
});

t.test('an incident takes its tags and entities as ids, objects or _ids, and answers them as objects', async (t) => {
  const { api, createIncident } = await incidentApp(t);
  const tagType = (await api('POST', '/tag_types', { name: 'Service' })).body;
  const db = (await api('POST', '/tags', { name: 'db', tag_type_id: tagType.id })).body;
  const api2 = (await api('POST', '/tags', { name: 'api', tag_type_id: tagType.id })).body;
  const hostType = (await api('POST', '/entity_type', { name: 'Host' })).body;
  const host = await api('POST', '/entity', { value: 'db-1.internal', entity_type_id: hostType.id });
  t.equal(host.status, 201, JSON.stringify(host.body));
  const other = (await api('POST', '/entity', { value: 'db-2.internal', entity_type_id: hostType.id })).body;

  const byIds = await createIncident({ tag_ids: [db.id], entities: [host.body.id] });
  const byObjects = await createIncident({ tags: [{ id: db.id, name: 'db' }], entities: [{ id: host.body.id }] });
  const byField = await createIncident({ tags: [db.id], entity_ids: [host.body.id] });
  for (const made of [byIds, byObjects, byField]) {
    const full = (await api('GET', `/iaos/${made.id}`)).body;
    t.same(
      full.tags.map((x: { id: number; name: string }) => [x.id, x.name]),
      [[db.id, 'db']],
      `${made.name}: tags`,
    );
    t.same(
      full.entities.map((e: { id: number; value: string }) => [e.id, e.value]),
      [[host.body.id, 'db-1.internal']],
      `${made.name}: entities`,
    );
  }

  // The record sent back as answered, with its lists changed.
  const full = (await api('GET', `/iaos/${byIds.id}`)).body;
  const back = await api('PUT', `/iaos/${byIds.id}`, { ...full, tags: [...full.tags, { id: api2.id }], entities: [{ id: other.id }] });
  t.equal(back.status, 200, JSON.stringify(back.body));
  const after = (await api('GET', `/iaos/${byIds.id}`)).body;
  t.same(after.tags.map((x: { name: string }) => x.name).sort(), ['api', 'db']);
  t.same(
    after.entities.map((e: { value: string }) => e.value),
    ['db-2.internal'],
  );
  t.ok(
    after.events.some((e: { description: string }) => /^Entities changed by/.test(e.description)),
    'the timeline says the entities changed',
  );
  const unchanged = await api('PUT', `/iaos/${byIds.id}`, after);
  t.equal(unchanged.status, 200);
  const count = (r: { events: { description: string }[] }) => r.events.filter((e) => /changed by/.test(e.description)).length;
  t.equal(count((await api('GET', `/iaos/${byIds.id}`)).body), count(after), 'sent back unchanged: no new timeline entries');

  const unknown = await api('PUT', `/iaos/${byIds.id}`, { entity_ids: [999999] });
  t.equal(unknown.status, 422);
  t.same(unknown.body.detail[0].loc, ['body', 'entities']);
});

t.test("the spec's fields of incidents, cases and sources; the postmortem opens from the incident", async (t) => {
  const { api, createIncident, drain, projectId } = await incidentApp(t);
  const term = await api('POST', '/terms', { text: 'database' });
  t.equal(term.status, 201);
  const checklist = [
    { text: 'Page the DBA', required: true },
    { text: 'Freeze deploys', required: false },
  ];
  const type = (await api('POST', '/incident_types', { name: 'Outage', project_id: projectId, custom_checklist: checklist })).body;
  const incident = await createIncident({ incident_type_id: type.id, commander_email: 'commander@example.com' });
  await api('POST', `/iaos/${incident.id}/add-resource`, { resource_type: 'dispatch-ticket', name: 'OPS-12', weblink: 'https://tickets.example.com/OPS-12' });
  await api('POST', `/iaos/${incident.id}/add-resource`, { resource_type: 'dispatch-weblink', name: 'Dashboard', weblink: 'https://grafana.example.com/d/1' });
  t.equal((await api('POST', `/iaos/${incident.id}/postmortem/create`)).status, 202);
  await drain();

  const full = (await api('GET', `/iaos/${incident.id}`)).body;
  t.equal(full.ticket.name, 'OPS-12');
  t.same(
    full.weblinks.map((w: { name: string }) => w.name),
    ['Dashboard'],
  );
  t.equal(full.postmortems.length, 1, 'the postmortem is listed');
  t.same(full.custom_checklist, checklist);
  t.same(full.assignee, { email: 'commander@example.com' });
  t.same(full.terms, [{ id: term.body.id, text: 'database' }], 'terms the incident uses');
  t.same(full.entities, []);
  t.equal(full.storage, null);
  const doc = await api('GET', `/iaos/${incident.id}/resources/${full.postmortems[0].id}`);
  t.equal(doc.status, 200);
  t.match(doc.body.content, /## Timeline/, 'and opens with its content');
  t.equal((await api('GET', `/iaos/${incident.id}/resources/999999`)).status, 404);

  const made = (await api('POST', '/cases', { title: 'Odd mail', project_id: projectId })).body;
  const fullCase = (await api('GET', `/cases/${made.id}`)).body;
  t.same([fullCase.signals, fullCase.groups], [[], []]);

  const source = (await api('POST', '/data/sources', { name: 'auth-logs', project_id: projectId })).body;
  const query = await api('POST', '/data/queries', { name: 'Failed logins', text: 'select 1', source: { id: source.id }, project_id: projectId });
  t.equal(query.status, 201, JSON.stringify(query.body));
  const read = (await api('GET', `/data/sources/${source.id}`)).body;
  t.same(read.queries, [{ id: query.body.id, name: 'Failed logins' }]);
});
