import t from 'tap';
import { slackApp } from './helpers.js';

t.test('a case type naming a channel: new cases are posted there with buttons that act with the clicker’s rights', async (t) => {
  const s = await slackApp(t);
  s.slack.channels.set('COPS0001', {
    id: 'COPS0001',
    name: 'ops-alerts',
    is_private: false,
    is_archived: false,
    topic: '',
    members: new Set(),
    messages: [],
    pins: [],
    bookmarks: [],
  });
  const type = await s.api('POST', '/case_types', { name: 'Phishing', conversation_target: '#ops-alerts' });
  t.equal(type.status, 201);
  const made = await s.api('POST', '/cases', { title: 'Fake invoice mail', project_id: s.projectId, case_type_id: type.body.id });
  const hidden = await s.api('POST', '/cases', { title: 'Payroll fraud', project_id: s.projectId, case_type_id: type.body.id, visibility: 'Restricted' });
  t.equal(hidden.status, 201);
  await s.settle();

  const posted = s.slack.channels.get('COPS0001')!.messages;
  t.equal(posted.length, 1, 'the open case is posted; the restricted one is not');
  const blocks = JSON.stringify(posted[0]!.blocks);
  t.match(blocks, /Fake invoice mail/);
  t.match(blocks, /"action_id":"case_ack"/);
  t.match(blocks, /"action_id":"case_escalate"/);
  t.match(blocks, new RegExp(`"url":"http://firewatch.test/default/cases/${made.body.name}/view"`));

  const click = (action_id: string) =>
    s.interaction({ type: 'block_actions', response_url: s.slack.responseUrl(), actions: [{ action_id, value: String(made.body.id) }] });
  await click('case_ack');
  await s.settle();
  t.equal((await s.api('GET', `/cases/${made.body.id}`)).body.status, 'Triage', 'Acknowledge puts the case in triage');
  t.match(s.slack.responses.at(-1)!.body.text, /Acknowledged by commander@example\.com/);

  await click('case_escalate');
  await s.settle();
  const escalated = (await s.api('GET', `/cases/${made.body.id}`)).body;
  t.equal(escalated.status, 'Escalated');
  t.ok(escalated.incident_id, 'Escalate opens the incident');
  t.equal(s.slack.channels.size, 2, 'whose channel follows');
});
