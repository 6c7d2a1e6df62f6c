import t from 'tap';
import { incidentApp } from './helpers.js';

/** The server side of the responder screens: dashboard filters, data and feedback figures, handoffs. */

t.test('dashboards: project filter, data sources and feedback ratings', async (t) => {
  const { api, createIncident, projectId, login } = await incidentApp(t);
  const other = (await api('POST', '/projects', { name: 'Other' })).body.id as number;
  const month = new Date().toISOString().slice(0, 7);

  const a = await createIncident();
  await createIncident({ project_id: other });
  const secret = await createIncident({ visibility: 'Restricted' });
  const all = (await api('GET', '/iaos/metric/summary')).body;
  t.equal(all.incidents.total, 3);
  const mine = await api('GET', `/iaos/metric/summary?project_id=${projectId}`);
  t.equal(mine.status, 200);
  t.equal(mine.body.incidents.total, 2, 'only the picked project');
  t.equal(mine.body.project_id, projectId);
  t.equal((await api('GET', '/iaos/metric/summary?project_id=abc')).status, 422);
  t.equal((await api('GET', '/iaos/metric/summary?colour=red')).status, 422, 'unknown filters are refused');

  // Data: sources by type and status, freshness of their data, volume, cost, most queried.
  const logs = (await api('POST', '/data/sources/types', { name: 'Logs' })).body.id;
  const live = (await api('POST', '/data/sources/statuses', { name: 'Live' })).body.id;
  const nginx = await api('POST', '/data/sources', {
    name: 'nginx',
    source_type_id: logs,
    source_status_id: live,
    size: 1000,
    cost: 12.5,
    delay: 4,
    data_last_loaded_at: new Date().toISOString(),
    project_id: projectId,
  });
  t.equal(nginx.status, 201);
  await api('POST', '/data/sources', {
    name: 'edr',
    size: 500,
    cost: 7.5,
    delay: 10,
    data_last_loaded_at: new Date(Date.now() - 3 * 86400_000).toISOString(),
    project_id: projectId,
  });
  await api('POST', '/data/sources', { name: 'legacy', project_id: other });
  await api('POST', '/data/queries', { name: '5xx', text: 'status >= 500', source_id: nginx.body.id });
  await api('POST', '/data/queries', { name: 'slow', text: 'latency > 1s', source_id: nginx.body.id });
  const data = (await api('GET', '/iaos/metric/summary')).body.data;
  t.match(data, { total: 3, bytes_per_day: 1500, cost: 20, mean_delay_minutes: 7 });
  t.same(data.freshness, [
    { name: 'Loaded in the last day', count: 1 },
    { name: 'Loaded in the last week', count: 1 },
    { name: 'Older', count: 0 },
    { name: 'Never loaded', count: 1 },
  ]);
  t.same(data.most_queried, [{ name: 'nginx', queries: 2 }]);
  t.ok(data.by_month.some((r: any) => r.month === month && r.type === 'Logs' && r.status === 'Live' && r.count === 1));
  t.equal((await api('GET', `/iaos/metric/summary?project_id=${other}`)).body.data.total, 1);

  // Feedback: ratings per month, mean score (5 = very satisfied), latest comments; service effort too.
  const participant = (await api('GET', `/iaos/${a.id}`)).body.participants[0].id;
  await api('POST', '/feedback', {
    rating: 'Very satisfied',
    feedback: 'Clear updates every hour.',
    incident_id: a.id,
    participant_id: participant,
    project_id: projectId,
  });
  await api('POST', '/feedback', { rating: 'Somewhat dissatisfied', incident_id: a.id, project_id: projectId });
  const secretParticipant = (await api('GET', `/iaos/${secret.id}`)).body.participants[0].id;
  await api('POST', '/feedback', {
    rating: 'Very dissatisfied',
    feedback: 'Nobody told us.',
    incident_id: secret.id,
    participant_id: secretParticipant,
    project_id: projectId,
  });
  await api('POST', '/servicefeedback', { rating: 'Little effort', project_id: projectId });
  await api('POST', '/servicefeedback', { rating: 'Lots of effort', project_id: projectId });
  const owner = (await api('GET', '/iaos/metric/summary')).body.feedback;
  t.equal(owner.total, 3);
  t.equal(owner.mean_score, 2.67, '(5 + 2 + 1) / 3');
  t.same(
    owner.latest.map((l: any) => [l.rating, l.incident]),
    [
      ['Very dissatisfied', secret.name],
      ['Very satisfied', a.name],
    ],
    'newest first, comments only',
  );
  t.same(owner.by_month.map((r: any) => [r.month, r.rating, r.count]).sort(), [
    [month, 'Somewhat dissatisfied', 1],
    [month, 'Very dissatisfied', 1],
    [month, 'Very satisfied', 1],
  ]);
  t.match(owner.service, { total: 2, mean_score: 3 });

  // A member who cannot see the restricted incident does not see its feedback either.
  const member = await login('member@example.com', { role: 'Member' });
  const seen = (await api('GET', '/iaos/metric/summary', undefined, member)).body;
  t.equal(seen.incidents.total, 2);
  t.equal(seen.feedback.total, 2);
  t.equal(seen.feedback.mean_score, 3.5);
  t.notOk(seen.feedback.latest.some((l: any) => l.incident === secret.name));
});

t.test('handoff: prefill from the shift and from an incident, recorded from the incident on its timeline', async (t) => {
  const { api, createIncident, login } = await incidentApp(t);
  const checkout = await createIncident({ title: 'Checkout errors' });
  const closed = await createIncident({ title: 'Old outage' });
  await api('POST', `/iaos/${closed.id}/closed`);
  const unrelated = await createIncident({ title: 'Someone else', commander_email: 'x@example.com', reporter_email: 'x@example.com' });
  await api('POST', '/tasks', { description: 'Roll back deploy', incident_id: checkout.id, resolve_by: '2030-01-01T10:00:00Z' });
  const done = await api('POST', '/tasks', { description: 'Page payments team', incident_id: checkout.id });
  await api('POST', `/tasks/${done.body.id}/mark-resolved`);
  await api('POST', '/tasks', { description: 'Review alert thresholds', owner_email: 'commander@example.com' });
  await api('POST', '/tasks', { description: 'Not mine', incident_id: unrelated.id, owner_email: 'x@example.com' });
  await api('POST', '/iaos/' + checkout.id + '/roles', { email: 'scribe@example.com', role: 'scribe' });

  const shift = await api('GET', '/oncall/handoffs/prefill');
  t.equal(shift.status, 200);
  t.equal(shift.body.handover_from, 'commander@example.com');
  t.same(shift.body.incidents, [checkout.name], 'ongoing incidents the caller takes part in, not closed or others');
  t.match(
    shift.body.critical_ongoing_issues,
    new RegExp(`^${checkout.name} Checkout errors: Active, priority Medium, commander commander@example.com$`),
    'with the default priority it was given',
  );
  t.equal(shift.body.pending_tasks, `- Roll back deploy (${checkout.name}, due 2030-01-01 10:00 UTC)\n- Review alert thresholds`);
  t.equal(shift.body.tasks_completed, `- Page payments team (${checkout.name})`);
  t.equal(shift.body.mentions, 'scribe@example.com');
  const hours = (Date.parse(shift.body.end_time) - Date.parse(shift.body.start_time)) / 3600_000;
  t.equal(Math.round(hours), 12, 'no earlier handoff: the last 12 hours');

  const fromIncident = await api('GET', `/oncall/handoffs/prefill?incident_id=${unrelated.id}`);
  t.same(fromIncident.body.incidents, [unrelated.name]);
  t.equal(fromIncident.body.pending_tasks, `- Not mine (${unrelated.name})`, "one incident: its tasks, not the caller's others");
  t.equal((await api('GET', '/oncall/handoffs/prefill?incident_id=99999')).status, 404);

  const body = {
    handover_from: 'commander@example.com',
    handover_to: 'next@example.com',
    start_time: shift.body.start_time,
    end_time: shift.body.end_time,
    critical_ongoing_issues: shift.body.critical_ongoing_issues,
    pending_tasks: shift.body.pending_tasks,
  };
  const bad = await api('POST', `/iaos/${checkout.id}/handoff`, { ...body, handover_to: '' });
  t.equal(bad.status, 422);
  t.equal((await api('POST', `/iaos/${checkout.id}/handoff`, { ...body, end_time: 'tonight' })).status, 422);
  t.equal((await api('GET', '/oncall/handoffs')).body.total, 0, 'refused bodies change nothing');
  t.equal((await api('POST', '/iaos/99999/handoff', body)).status, 404);

  const made = await api('POST', `/iaos/${checkout.id}/handoff`, body);
  t.equal(made.status, 201);
  t.equal(made.body.message, 'Handoff created successfully.');
  t.equal(made.body.handoff.project_id, checkout.project_id, "in the incident's project");
  const listed = (await api('GET', '/oncall/handoffs')).body.items;
  t.same(
    listed.map((h: any) => [h.handover_from, h.handover_to, h.pending_tasks]),
    [['commander@example.com', 'next@example.com', body.pending_tasks]],
  );
  const events = (await api('GET', `/iaos/${checkout.id}`)).body.events.map((e: any) => e.description);
  t.ok(events.includes('On-call handoff from commander@example.com to next@example.com recorded by commander@example.com'), 'on the timeline');

  // The next shift of whoever received it starts where this one ended.
  const next = await login('next@example.com', { role: 'Member' });
  const theirs = await api('GET', '/oncall/handoffs/prefill', undefined, next);
  t.equal(theirs.body.start_time, new Date(body.end_time).toISOString());
});
