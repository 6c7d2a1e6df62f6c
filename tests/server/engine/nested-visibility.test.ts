import t from 'tap';
import { incidentApp } from '../incidents/helpers.js';

/**
 * Nested references answer the referenced record's name only where the caller may see that record
 * (server/engine/nested.ts, visibleRelations): a case escalated to a restricted incident answers
 * `incident: {"id": 7}` to a member who is not on the incident, `{"id": 7, "name": "IAO-1"}` to those
 * who are. Lists of ids answer their objects beside them.
 */

t.test('a restricted incident behind a case: its id, never its name, for a member who may not see it', async (t) => {
  const { api, projectId, login } = await incidentApp(t);
  const member = await login('member@example.com', { role: 'Member' });
  const onIt = await login('responder@example.com', { role: 'Member' });
  const hiddenCase = (await api('POST', '/cases', { title: 'Phishing wave', project_id: projectId })).body;
  const openCase = (await api('POST', '/cases', { title: 'Printer jam', project_id: projectId })).body;
  const hiddenIncident = (await api('PUT', `/cases/${hiddenCase.id}/escalate`)).body.incident_id as number;
  const openIncident = (await api('PUT', `/cases/${openCase.id}/escalate`)).body.incident_id as number;
  const restricted = await api('PUT', `/iaos/${hiddenIncident}`, { visibility: 'Restricted' });
  t.equal(restricted.status, 200, JSON.stringify(restricted.body));
  t.equal((await api('POST', `/iaos/${hiddenIncident}/roles`, { email: 'responder@example.com', role: 'participant' })).status, 200);
  const name = (id: number) => `IAO-${id === hiddenIncident ? 1 : 2}`;
  t.equal((await api('GET', `/iaos/${hiddenIncident}`)).body.name, name(hiddenIncident));

  const incidentsOf = async (token: string) => {
    const list = await api('GET', '/cases?itemsPerPage=25&sortBy=title', undefined, token);
    t.equal(list.status, 200, JSON.stringify(list.body));
    return Object.fromEntries(list.body.items.map((c: { title: string; incident_id: number; incident: unknown }) => [c.title, [c.incident_id, c.incident]]));
  };
  t.same(
    await incidentsOf(member),
    { 'Phishing wave': [hiddenIncident, { id: hiddenIncident }], 'Printer jam': [openIncident, { id: openIncident, name: name(openIncident) }] },
    'the member lists both cases: the restricted incident without its name, the open one with it',
  );
  const full = {
    'Phishing wave': [hiddenIncident, { id: hiddenIncident, name: name(hiddenIncident) }],
    'Printer jam': [openIncident, { id: openIncident, name: name(openIncident) }],
  };
  t.same(await incidentsOf(onIt), full, 'a participant of the incident sees its name');
  t.same(await incidentsOf((await login('admin@example.com', { role: 'Admin' })) as string), full, 'so does an admin');
  t.same(
    await incidentsOf(member),
    { 'Phishing wave': [hiddenIncident, { id: hiddenIncident }], 'Printer jam': [openIncident, { id: openIncident, name: name(openIncident) }] },
    'and the member still not, after them (statements kept per visibility)',
  );

  // A single record's answer (an update answers it) follows the same rule.
  const edited = await api('PUT', `/cases/${hiddenCase.id}`, { description: 'More reports came in.' }, member);
  t.equal(edited.status, 200, JSON.stringify(edited.body));
  t.same(edited.body.incident, { id: hiddenIncident });
  t.same((await api('PUT', `/cases/${hiddenCase.id}`, { description: 'Still more.' }, onIt)).body.incident, { id: hiddenIncident, name: name(hiddenIncident) });
  // Sent back as answered, `{id}` keeps the link (null would have unlinked it).
  const back = await api('PUT', `/cases/${hiddenCase.id}`, { ...edited.body, title: 'Phishing wave (2)' }, member);
  t.equal(back.status, 200, JSON.stringify(back.body));
  t.equal(back.body.incident_id, hiddenIncident);

  // The case's own sheet (by id or name): the reference, and the timeline's words for the escalation.
  for (const address of [hiddenCase.id, hiddenCase.name]) {
    const sheet = await api('GET', `/cases/${address}`, undefined, member);
    t.equal(sheet.status, 200, JSON.stringify(sheet.body));
    t.same([sheet.body.incident_id, sheet.body.incident, sheet.body.incidents], [hiddenIncident, { id: hiddenIncident }, []], `GET /cases/${address}`);
    t.notMatch(JSON.stringify(sheet.body), name(hiddenIncident), 'the name appears nowhere in it');
    t.ok(
      sheet.body.events.some((e: { description: string }) => e.description.startsWith('Case escalated to a restricted incident by ')),
      'the timeline says it was escalated',
    );
  }
  const shown = (await api('GET', `/cases/${hiddenCase.id}`, undefined, onIt)).body;
  t.same(shown.incident, { id: hiddenIncident, name: name(hiddenIncident) }, 'a participant of the incident reads its name on the sheet');
  t.ok(shown.events.some((e: { description: string }) => e.description.startsWith(`Case escalated to incident ${name(hiddenIncident)} by `)));
  t.same(
    (await api('GET', `/cases/${openCase.id}`, undefined, member)).body.incident,
    { id: openIncident, name: name(openIncident) },
    'an open incident by name',
  );
  const cause = await api('GET', `/cases/${hiddenCase.id}/probable_cause`, undefined, member);
  t.equal(cause.status, 200, JSON.stringify(cause.body));
  t.notMatch(cause.body.probable_cause, name(hiddenIncident), 'nor does the probable cause, made from the timeline');

  // Nor can the name be found by filtering or sorting through the reference.
  const byName = (token: string) =>
    api(
      'GET',
      `/cases?filter=${encodeURIComponent(JSON.stringify({ and: [{ model: 'Incident', field: 'name', op: '==', value: name(hiddenIncident) }] }))}`,
      undefined,
      token,
    );
  t.same((await byName(member)).body.items, [], 'a filter on the hidden name finds nothing for the member');
  t.same(
    (await byName(onIt)).body.items.map((c: { id: number }) => c.id),
    [hiddenCase.id],
    'and the case for a participant',
  );
  const sorted = await api('GET', '/cases?sortBy=incident.name&descending=true', undefined, member);
  t.equal(sorted.status, 200, JSON.stringify(sorted.body));
  t.same(
    sorted.body.items.map((c: { id: number }) => c.id),
    [hiddenCase.id, openCase.id],
    'the hidden name sorts as no name (nulls first when descending)',
  );
});

t.test('lists of references answer their objects, in order, beside the ids; bodies take either', async (t) => {
  const { api, projectId, request } = await incidentApp(t);
  const type = (await api('POST', '/tag_types', { name: 'Service' })).body;
  const db = (await api('POST', '/tags', { name: 'db', tag_type_id: type.id })).body;
  const web = (await api('POST', '/tags', { name: 'web', tag_type_id: type.id })).body;
  const flat = await api('POST', '/signals', { name: 'Disk alerts', project_id: projectId, tag_ids: [web.id, db.id] });
  t.equal(flat.status, 201, JSON.stringify(flat.body));
  t.same(flat.body.tag_ids, [web.id, db.id]);
  t.same(
    flat.body.tags,
    [
      { id: web.id, name: 'web' },
      { id: db.id, name: 'db' },
    ],
    'the objects, in the order of the ids',
  );
  const nested = await api('POST', '/signals', { name: 'CPU alerts', project_id: projectId, tags: [{ id: db.id, name: 'ignored' }] });
  t.equal(nested.status, 201, JSON.stringify(nested.body));
  t.same(nested.body.tag_ids, [db.id], 'a list of objects is taken as its ids');
  t.same(nested.body.tags, [{ id: db.id, name: 'db' }]);
  const listed = await api('GET', '/signals?sortBy=name');
  t.same(
    listed.body.items.map((s: { tags: unknown }) => s.tags),
    [nested.body.tags, flat.body.tags],
    'lists carry them too',
  );
  const cleared = await api('PUT', `/signals/${flat.body.id}`, { tag_ids: flat.body.tag_ids, tags: [] });
  t.equal(cleared.status, 200, JSON.stringify(cleared.body));
  t.same([cleared.body.tag_ids, cleared.body.tags], [[], []], 'a record sent back with its objects changed takes the objects');
  const kept = await api('PUT', `/signals/${flat.body.id}`, { tag_ids: [db.id], tags: [] });
  t.same(kept.body.tags, [{ id: db.id, name: 'db' }], 'and with its ids changed, the ids');
  t.equal(
    (await api('POST', '/signals', { name: 'Both', project_id: projectId, tag_ids: [db.id], tags: [{ id: web.id }] })).status,
    422,
    'a create naming different lists both ways is refused',
  );

  // The OpenAPI document shows them.
  const doc = (await request({ method: 'GET', url: '/api/v1/docs/json' })).body;
  const answer = doc.paths['/api/v1/{organization}/signals'].post.responses['201'].content['application/json'].schema;
  t.same(Object.keys(answer.properties.tags.items.properties).sort(), ['id', 'name']);
});
