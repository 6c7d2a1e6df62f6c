import t from 'tap';
import { slackApp } from './helpers.js';

const byRecipient = <M extends { to: string }>(mails: M[]) => [...mails].sort((a, b) => a.to.localeCompare(b.to));

t.test('a report from /firewatch is the web app’s report: saved, on the timeline, posted, and mailed to the same subscribers', async (t) => {
  const s = await slackApp(t);
  const incident = await s.createIncident({ title: 'Payments down' });
  await s.settle();
  const channel = [...s.slack.channels.values()][0]!;
  for (const email of ['ana@example.com', 'bo@example.com']) {
    const token = await s.login(email, { role: 'Member' });
    t.equal((await s.api('POST', `/iaos/${incident.id}/subscribe`, undefined, token)).status, 200, `${email} subscribes in the web app`);
  }

  const fields = { conditions: 'EU card payments fail', actions: 'Failover to the second acquirer', needs: 'Acquirer contact' };
  t.equal((await s.api('POST', `/iaos/${incident.id}/report/tactical`, fields)).status, 201);
  await s.settle();
  const web = s.outbox.splice(0);
  t.equal(web.length, 2, 'the web app mails both subscribers');

  await s.command(`report tactical ${fields.conditions} | ${fields.actions} | ${fields.needs}`, { channel_id: channel.id });
  await s.settle();
  t.match(s.slack.responses.at(-1)!.body.text, /^Tactical report saved on the timeline, e-mailed to its 2 subscribers/);
  t.same(byRecipient(s.outbox.splice(0)), byRecipient(web), 'the same mail to the same people');

  const full = (await s.api('GET', `/iaos/${incident.id}`)).body;
  t.same(
    full.reports.map((r: any) => r.details),
    [fields, fields],
    'saved with the same fields (the subcommand’s words are not in them)',
  );
  t.equal(full.events.filter((e: any) => e.description === 'Tactical report created by commander@example.com').length, 2, 'each on the timeline');
  const posted = channel.messages.filter((m) => m.text.startsWith('Tactical report: '));
  t.equal(posted.length, 2, 'both posted in the channel');
  t.equal(JSON.stringify(posted[1]!.blocks), JSON.stringify(posted[0]!.blocks));

  // What the web app refuses, Slack refuses in words.
  await s.command('report tactical', { channel_id: channel.id });
  await s.settle();
  t.match(s.slack.responses.at(-1)!.body.text, /^The conditions are needed\. Say `report tactical <conditions>/);
  t.equal((await s.api('GET', `/iaos/${incident.id}`)).body.reports.length, 2, 'and saves nothing');
  t.same(s.outbox, []);
});

t.test('a case’s channel: joining it makes one a participant, and commands there work on the case', async (t) => {
  const s = await slackApp(t);
  const type = (await s.api('POST', '/case_types', { name: 'Phishing', dedicated_channel: true })).body;
  const c = (await s.api('POST', '/cases', { title: 'Mail to finance', project_id: s.projectId, case_type_id: type.id })).body;
  await s.settle();
  const channel = [...s.slack.channels.values()][0]!;
  const response = () => s.slack.responses.at(-1)!.body.text as string;
  const caseNow = async () => (await s.api('GET', `/cases/${c.id}`)).body;

  s.slack.users.push({ id: 'UANA', email: 'ana@example.com', name: 'Ana' });
  await s.event({ type: 'member_joined_channel', user: 'UANA', channel: channel.id });
  await s.settle();
  t.match((await caseNow()).participants, ['ana@example.com'], 'joining the channel made Ana a participant of the case');
  t.ok((await caseNow()).events.some((e: any) => e.description === `ana@example.com joined the case in Slack (#${channel.name})`));
  await s.event({ type: 'member_joined_channel', user: 'UANA', channel: channel.id });
  await s.settle();
  t.equal((await caseNow()).events.filter((e: any) => /joined the case in Slack/.test(e.description)).length, 1, 'once');

  await s.command('status', { channel_id: channel.id });
  await s.settle();
  t.match(response(), new RegExp(`^\\*${c.name}: Mail to finance\\*\nStatus: New · Assignee: none`), 'status is the case’s');

  await s.command('take', { channel_id: channel.id });
  await s.settle();
  t.equal(response(), "commander@example.com is now the case's assignee.");
  await s.command('update status Triage', { channel_id: channel.id });
  await s.command('task Check the mail headers', { channel_id: channel.id });
  await s.settle();
  const now = await caseNow();
  t.equal(now.assignee_email, 'commander@example.com');
  t.equal(now.status, 'Triage');
  t.ok(
    now.events.some((e: any) => /Check the mail headers/.test(e.description)),
    'the task is on the case',
  );
  await s.command('join', { channel_id: channel.id });
  await s.settle();
  t.match(response(), /^Not done: This is a case’s channel; this works on incidents/, 'an incident-only command says so');

  await s.command('escalate', { channel_id: channel.id });
  await s.settle();
  t.match(response(), new RegExp(`^Case ${c.name} escalated to an incident`));
  const escalated = await caseNow();
  t.equal(escalated.status, 'Escalated');
  t.ok(escalated.incident_id, 'the case is now an incident');

  t.match((await s.command('help')).body.text, /`task <what needs doing>` \(incidents and cases\)/, 'help names what applies to cases');
});

t.test('in a restricted case’s channel, a Member who cannot see the case can do nothing with it', async (t) => {
  const s = await slackApp(t);
  const type = (await s.api('POST', '/case_types', { name: 'Insider', dedicated_channel: true })).body;
  const c = (await s.api('POST', '/cases', { title: 'Badge misuse', project_id: s.projectId, case_type_id: type.id, visibility: 'Restricted' })).body;
  await s.settle();
  const channel = [...s.slack.channels.values()][0]!;
  t.equal(channel.is_private, true);
  await s.login('member@example.com', { role: 'Member' });
  s.slack.users.push({ id: 'UMEM', email: 'member@example.com', name: 'Mem Ber' });

  await s.event({ type: 'member_joined_channel', user: 'UMEM', channel: channel.id });
  await s.command('take', { user_id: 'UMEM', channel_id: channel.id });
  await s.settle();
  t.match(s.slack.responses.at(-1)!.body.text, /^Not done: /, 'refused as the web app would');
  const now = (await s.api('GET', `/cases/${c.id}`)).body;
  t.equal(now.assignee_email, null);
  t.same(now.participants, [], 'added in Slack, not made a participant');
  t.ok(now.events.some((e: any) => /member@example\.com joined the private Slack channel .* not a participant of this restricted case/.test(e.description)));
});
