import t from 'tap';
import { incidentApp } from '../incidents/helpers.js';

t.test('cases: statuses set their timestamps, resolution reasons, list filters', async (t) => {
  const { api, projectId } = await incidentApp(t);
  const type = await api('POST', '/tag_types', { name: 'Threat' });
  const tag = await api('POST', '/tags', { name: 'phishing', tag_type_id: type.body.id });
  const c = await api('POST', '/cases', { title: 'Suspicious login', project_id: projectId, tags: [tag.body.id], assignee_email: 'analyst@example.com' });
  t.equal(c.status, 201);
  t.equal(c.body.name, 'OCO-1');
  t.equal(c.body.status, 'New');
  t.equal(c.body.reporter_email, 'commander@example.com');
  await api('POST', '/cases', { title: 'Spam wave', project_id: projectId });

  const steps: [string, string][] = [
    ['Triage', 'triage_at'],
    ['Stable', 'stable_at'],
    ['Closed', 'closed_at'],
  ];
  for (const [status, column] of steps) {
    const res = await api('PUT', `/cases/${c.body.id}`, { status });
    t.equal(res.status, 200, status);
    t.equal(res.body.status, status);
    t.ok(res.body[column], `${status} sets ${column}`);
  }
  const reopened = await api('PUT', `/cases/${c.body.id}`, { status: 'Triage' });
  t.equal(reopened.body.closed_at, null, 'reopening clears closed_at');
  t.equal((await api('PUT', `/cases/${c.body.id}`, { status: 'Escalated' })).status, 422, 'Escalated only through escalate');

  const reason = await api('PUT', `/cases/${c.body.id}`, { resolution_reason: 'False Positive', resolution: 'Known VPN exit' });
  t.equal(reason.body.resolution_reason, 'False Positive');
  const badReason = await api('PUT', `/cases/${c.body.id}`, { resolution_reason: 'Bored' });
  t.equal(badReason.status, 422);

  const full = (await api('GET', `/cases/${c.body.id}`)).body;
  t.same(
    full.tags.map((x: any) => x.name),
    ['phishing'],
  );
  t.same(
    full.events.filter((e: any) => e.type === 'Other').map((e: any) => e.description),
    [
      'Case OCO-1 created by commander@example.com',
      'Case status changed from New to Triage by commander@example.com',
      'Case status changed from Triage to Stable by commander@example.com',
      'Case status changed from Stable to Closed by commander@example.com',
      'Case status changed from Closed to Triage by commander@example.com',
    ],
  );

  const f = (filter: unknown) => api('GET', `/cases?filter=${encodeURIComponent(JSON.stringify(filter))}`);
  t.same(
    (await f([{ field: 'assignee_email', op: '==', value: 'analyst@example.com' }])).body.items.map((i: any) => i.name),
    ['OCO-1'],
  );
  t.same(
    (await f([{ model: 'Tag', field: 'name', op: '==', value: 'phishing' }])).body.items.map((i: any) => i.name),
    ['OCO-1'],
  );
  t.same(
    (await f([{ model: 'TagType', field: 'name', op: '==', value: 'Threat' }])).body.items.map((i: any) => i.name),
    ['OCO-1'],
  );
  t.same(
    (await f([{ field: 'status', op: '==', value: 'New' }])).body.items.map((i: any) => i.name),
    ['OCO-2'],
  );
  t.equal((await f([{ field: 'closed_at', op: '>=', value: '2000-01-01' }])).body.total, 0, 'closed_at range (reopened: none closed)');
  const list = await api('GET', '/cases');
  t.equal(list.body.itemsPerPage, 25);
  t.same(
    list.body.items.map((i: any) => i.name),
    ['OCO-2', 'OCO-1'],
    'reported_at desc',
  );

  const comment = await api('POST', `/cases/${c.body.id}/comments/add`, { text: 'Checked the VPN logs.' });
  t.equal(comment.status, 201);
  t.equal(comment.body.message, 'Comment added successfully.');
  t.equal((await api('POST', `/cases/${c.body.id}/comments/add`, { text: '' })).status, 422);
  const cause = await api('GET', `/cases/${c.body.id}/probable_cause`);
  t.equal(cause.status, 200);
  t.equal(cause.body.method, 'extractive');
  t.ok(cause.body.probable_cause.length > 0);
});

t.test('cases: restricted ones only for their participants and admins', async (t) => {
  const { api, login, projectId } = await incidentApp(t);
  const restricted = await api('POST', '/cases', { title: 'HR matter', project_id: projectId, visibility: 'Restricted', participants: ['helper@example.com'] });
  await api('POST', '/cases', { title: 'Open matter', project_id: projectId });
  const member = await login('member@example.com', { role: 'Member' });
  const helper = await login('helper@example.com', { role: 'Member' });
  const admin = await login('admin@example.com', { role: 'Admin' });
  t.same(
    (await api('GET', '/cases', undefined, member)).body.items.map((i: any) => i.title),
    ['Open matter'],
  );
  const hidden = await api('GET', `/cases/${restricted.body.id}`, undefined, member);
  t.equal(hidden.status, 404);
  t.equal(hidden.body.detail[0].msg, `Case '${restricted.body.id}' could not be found.`);
  t.equal((await api('PUT', `/cases/${restricted.body.id}`, { title: 'peek' }, member)).status, 404, 'cannot update');
  t.equal((await api('DELETE', `/cases/${restricted.body.id}`, undefined, member)).status, 404, 'cannot delete');
  t.equal((await api('POST', `/cases/${restricted.body.id}/comments/add`, { text: 'hi' }, member)).status, 404);
  t.equal((await api('PUT', `/cases/${restricted.body.id}/escalate`, undefined, member)).status, 404);
  t.equal((await api('GET', `/cases/${restricted.body.id}`, undefined, helper)).status, 200, 'a listed participant sees it');
  t.equal((await api('GET', '/cases', undefined, admin)).body.total, 2, 'admins see all');
  await api('PUT', `/cases/${restricted.body.id}`, { assignee_email: 'member@example.com' });
  t.equal((await api('GET', `/cases/${restricted.body.id}`, undefined, member)).status, 200, 'the assignee sees it');
  t.equal((await api('GET', `/cases/${restricted.body.id}`)).body.title, 'HR matter', 'the rejected update changed nothing');
});

t.test('escalation: creates the incident, copies tags and events, links both', async (t) => {
  const { api, projectId, drain } = await incidentApp(t);
  const type = await api('POST', '/tag_types', { name: 'Asset' });
  const tag = await api('POST', '/tags', { name: 'laptop-42', tag_type_id: type.body.id });
  const c = await api('POST', '/cases', {
    title: 'Malware on laptop',
    description: 'EDR flagged a trojan.',
    project_id: projectId,
    tags: [tag.body.id],
    assignee_email: 'analyst@example.com',
  });
  await api('POST', `/cases/${c.body.id}/comments/add`, { text: 'Isolated the host.' });

  const res = await api('PUT', `/cases/${c.body.id}/escalate`);
  t.equal(res.status, 200);
  t.equal(res.body.message, 'Case escalated successfully.');
  t.equal(res.body.case.status, 'Escalated');
  t.ok(res.body.case.escalated_at);
  t.equal(res.body.case.incidents[0].name, 'IAO-1');
  const incident = (await api('GET', `/iaos/${res.body.incident_id}`)).body;
  t.equal(incident.title, 'Malware on laptop');
  t.equal(incident.description, 'EDR flagged a trojan.');
  t.equal(incident.commander_email, 'analyst@example.com', 'the assignee commands');
  t.same(
    incident.tags.map((x: any) => x.name),
    ['laptop-42'],
  );
  t.same(
    incident.cases.map((x: any) => x.name),
    ['OCO-1'],
  );
  const copied = incident.events.filter((e: any) => e.details?.copied_from_case === 'OCO-1').map((e: any) => e.description);
  for (const d of ['Case OCO-1 created by commander@example.com', 'commander@example.com added a comment']) t.ok(copied.includes(d), `copied: ${d}`);
  t.ok(incident.events.some((e: any) => e.description === 'Incident created by escalating case OCO-1'));
  const caseAfter = (await api('GET', `/cases/${c.body.id}`)).body;
  t.ok(caseAfter.events.some((e: any) => e.description === 'Case escalated to incident IAO-1 by commander@example.com'));
  t.equal((await api('PUT', `/cases/${c.body.id}/escalate`)).status, 409, 'only once');
  // The client polls the incident every 5 s until its conference exists.
  await drain();
  t.ok((await api('GET', `/iaos/${res.body.incident_id}`)).body.conference_url);
  t.ok((await api('GET', `/cases/${c.body.id}`)).body.conversation_id, 'the case got its conversation too');
  const listed = await api('GET', `/iaos?filter=${encodeURIComponent(JSON.stringify([{ field: 'name', op: '==', value: 'IAO-1' }]))}`);
  t.equal(listed.body.total, 1, 'the incident appears in the list');
  t.equal((await api('PUT', `/cases/${c.body.id}/escalate`, { bogus: true })).status, 422);
});

t.test("settings: type, priority and severity by name; escalation takes the case type's incident type", async (t) => {
  const { api, projectId, request, organization, drain } = await incidentApp(t);
  const doc = await api('POST', '/documents', {
    name: 'Security review template',
    resource_type: 'dispatch-incident-review-document-template',
    description: 'Answer the five whys.',
  });
  t.equal(doc.status, 201, JSON.stringify(doc.body));
  const itype = await api('POST', '/incident_types', {
    name: 'Security',
    review_template_document_id: doc.body.id,
    custom_checklist: [{ text: 'Preserve evidence', required: true }, { text: 'Rotate credentials' }],
  });
  t.equal(itype.status, 201, JSON.stringify(itype.body));
  const prio = await api('POST', '/incident_priorities', { name: 'High' });
  const ctype = await api('POST', '/case_types', { name: 'Malware', incident_type_id: itype.body.id });
  t.equal(ctype.status, 201, JSON.stringify(ctype.body));
  const c = await api('POST', '/cases', { title: 'Trojan', project_id: projectId, case_type_id: ctype.body.id });
  t.equal((await api('GET', '/cases')).body.items[0].case_type_name, 'Malware', 'type name in the slim list');
  const esc = await api('PUT', `/cases/${c.body.id}/escalate`, { incident_priority_id: prio.body.id });
  const incident = (await api('GET', `/iaos/${esc.body.incident_id}`)).body;
  t.equal(incident.incident_type_id, itype.body.id, 'incident type from the case type');
  t.equal(incident.incident_type_name, 'Security');
  t.equal(incident.incident_priority_name, 'High');
  t.same(
    incident.steps.map((s: any) => s.name),
    ['Preserve evidence', 'Rotate credentials'],
    "steps from the type's checklist",
  );
  const listed = await api('GET', `/iaos?filter=${encodeURIComponent(JSON.stringify([{ field: 'incident_type_name', op: '==', value: 'Security' }]))}`);
  t.same(
    listed.body.items.map((i: any) => [i.name, i.incident_type_name, i.incident_priority_name]),
    [['IAO-1', 'Security', 'High']],
  );
  await api('POST', `/iaos/${esc.body.incident_id}/postmortem/create`);
  await drain();
  const review = (await api('GET', `/iaos/${esc.body.incident_id}`)).body.resources.find((r: any) => r.resource_type === 'dispatch-incident-review-document');
  t.match(review.content, /Template: Security review template/);
  t.match(review.content, /Answer the five whys\./);

  const other = await organization('acme');
  const foreignType = await request({ method: 'POST', url: '/api/v1/acme/incident_types', token: other.token, payload: { name: 'Theirs' } });
  const bad = await api('POST', '/iaos', { title: 'x', project_id: projectId, incident_type_id: foreignType.body.id });
  t.equal(bad.status, 422);
  t.equal(bad.body.detail[0].msg, `Incident type '${foreignType.body.id}' could not be found.`);
  const inUse = await api('DELETE', `/incident_types/${itype.body.id}`);
  t.equal(inUse.status, 409, 'a type in use cannot be deleted');
});
