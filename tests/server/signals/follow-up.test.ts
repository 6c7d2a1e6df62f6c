import t from 'tap';
import { fixture, signalApp } from './helpers.js';
import { smtpMailbox } from '../core/smtp-mailbox.js';
import { until } from '../workflows/receivers.js';

t.test("a case opened from a signal runs the definition's workflows, with entity values as parameters", async (t) => {
  const s = await signalApp(t, { JOB_POLL_SECONDS: '0.5', WORKFLOW_POLL_SECONDS: '0.5' });
  const engine = await s.ok('POST', '/plugins/instances', { plugin_slug: 'step-engine', title: 'steps', configuration: {}, project_id: s.projectId });
  const wf = await s.ok('POST', '/workflows', {
    name: 'Note the host',
    plugin_instance_id: engine.id,
    project_id: s.projectId,
    parameters: [{ key: 'host', value: 'Host' }],
    steps: [{ kind: 'timeline', with: { description: 'Checked {{parameters.host}}' } }],
  });
  const idle = await s.ok('POST', '/workflows', { name: 'Not attached', plugin_instance_id: engine.id, project_id: s.projectId, steps: [] });
  await s.ok('PUT', `/signals/${s.signal.id}`, { workflow_ids: [wf.id] });
  const res = await s.ingest('/signals/pagerduty/v2/enqueue', fixture('pagerduty-trigger.json', s.key));
  t.equal(res.status, 202);
  await s.drain();
  const [instance] = (await s.api('GET', `/signals/${s.signal.id}/instances`)).body.items;
  const runs = await until('the run', async () => {
    s.app.queue.notify('workflow-runs');
    const r = await s.api(
      'GET',
      `/workflows/instances?filter=${encodeURIComponent(JSON.stringify([{ field: 'case_id', op: '==', value: instance.case_id }]))}`,
    );
    return r.body.items?.length && r.body.items;
  });
  t.equal(runs.length, 1, 'only the attached workflow');
  t.equal(runs[0].workflow_id, wf.id);
  t.not(runs[0].workflow_id, idle.id);
  t.equal(runs[0].trigger, 'signal');
  t.equal(runs[0].signal_id, s.signal.id);
  t.same(runs[0].parameters, { host: 'prod-datapipe03.example.com' }, 'the parameter naming the Host type took the host found');
  // The repeat joins the case: no second run.
  await s.ingest('/signals/pagerduty/v2/enqueue', fixture('pagerduty-trigger.json', s.key));
  await s.drain();
  const again = await s.api(
    'GET',
    `/workflows/instances?filter=${encodeURIComponent(JSON.stringify([{ field: 'case_id', op: '==', value: instance.case_id }]))}`,
  );
  t.equal(again.body.items.length, 1);
});

t.test('engagement: the person an entity names gets an e-mail with approve and deny links; the answer lands on the case timeline', async (t) => {
  const mailbox = await smtpMailbox(t);
  const s = await signalApp(t, { SMTP_URL: mailbox.url, JOB_POLL_SECONDS: '0.5', PUBLIC_URL: 'http://firewatch.test' });
  const engagement = await s.ok('POST', '/signals/engagements', {
    name: 'Confirm the disk alert',
    entity_type_id: s.email.id,
    message: 'Did you fill the disk on purpose?',
    project_id: s.projectId,
  });
  await s.ok('PUT', `/signals/${s.signal.id}`, { engagement_ids: [engagement.id] });
  await s.ingest('/signals/pagerduty/v2/enqueue', fixture('pagerduty-trigger.json', s.key));
  await s.drain();
  const mail = await until('the engagement e-mail', () => {
    s.app.queue.notify('signals-mail');
    return mailbox.received.find((m) => /^To: dana\.ops@example\.com/m.test(m));
  });
  t.match(mail, /Did you fill the disk on purpose\?/);
  const unfolded = mail.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const approve = /http:\/\/firewatch\.test(\/api\/v1\/default\/signals\/engagements\/respond\?token=[\w-]+&answer=approve)/.exec(unfolded)?.[1];
  const deny = /http:\/\/firewatch\.test(\/api\/v1\/default\/signals\/engagements\/respond\?token=[\w-]+&answer=deny)/.exec(unfolded)?.[1];
  t.ok(approve && deny, 'both links');

  // Opening the link (or a mail scanner fetching it) changes nothing; the button's POST answers.
  const opened = await s.app.inject({ method: 'GET', url: approve! });
  t.equal(opened.statusCode, 200);
  t.match(opened.body, /<button type="submit">Yes, this was me/);
  const [instance] = (await s.api('GET', `/signals/${s.signal.id}/instances`)).body.items;
  const before = (await s.api('GET', `/cases/${instance.case_id}`)).body.events.map((e: any) => e.description);
  t.ok(before.some((d: string) => d === 'Asked dana.ops@example.com to confirm (Confirm the disk alert)'));
  t.notOk(before.some((d: string) => /confirmed the alert/.test(d)));

  const answered = await s.app.inject({ method: 'POST', url: approve!, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
  t.equal(answered.statusCode, 200);
  t.match(answered.body, /recorded: approved/);
  const after = (await s.api('GET', `/cases/${instance.case_id}`)).body.events.map((e: any) => e.description);
  t.ok(after.includes('dana.ops@example.com confirmed the alert (approved): Confirm the disk alert'), 'on the case timeline');
  const late = await s.app.inject({ method: 'POST', url: deny!, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
  t.match(late.body, /approved/, 'a second answer does not overwrite the first');
  t.equal(
    (await s.app.inject({ method: 'GET', url: '/api/v1/default/signals/engagements/respond?token=not-a-real-token-at-all&answer=approve' })).statusCode,
    404,
  );
  const emails = await s.api('GET', `/entity/${(await s.api('GET', '/entity/type/Email')).body.items[0].id}/emails`);
  t.same(
    emails.body.items.map((e: any) => [e.email, e.status]),
    [['dana.ops@example.com', 'approved']],
    'the e-mails sent about the entity',
  );
});

t.test('engagement with require_mfa: the e-mail link alone does not answer; the Firewatch password of that e-mail is the second factor', async (t) => {
  const mailbox = await smtpMailbox(t);
  const s = await signalApp(t, { SMTP_URL: mailbox.url, JOB_POLL_SECONDS: '0.5', PUBLIC_URL: 'http://firewatch.test' });
  const { users } = await import('../../../server/core/db/tables.js');
  const { hashPassword } = await import('../../../server/accounts/service.js');
  await s.database.db.insert(users).values({ email: 'dana.ops@example.com', password_hash: await hashPassword('correct horse battery') });
  const engagement = await s.ok('POST', '/signals/engagements', {
    name: 'Confirm with MFA',
    entity_type_id: s.email.id,
    require_mfa: true,
    project_id: s.projectId,
  });
  t.equal(engagement.require_mfa, true);
  await s.ok('PUT', `/signals/${s.signal.id}`, { engagement_ids: [engagement.id] });
  await s.ingest('/signals/pagerduty/v2/enqueue', fixture('pagerduty-trigger.json', s.key));
  await s.drain();
  const mail = await until('the engagement e-mail', () => {
    s.app.queue.notify('signals-mail');
    return mailbox.received.find((m) => /^To: dana\.ops@example\.com/m.test(m));
  });
  const unfolded = mail.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const approve = /http:\/\/firewatch\.test(\/api\/v1\/default\/signals\/engagements\/respond\?token=[\w-]+&answer=approve)/.exec(unfolded)![1]!;
  const opened = await s.app.inject({ method: 'GET', url: approve });
  t.match(opened.body, /<input type="password" name="password"/, 'the page asks for the password');
  const [instance] = (await s.api('GET', `/signals/${s.signal.id}/instances`)).body.items;
  const answers = async () =>
    (await s.api('GET', `/cases/${instance.case_id}`)).body.events
      .map((e: any) => e.description)
      .filter((d: string) => /confirmed the alert|did not recognize/.test(d));
  const form = (body: string) =>
    s.app.inject({ method: 'POST', url: approve, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: body });

  const bare = await form('');
  t.equal(bare.statusCode, 401, 'the link alone is refused');
  t.match(bare.body, /second factor/);
  t.equal((await form('password=wrong+password')).statusCode, 401, 'a wrong password is refused');
  t.same(await answers(), [], 'nothing on the timeline yet');
  const ok = await form(`password=${encodeURIComponent('correct horse battery')}`);
  t.equal(ok.statusCode, 200);
  t.match(ok.body, /recorded: approved/);
  t.same(await answers(), ['dana.ops@example.com confirmed the alert (approved): Confirm with MFA'], 'the answer with both factors lands on the timeline');
});
