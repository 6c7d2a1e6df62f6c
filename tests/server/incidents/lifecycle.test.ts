import t from 'tap';
import { incidentApp } from './helpers.js';

const types = (events: { type: string; description: string }[]) => events.map((e) => `${e.type}: ${e.description}`);

t.test('incidents: names, transitions, roles and the timeline entries they write', async (t) => {
  const { api, createIncident, drain, login, organization, request, projectId } = await incidentApp(t);

  const first = await createIncident();
  const second = await createIncident({ title: 'Checkout slow' });
  t.equal(first.name, 'IAO-1');
  t.equal(second.name, 'IAO-2');
  t.equal(first.status, 'Active');
  t.equal(first.commander_email, 'commander@example.com', 'the creator commands by default');
  const other = await organization('acme');
  const proj = await request({ method: 'POST', url: '/api/v1/acme/projects', token: other.token, payload: { name: 'P' } });
  const acme = await request({ method: 'POST', url: '/api/v1/acme/iaos', token: other.token, payload: { title: 'Other org', project_id: proj.body.id } });
  t.equal(acme.body.name, 'IAO-1', 'names count per organization');

  // Conversation and conference come from a background job after creation.
  await drain();
  let full = (await api('GET', `/iaos/${first.id}`)).body;
  t.ok(full.conversation_id, 'conversation created in the background');
  t.equal(full.conference_url, 'https://meet.jit.si/firewatch-default-IAO-1');
  t.equal(full.steps.length, 6, 'default checklist');
  t.match(types(full.events), [
    'Other: Incident IAO-1 created by commander@example.com',
    'Resource updated: Conversation and conference created (https://meet.jit.si/firewatch-default-IAO-1)',
  ]);

  // Stable.
  const stable = await api('POST', `/iaos/${first.id}/stable`);
  t.equal(stable.status, 200);
  t.equal(stable.body.message, 'Incident marked as stable. Running stable status workflows.');
  t.equal(stable.body.incident.status, 'Stable');
  t.ok(stable.body.incident.stable_at);
  t.equal(stable.body.incident.events.at(-1).description, 'Incident marked as stable by commander@example.com (was Active)');
  const again = await api('POST', `/iaos/${first.id}/stable`);
  t.equal(again.status, 409);
  t.equal(again.body.detail[0].msg, 'Incident IAO-1 is already stable.');

  // A case linked to the incident is closed with it.
  const kase = await api('POST', '/cases', { title: 'Phishing', project_id: projectId });
  await api('PUT', `/cases/${kase.body.id}/escalate`);
  const escalatedIncident = (await api('GET', `/cases/${kase.body.id}`)).body.incident_id;
  const closed = await api('POST', `/iaos/${escalatedIncident}/closed`);
  t.equal(closed.body.message, 'Incident marked as closed. Running closed status workflows.');
  t.ok(closed.body.incident.closed_at);
  t.ok(closed.body.incident.stable_at, 'closing also sets stable_at when it never was');
  const closedCase = (await api('GET', `/cases/${kase.body.id}`)).body;
  t.equal(closedCase.status, 'Closed');
  t.ok(closedCase.closed_at);
  t.ok(closedCase.events.some((e: any) => e.description.startsWith('Case closed because incident')));
  t.ok(closed.body.incident.events.some((e: any) => e.description === `Linked case ${kase.body.name} closed`));

  // Close then reopen through PUT.
  await api('POST', `/iaos/${first.id}/closed`);
  const reopened = await api('PUT', `/iaos/${first.id}`, { status: 'Active' });
  t.equal(reopened.status, 200);
  t.equal(reopened.body.status, 'Active');
  t.equal(reopened.body.closed_at, null);
  full = (await api('GET', `/iaos/${first.id}`)).body;
  t.equal(full.events.at(-1).description, 'Incident reopened by commander@example.com (was Closed)');

  // Join as someone else; joining twice is a conflict.
  const responder = await login('responder@example.com', { role: 'Member' });
  const joined = await api('POST', `/iaos/${first.id}/join`, undefined, responder);
  t.equal(joined.status, 200);
  t.equal(joined.body.message, 'You have successfully joined the incident.');
  t.equal((await api('POST', `/iaos/${first.id}/join`, undefined, responder)).status, 409);

  // Hand command over: the old commander's entry is renounced, not deleted.
  const handover = await api('PUT', `/iaos/${first.id}`, { commander_email: 'responder@example.com' });
  t.equal(handover.body.commander_email, 'responder@example.com');
  full = (await api('GET', `/iaos/${first.id}`)).body;
  const old = full.participants.find((p: any) => p.email === 'commander@example.com');
  const commanderRole = old.roles.find((r: any) => r.role === 'commander');
  t.ok(commanderRole.renounced_at, 'previous commander renounced');
  t.equal(commanderRole.status, 'Inactive');
  const now = full.participants.find((p: any) => p.email === 'responder@example.com');
  t.same(
    now.roles.map((r: any) => [r.role, r.status]),
    [
      ['participant', 'Active'],
      ['commander', 'Active'],
    ],
  );
  t.ok(full.events.some((e: any) => e.type === 'Participant updated' && e.description === 'responder@example.com joined the incident'));
  t.ok(full.events.some((e: any) => e.type === 'Participant updated' && e.description === 'responder@example.com has been assigned the commander role'));

  // Other roles, and renouncing one.
  const scribe = await api('POST', `/iaos/${first.id}/roles`, { email: 'scribe@example.com', role: 'scribe' });
  t.equal(scribe.body.message, 'scribe@example.com is now scribe.');
  full = (await api('GET', `/iaos/${first.id}`)).body;
  const scribeRole = full.participants.find((p: any) => p.email === 'scribe@example.com').roles[0];
  t.equal((await api('POST', `/iaos/${first.id}/roles/${scribeRole.id}/renounce`)).status, 200);
  t.equal((await api('POST', `/iaos/${first.id}/roles/${scribeRole.id}/renounce`)).status, 404, 'an inactive role cannot be renounced again');
  full = (await api('GET', `/iaos/${first.id}`)).body;
  t.equal(full.participants.find((p: any) => p.email === 'scribe@example.com').roles[0].status, 'Inactive');
  t.ok(full.events.some((e: any) => e.description === 'scribe@example.com has renounced the scribe role'));

  // Field edits write "Field updated" entries (off by default in the timeline filters).
  await api('PUT', `/iaos/${first.id}`, { title: 'Database down in eu-west' });
  full = (await api('GET', `/iaos/${first.id}`)).body;
  const edit = full.events.find((e: any) => e.type === 'Field updated');
  t.match(edit, { description: 'Title changed by commander@example.com', details: { field: 'title', from: 'Database down', to: 'Database down in eu-west' } });

  // Subscribe (tactical report e-mails).
  const sub = await api('POST', `/iaos/${first.id}/subscribe`, undefined, responder);
  t.equal(sub.body.message, 'You have successfully subscribed to tactical report emails for this incident.');
  t.equal((await api('POST', `/iaos/${first.id}/subscribe`, undefined, responder)).status, 409);

  // Delete.
  t.equal((await api('DELETE', `/iaos/${second.id}`)).status, 204);
  const gone = await api('GET', `/iaos/${second.id}`);
  t.equal(gone.status, 404);
  t.equal(gone.body.detail[0].msg, `Incident '${second.id}' could not be found.`);
});

t.test('incidents: list, filters, slim record, bad input', async (t) => {
  const { api, createIncident, request, organization, projectId, token } = await incidentApp(t);
  const type = await api('POST', '/tag_types', { name: 'Service' });
  const db = await api('POST', '/tags', { name: 'database', tag_type_id: type.body.id });
  const web = await api('POST', '/tags', { name: 'web', tag_type_id: type.body.id });
  const made = [];
  for (let i = 0; i < 27; i++) {
    made.push(
      await createIncident({
        title: `Incident ${i}`,
        reported_at: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
        tags: i % 3 === 0 ? [db.body.id] : [web.body.id],
        ...(i === 5 ? { commander_email: 'alice@example.com' } : {}),
      }),
    );
  }
  await api('POST', `/iaos/${made[1]!.id}/stable`);

  const page1 = await api('GET', '/iaos');
  t.equal(page1.body.items.length, 25, '25 a page');
  t.equal(page1.body.total, 27);
  t.equal(page1.body.items[0].title, 'Incident 26', 'reported_at desc');
  t.notOk('description' in page1.body.items[0], 'slim list record');
  t.notOk('search' in page1.body.items[0]);
  const page2 = await api('GET', '/iaos?page=2');
  t.same(
    page2.body.items.map((i: any) => i.title),
    ['Incident 1', 'Incident 0'],
  );

  const f = (filter: unknown) => api('GET', `/iaos?itemsPerPage=-1&filter=${encodeURIComponent(JSON.stringify(filter))}`);
  t.same(
    (await f({ and: [{ field: 'status', op: '==', value: 'Stable' }] })).body.items.map((i: any) => i.title),
    ['Incident 1'],
  );
  t.equal((await f({ and: [{ model: 'Tag', field: 'name', op: '==', value: 'database' }] })).body.total, 9);
  t.equal((await f({ and: [{ model: 'Tag', field: 'id', op: 'in', value: [db.body.id, web.body.id] }] })).body.total, 27);
  t.same(
    (await f({ and: [{ field: 'commander_email', op: '==', value: 'alice@example.com' }] })).body.items.map((i: any) => i.title),
    ['Incident 5'],
  );
  t.equal((await f({ and: [{ model: 'Participant', field: 'email', op: '==', value: 'alice@example.com' }] })).body.total, 1);
  t.equal((await f({ and: [{ field: 'project_id', op: '==', value: projectId }] })).body.total, 27);
  const range = await f({
    and: [
      { field: 'reported_at', op: '>=', value: '2026-01-10' },
      { field: 'reported_at', op: '<=', value: '2026-01-12T23:59:59Z' },
    ],
  });
  t.same(
    range.body.items.map((i: any) => i.title),
    ['Incident 11', 'Incident 10', 'Incident 9'],
  );
  const q = await api('GET', '/iaos?q=Incident%202');
  t.equal(q.body.total, 8, 'q searches the title');

  const unknownField = await f({ and: [{ field: 'nope', op: '==', value: 1 }] });
  t.equal(unknownField.status, 422);
  t.equal(unknownField.body.detail[0].msg, "Unknown filter field 'nope'.");

  // Bad input changes nothing.
  const before = (await api('GET', '/iaos')).body.total;
  const missing = await api('POST', '/iaos', { project_id: projectId });
  t.equal(missing.status, 422);
  t.equal(missing.body.detail[0].msg, 'This field is required');
  t.same(missing.body.detail[0].loc, ['body', 'title']);
  const extra = await api('POST', '/iaos', { title: 'x', project_id: projectId, bogus: 1 });
  t.equal(extra.status, 422);
  t.equal(extra.body.detail[0].msg, "Unknown field 'bogus'.");
  const wrongType = await api('POST', '/iaos', { title: 'x', project_id: 'one' });
  t.equal(wrongType.status, 422);
  const badStatus = await api('PUT', `/iaos/${made[0]!.id}`, { status: 'Done' });
  t.equal(badStatus.status, 422);
  const malformed = await request({
    method: 'POST',
    url: '/api/v1/default/iaos',
    token,
    headers: { 'content-type': 'application/json' },
    payload: '{"title": ',
  });
  t.equal(malformed.status, 400);
  t.equal(malformed.body.detail[0].msg, 'The request body is not valid JSON.');
  t.equal((await request({ method: 'GET', url: '/api/v1/default/iaos' })).status, 401, 'no token, no entry');
  const other = await organization('acme');
  const foreignProject = (await request({ method: 'POST', url: '/api/v1/acme/projects', token: other.token, payload: { name: 'Theirs' } })).body.id;
  const cross = await api('POST', '/iaos', { title: 'x', project_id: foreignProject });
  t.equal(cross.status, 422);
  t.equal(cross.body.detail[0].msg, `Project '${foreignProject}' could not be found.`);
  const foreignTag = await api('POST', '/iaos', { title: 'x', project_id: projectId, tags: [999999] });
  t.equal(foreignTag.status, 422);
  t.equal(foreignTag.body.detail[0].msg, "Tag '999999' could not be found.");
  t.equal((await api('GET', '/iaos')).body.total, before, 'nothing was created');
  const theirIncident = await request({
    method: 'POST',
    url: '/api/v1/acme/iaos',
    token: other.token,
    payload: { title: 'Theirs', project_id: foreignProject },
  });
  t.equal((await api('GET', `/iaos/${theirIncident.body.id}`)).status, 404, "another organization's incident is not found");
  t.equal((await api('POST', `/iaos/${theirIncident.body.id}/stable`)).status, 404);
  t.equal((await api('GET', '/iaos/abc')).status, 422);
});

t.test('restricted incidents: participants and admins only', async (t) => {
  const { api, createIncident, login } = await incidentApp(t);
  const secret = await createIncident({ title: 'Insider', visibility: 'Restricted' });
  await createIncident({ title: 'Public' });
  const member = await login('member@example.com', { role: 'Member' });
  const admin = await login('admin@example.com', { role: 'Admin' });
  t.same(
    (await api('GET', '/iaos', undefined, member)).body.items.map((i: any) => i.title),
    ['Public'],
  );
  t.equal((await api('GET', `/iaos/${secret.id}`, undefined, member)).status, 404);
  t.equal((await api('POST', `/iaos/${secret.id}/join`, undefined, member)).status, 404, 'cannot join what one cannot see');
  t.equal((await api('GET', `/iaos/${secret.id}`, undefined, admin)).status, 200);
  t.equal((await api('GET', '/iaos', undefined, admin)).body.total, 2);
  await api('POST', `/iaos/${secret.id}/roles`, { email: 'member@example.com', role: 'observer' });
  t.equal((await api('GET', `/iaos/${secret.id}`, undefined, member)).status, 200, 'a participant sees it');
});

t.test('an incident or a case reported with no project goes to the organization\'s first project, "Default"', async (t) => {
  const { api } = await incidentApp(t);
  const projects = (await api('GET', '/projects?sortBy=id')).body.items;
  t.equal(projects[0].name, 'Default', 'every organization starts with a Default project');
  const incident = await api('POST', '/iaos', { title: 'Checkout fails' });
  t.equal(incident.status, 201);
  t.equal(incident.body.project_id, projects[0].id);
  const reported = await api('POST', '/cases', { title: 'Phishing mail reported' });
  t.equal(reported.status, 201);
  t.equal(reported.body.project_id, projects[0].id);
  const named = await api('POST', '/iaos', { title: 'In Ops', project_id: projects[1].id });
  t.equal(named.body.project_id, projects[1].id, 'a named project is kept');
});
