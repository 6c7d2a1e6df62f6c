import { createHmac } from 'node:crypto';
import t from 'tap';
import { incidentApp } from '../incidents/helpers.js';
import { LOOPBACK_STAND_INS } from '../../helpers.js';
import { jiraStandIn } from '../../jira-standin.js';

const SECRET = 'jira-webhook-secret-0123456789';

t.test('Jira Cloud: a ticket per incident, moved by status category, refusals in words, 429 retried, webhooks on the timeline', async (t) => {
  const app = await incidentApp(t, LOOPBACK_STAND_INS);
  const { api, createIncident, drain, projectId, login } = app;
  const jira = await jiraStandIn(t, { email: 'bot@example.com', token: 'tok-1', offScreen: ['customfield_10001'], forbiddenProjects: ['SEC'] });
  const instance = await api('POST', '/plugins/instances', {
    plugin_slug: 'jira-ticket',
    title: 'Jira',
    configuration: { site_url: jira.url, email: 'bot@example.com', api_token: 'tok-1', project_key: 'OPS', webhook_secret: SECRET },
  });
  t.equal(instance.status, 201, 'the instance is created');
  t.equal(instance.body.configuration.api_token, '********', 'the token is sealed at rest and never answered');

  // Happy path: the issue exists with an ADF description linking back, and the incident shows it.
  const first = await createIncident({ title: 'Checkout errors', description: 'Payments time out.' });
  await drain();
  t.equal(jira.issues.size, 1);
  const issue = jira.issues.get('OPS-1')!;
  t.equal(issue.fields.summary, 'IAO-1: Checkout errors');
  t.match(JSON.stringify(issue.fields.description), `/default/iaos/IAO-1/view`, 'the ADF description links back');
  t.equal(issue.status.name, 'In Progress', 'an active incident is in an "indeterminate" status');
  let record = (await api('GET', `/iaos/${first.id}`)).body;
  t.match(record.ticket, { resource_type: 'jira-ticket', weblink: `${jira.url}/browse/OPS-1` });

  // Closing moves it to the "done" category, whatever the transition is called.
  t.equal((await api('POST', `/iaos/${first.id}/closed`)).status, 200);
  await drain();
  t.equal(issue.status.name, 'Done');

  // An idempotent re-run: no second issue.
  t.equal((await api('POST', '/tickets/sync', { incident_id: first.id })).status, 202);
  await drain();
  t.equal(jira.issues.size, 1, 'syncing again opens no second issue');

  // A 429 with Retry-After is waited out by the queue, then the issue is made.
  jira.state.limited = 1;
  const second = await createIncident({ title: 'Slow search' });
  await drain();
  t.ok(jira.issues.has('OPS-2'), 'created after the 429');
  record = (await api('GET', `/iaos/${second.id}`)).body;
  t.ok(
    record.events.some((e: any) => /Jira asked to slow down \(429\); trying again in 1 s/.test(e.description)),
    'the wait is on the timeline',
  );

  // A field off the screen: the issue is made without it, and the user is told which and why.
  const type = await api('POST', '/incident_types', {
    name: 'Security',
    project_id: projectId,
    plugin_metadata: [{ slug: 'jira-ticket', metadata: [{ key: 'customfield_10001', value: 'P1' }] }],
  });
  t.equal(type.status, 201, 'the type names the custom field');
  const third = await createIncident({ title: 'Phishing', incident_type_id: type.body.id });
  await drain();
  record = (await api('GET', `/iaos/${third.id}`)).body;
  t.ok(
    record.events.some((e: any) =>
      /Jira will not set customfield_10001: the field is not on the appropriate screen.*OPS-3 was created without it/.test(e.description),
    ),
    'the screen refusal is said in words',
  );
  t.equal(jira.issues.get('OPS-3')?.fields.customfield_10001, undefined);

  // A missing permission: no ticket, the incident still stands, the words say what the account needs.
  const other = await api('POST', '/projects', { name: 'Security team' });
  await api('POST', '/plugins/instances', {
    plugin_slug: 'jira-ticket',
    title: 'Jira SEC',
    project_id: other.body.id,
    configuration: { site_url: jira.url, email: 'bot@example.com', api_token: 'tok-1', project_key: 'SEC' },
  });
  const fourth = await createIncident({ title: 'Badge reader', project_id: other.body.id });
  await drain();
  record = (await api('GET', `/iaos/${fourth.id}`)).body;
  t.equal(record.ticket, null);
  t.ok(
    record.events.some((e: any) => /Jira SEC could not open a ticket: The Jira account lacks a permission/.test(e.description)),
    'the permission refusal is said',
  );
  const sec = (await api('GET', '/plugins/instances?filter=' + encodeURIComponent(JSON.stringify([{ field: 'title', op: '==', value: 'Jira SEC' }])))).body
    .items[0];
  const health = await api('GET', `/tickets/plugins/${sec.id}/health`);
  t.equal(health.status, 200);
  t.equal(health.body.ok, false);
  t.match(health.body.findings.join(' '), /Missing on SEC: CREATE_ISSUES/);
  t.match(health.body.recent_errors[0], /lacks a permission/);

  // Jira's webhook: a move and a comment land on the timeline; a bad signature is refused.
  const hook = (body: unknown, secret = SECRET) => {
    const raw = JSON.stringify(body);
    return app.request({
      method: 'POST',
      url: `/api/v1/default/tickets/jira/${instance.body.id}/webhook`,
      headers: { 'content-type': 'application/json', 'x-hub-signature': `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}` },
      payload: raw,
    });
  };
  const moved = await hook({
    webhookEvent: 'jira:issue_updated',
    issue: { key: 'OPS-2' },
    user: { displayName: 'Ann' },
    changelog: { items: [{ field: 'status', fromString: 'In Progress', toString: 'Done' }] },
  });
  t.same(moved.body, { accepted: true, duplicate: false });
  await hook({
    webhookEvent: 'comment_created',
    issue: { key: 'OPS-2' },
    comment: {
      author: { displayName: 'Ben' },
      body: { type: 'doc', version: 1, content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Rolled back.' }] }] },
    },
  });
  const forged = await hook({ webhookEvent: 'comment_created', issue: { key: 'OPS-2' }, comment: { body: 'x' } }, 'wrong-secret-wrong-secret');
  t.equal(forged.status, 401);
  const descriptions = (await api('GET', `/iaos/${second.id}`)).body.events.map((e: any) => e.description);
  t.ok(descriptions.includes('Jira OPS-2 moved from In Progress to Done by Ann'));
  t.ok(descriptions.includes('Comment on Jira OPS-2 by Ben: Rolled back.'));

  // A restricted incident's ticket is found only by those who may see the incident.
  const secret = await createIncident({ title: 'Quiet matter', visibility: 'Restricted' });
  await drain();
  const key = [...jira.issues.keys()].pop()!;
  const outsider = await login('outsider@example.com', { role: 'Member' });
  const find = async (as?: string) => (await api('GET', `/search?q=${encodeURIComponent(key)}&type=Ticket`, undefined, as)).body.results;
  t.equal((await find()).length, 1, 'the owner finds the ticket');
  t.match((await find())[0], { type: 'Ticket', link: `/iaos/IAO-${secret.id}/view` });
  t.same(await find(outsider), [], 'a member outside the restricted incident does not');
});

t.test("Jira's retried webhook changes the timeline once; a case is found in search by its ticket's key", async (t) => {
  const app = await incidentApp(t, LOOPBACK_STAND_INS);
  const { api, createIncident, drain, projectId, login } = app;
  const jira = await jiraStandIn(t, { email: 'bot@example.com', token: 'tok-1' });
  const instance = await api('POST', '/plugins/instances', {
    plugin_slug: 'jira-ticket',
    title: 'Jira',
    configuration: { site_url: jira.url, email: 'bot@example.com', api_token: 'tok-1', project_key: 'OPS', webhook_secret: SECRET },
  });
  const incident = await createIncident({ title: 'Checkout errors' });
  await drain();

  // Jira sends a delivery again when it did not see the answer: the same X-Atlassian-Webhook-Identifier.
  const deliver = (body: unknown, headers: Record<string, string> = {}) => {
    const raw = JSON.stringify(body);
    return app.request({
      method: 'POST',
      url: `/api/v1/default/tickets/jira/${instance.body.id}/webhook`,
      headers: { 'content-type': 'application/json', 'x-hub-signature': `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`, ...headers },
      payload: raw,
    });
  };
  const moved = (changelogId: string, to: string) => ({
    webhookEvent: 'jira:issue_updated',
    issue: { key: 'OPS-1' },
    user: { displayName: 'Ann' },
    changelog: { id: changelogId, items: [{ field: 'status', fromString: 'In Progress', toString: to }] },
  });
  const delivery = { 'x-atlassian-webhook-identifier': 'f3b8c1d2-0001', 'x-atlassian-webhook-retry': '0' };
  t.same((await deliver(moved('10001', 'Review'), delivery)).body, { accepted: true, duplicate: false });
  const retry = await deliver(moved('10001', 'Review'), { ...delivery, 'x-atlassian-webhook-retry': '1' });
  t.equal(retry.status, 200, 'the retry is answered 200, so Jira stops retrying');
  t.same(retry.body, { accepted: true, duplicate: true });
  // Without Jira's delivery id (Data Center), the change's own id tells a repeat.
  t.same((await deliver(moved('10002', 'Done'))).body, { accepted: true, duplicate: false });
  t.same((await deliver(moved('10002', 'Done'))).body, { accepted: true, duplicate: true });
  // A new delivery of a new change is taken.
  t.same((await deliver(moved('10003', 'Reopened'), { 'x-atlassian-webhook-identifier': 'f3b8c1d2-0002' })).body, { accepted: true, duplicate: false });
  const said = (await api('GET', `/iaos/${incident.id}`)).body.events.map((e: any) => e.description).filter((d: string) => d.startsWith('Jira OPS-1 moved'));
  t.same(
    said,
    [
      'Jira OPS-1 moved from In Progress to Review by Ann',
      'Jira OPS-1 moved from In Progress to Done by Ann',
      'Jira OPS-1 moved from In Progress to Reopened by Ann',
    ],
    'each change is on the timeline once',
  );

  // A case gets its ticket too; global search finds the case by the ticket's key, as far as one may see the case.
  const open = await api('POST', '/cases', { title: 'Suspicious login', project_id: projectId });
  t.equal(open.status, 201);
  await drain();
  const openCase = (await api('GET', `/cases/${open.body.id}`)).body;
  t.match(openCase.ticket, { resource_type: 'jira-ticket', resource_id: 'OPS-2', weblink: `${jira.url}/browse/OPS-2` }, "the case's ticket");
  const member = await login('member@example.com', { role: 'Member' });
  const find = async (q: string, as?: string) => (await api('GET', `/search?q=${encodeURIComponent(q)}&type=Ticket`, undefined, as)).body.results;
  t.match(await find('OPS-2'), [{ type: 'Ticket', title: 'OPS-2: Suspicious login', link: `/cases/${openCase.name}/view` }], 'the key finds the case');
  t.equal((await find('ops-2')).length, 1, 'in any case of letters');
  t.equal((await find('OPS-2', member)).length, 1, 'a member who may see the case finds it too');

  const type = await api('POST', '/case_types', { name: 'Insider', project_id: projectId, visibility: 'Restricted' });
  t.equal(type.status, 201);
  const quiet = await api('POST', '/cases', { title: 'Quiet matter', project_id: projectId, case_type_id: type.body.id });
  await drain();
  const quietCase = (await api('GET', `/cases/${quiet.body.id}`)).body;
  t.equal(quietCase.visibility, 'Restricted');
  t.equal(quietCase.ticket?.resource_id, 'OPS-3');
  t.match(await find('OPS-3'), [{ link: `/cases/${quietCase.name}/view` }], 'the owner finds the restricted case by its key');
  t.same(await find('OPS-3', member), [], 'a member outside the restricted case does not');

  // The webhook secret is optional (the form starts it empty): without one, no delivery is taken.
  const short = await api('POST', '/plugins/instances', {
    plugin_slug: 'jira-ticket',
    title: 'Jira short secret',
    configuration: { site_url: jira.url, email: 'bot@example.com', api_token: 'tok-1', project_key: 'OPS', webhook_secret: 'short' },
  });
  t.equal(short.status, 422, 'a secret of less than 16 characters is refused');
  t.match(short.body.detail[0].loc, ['body', 'configuration', 'webhook_secret']);
  const unhooked = await api('POST', '/plugins/instances', {
    plugin_slug: 'jira-ticket',
    title: 'Jira without webhook',
    enabled: false,
    configuration: { site_url: jira.url, email: 'bot@example.com', api_token: 'tok-1', project_key: 'OPS', webhook_secret: '' },
  });
  t.equal(unhooked.status, 201, 'an empty secret is saved');
  const raw = JSON.stringify(moved('10004', 'Done'));
  const unsigned = await app.request({
    method: 'POST',
    url: `/api/v1/default/tickets/jira/${unhooked.body.id}/webhook`,
    headers: { 'content-type': 'application/json', 'x-hub-signature': `sha256=${createHmac('sha256', '').update(raw).digest('hex')}` },
    payload: raw,
  });
  t.equal(unsigned.status, 401, 'a delivery signed with an empty key is refused');
});
