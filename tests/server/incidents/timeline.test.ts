import t from 'tap';
import { incidentApp } from './helpers.js';

t.test('timeline: add after a given time, pin, edit, delete, filters', async (t) => {
  const { api, createIncident, organization, request } = await incidentApp(t);
  const inc = await createIncident();

  const filters = (await api('GET', '/iaos/timeline/filters')).body;
  t.same(
    filters.filters.filter((f: any) => f.default).map((f: any) => f.key),
    ['participant_updates', 'other_events', 'ai_generated_events', 'resource_updates', 'step_updates', 'task_updates', 'conversation_events'],
  );
  t.same(
    filters.filters.filter((f: any) => !f.default).map((f: any) => f.key),
    ['field_updates', 'assessment_updates', 'context_events', 'user_curated_events', 'notification_events'],
    'spec §9: user curated events among those off',
  );
  t.equal(filters.event_types['Custom event'], 'user_curated_events');

  const added = await api('POST', `/iaos/${inc.id}/event`, { description: 'Failover started', after: '2026-03-01T10:00:00Z' });
  t.equal(added.status, 201);
  t.equal(added.body.started_at, '2026-03-01T10:00:01.000Z', 'one second after the given time');
  t.equal(added.body.type, 'Custom event');
  t.equal(added.body.source, 'Incident Participant');
  t.equal(added.body.owner, 'commander@example.com');
  t.equal(added.body.pinned, false);

  const pinned = await api('PATCH', `/iaos/${inc.id}/event`, { id: added.body.id, pinned: true });
  t.equal(pinned.status, 200);
  t.equal(pinned.body.pinned, true);
  const edited = await api('PATCH', `/iaos/${inc.id}/event`, {
    id: added.body.id,
    description: 'Failover to replica started',
    started_at: '2026-03-01T10:05:00Z',
  });
  t.equal(edited.body.description, 'Failover to replica started');
  t.equal(edited.body.started_at, '2026-03-01T10:05:00.000Z');
  t.equal(edited.body.pinned, true, 'pin kept');

  const full = (await api('GET', `/iaos/${inc.id}`)).body;
  t.equal(full.events[0].description, 'Failover to replica started', 'timeline sorted by time');

  t.equal((await api('PATCH', `/iaos/${inc.id}/event`, { id: 99999, pinned: true })).status, 404);
  t.equal((await api('PATCH', `/iaos/${inc.id}/event`, { pinned: true })).status, 422, 'the event id is required');
  t.equal((await api('POST', `/iaos/${inc.id}/event`, { description: '' })).status, 422);
  t.equal((await api('POST', `/iaos/${inc.id}/event`, { description: 'x', type: 'Bogus' })).status, 422);
  t.equal((await api('POST', `/iaos/${inc.id}/event`, { description: 'x', after: 'not a date' })).status, 422);

  // Another organization cannot touch this timeline.
  const other = await organization('acme');
  const foreign = await request({ method: 'DELETE', url: `/api/v1/acme/iaos/${inc.id}/event/${added.body.id}`, token: other.token });
  t.equal(foreign.status, 404);

  t.equal((await api('DELETE', `/iaos/${inc.id}/event/${added.body.id}`)).status, 204);
  t.equal((await api('DELETE', `/iaos/${inc.id}/event/${added.body.id}`)).status, 404);
  const after = (await api('GET', `/iaos/${inc.id}`)).body;
  t.notOk(after.events.some((e: any) => e.id === added.body.id));
});

t.test('tasks: CRUD, resolve and reopen, timeline entries, bulk update, report prefill', async (t) => {
  const { api, createIncident, organization, request } = await incidentApp(t);
  const inc = await createIncident();
  const task = await api('POST', '/tasks', {
    description: 'Restore backups',
    incident_id: inc.id,
    assignees: ['ops@example.com', 'dba@example.com'],
    resolve_by: '2026-12-01T00:00:00Z',
  });
  t.equal(task.status, 201);
  t.equal(task.body.status, 'Open');
  t.equal(task.body.owner_email, 'commander@example.com', 'creator owns it by default');
  t.same(task.body.assignees, ['ops@example.com', 'dba@example.com']);
  t.equal(task.body.reminders, true);
  const second = await api('POST', '/tasks', { description: 'Notify customers', incident_id: inc.id });
  await api('POST', '/tasks', { description: 'Unrelated chore' });

  const prefill = (await api('GET', `/iaos/${inc.id}/report/prefill`)).body;
  t.equal(prefill.tactical.actions, '- Restore backups\n- Notify customers', 'unresolved tasks prefill the actions');

  const resolved = await api('POST', `/tasks/${task.body.id}/mark-resolved`);
  t.equal(resolved.body.message, 'Task resolved successfully.');
  t.equal(resolved.body.task.status, 'Resolved');
  t.ok(resolved.body.task.resolved_at);
  t.equal((await api('GET', `/iaos/${inc.id}/report/prefill`)).body.tactical.actions, '- Notify customers');
  const reopened = await api('POST', `/tasks/${task.body.id}/mark-open`);
  t.equal(reopened.body.message, 'Task opened successfully.');
  t.equal(reopened.body.task.resolved_at, null);

  // Bulk update from the list: one PUT per task.
  for (const id of [task.body.id, second.body.id]) t.equal((await api('PUT', `/tasks/${id}`, { status: 'Resolved' })).status, 200);
  const list = await api('GET', `/tasks?filter=${encodeURIComponent(JSON.stringify({ and: [{ field: 'status', op: '==', value: 'Resolved' }] }))}`);
  t.equal(list.body.total, 2);
  t.equal(list.body.itemsPerPage, 25);
  const assigned = await api('GET', `/tasks?filter=${encodeURIComponent(JSON.stringify([{ field: 'assignees', op: 'any', value: 'dba@example.com' }]))}`);
  t.same(
    assigned.body.items.map((i: any) => i.description),
    ['Restore backups'],
  );

  const full = (await api('GET', `/iaos/${inc.id}`)).body;
  t.equal(full.tasks.length, 2);
  const taskEvents = full.events.filter((e: any) => e.type === 'Task updated').map((e: any) => e.description);
  t.same(taskEvents, [
    'Task created by commander@example.com: Restore backups',
    'Task created by commander@example.com: Notify customers',
    'Task resolved by commander@example.com: Restore backups',
    'Task reopened by commander@example.com: Restore backups',
    'Task resolved by commander@example.com: Restore backups',
    'Task resolved by commander@example.com: Notify customers',
  ]);

  t.equal((await api('POST', '/tasks', { description: 'x', assignees: ['not-an-email'] })).status, 422);
  t.equal((await api('POST', '/tasks', { description: 'x', incident_id: 424242 })).body.detail[0].msg, "Incident '424242' could not be found.");
  const other = await organization('acme');
  const foreign = await request({ method: 'POST', url: `/api/v1/acme/tasks/${task.body.id}/mark-resolved`, token: other.token });
  t.equal(foreign.status, 404);
  t.equal(foreign.body.detail[0].msg, `Task '${task.body.id}' could not be found.`);
  t.equal((await api('DELETE', `/tasks/${second.body.id}`)).status, 204);
  const afterDelete = (await api('GET', `/iaos/${inc.id}`)).body;
  t.equal(afterDelete.events.at(-1).description, 'Task deleted by commander@example.com: Notify customers');
});

t.test('reports: stored, on the timeline, e-mailed to subscribers', async (t) => {
  const { api, createIncident, login, outbox } = await incidentApp(t);
  const inc = await createIncident();
  const watcher = await login('watcher@example.com', { role: 'Member' });
  await api('POST', `/iaos/${inc.id}/subscribe`, undefined, watcher);
  await api('POST', `/iaos/${inc.id}/subscribe`);
  const before = outbox.length;
  const tactical = await api('POST', `/iaos/${inc.id}/report/tactical`, {
    conditions: 'Primary is down; replica healthy.',
    actions: '- Fail over',
    needs: 'A DBA on call',
  });
  t.equal(tactical.status, 201);
  t.equal(tactical.body.message, 'Tactical report created successfully.');
  t.equal(tactical.body.emailed, 2);
  const mails = outbox.slice(before);
  t.same(mails.map((m) => m.to).sort(), ['commander@example.com', 'watcher@example.com']);
  t.equal(mails[0]!.subject, 'Tactical report: IAO-1 Database down');
  t.match(mails[0]!.text, /Conditions:\nPrimary is down; replica healthy\.\n\nActions:\n- Fail over\n\nNeeds:\nA DBA on call/);

  const executive = await api('POST', `/iaos/${inc.id}/report/executive`, { current_status: 'Mitigated', overview: 'Failover done', next_steps: 'Postmortem' });
  t.equal(executive.status, 201);
  const full = (await api('GET', `/iaos/${inc.id}`)).body;
  t.same(
    full.reports.map((r: any) => r.type),
    ['executive', 'tactical'],
  );
  t.same(full.reports[1].details, { conditions: 'Primary is down; replica healthy.', actions: '- Fail over', needs: 'A DBA on call' });
  t.ok(full.events.some((e: any) => e.description === 'Tactical report created by commander@example.com' && e.details.report_id === tactical.body.report.id));
  t.ok(full.events.some((e: any) => e.description === 'Executive report created by commander@example.com'));

  const count = outbox.length;
  const bad = await api('POST', `/iaos/${inc.id}/report/tactical`, { conditions: 'x', overview: 'wrong kind' });
  t.equal(bad.status, 422);
  t.equal(bad.body.detail[0].msg, "Unknown field 'overview'.");
  t.equal((await api('POST', `/iaos/${inc.id}/report/tactical`, { actions: 'x' })).body.detail[0].msg, 'This field is required');
  t.equal((await api('POST', `/iaos/${inc.id}/report/weekly`, { conditions: 'x' })).status, 422);
  t.equal(outbox.length, count, 'a rejected report sends nothing');
  t.equal((await api('GET', `/iaos/${inc.id}`)).body.reports.length, 2);
});

t.test('task reminders: overdue open tasks with reminders on, once a day', async (t) => {
  const { api, login, outbox } = await incidentApp(t);
  await api('POST', '/tasks', {
    description: 'Rotate the leaked key',
    owner_email: 'owner@example.com',
    assignees: ['helper@example.com'],
    resolve_by: '2020-01-01T00:00:00Z',
  });
  await api('POST', '/tasks', { description: 'Quiet task', resolve_by: '2020-01-01T00:00:00Z', reminders: false });
  await api('POST', '/tasks', { description: 'Not due yet', resolve_by: '2999-01-01T00:00:00Z' });
  const done = await api('POST', '/tasks', { description: 'Done already', resolve_by: '2020-01-01T00:00:00Z' });
  await api('POST', `/tasks/${done.body.id}/mark-resolved`);
  const before = outbox.length;
  const sent = await api('POST', '/tasks/reminders/send');
  t.equal(sent.status, 200);
  t.equal(sent.body.sent, 2);
  t.same(
    outbox
      .slice(before)
      .map((m) => m.to)
      .sort(),
    ['helper@example.com', 'owner@example.com'],
  );
  t.equal(outbox.at(-1)!.subject, 'Task overdue: Rotate the leaked key');
  t.equal((await api('POST', '/tasks/reminders/send')).body.sent, 0, 'not again the same day');
  const member = await login('member@example.com', { role: 'Member' });
  t.equal((await api('POST', '/tasks/reminders/send', undefined, member)).status, 403);
});
