import t, { type Test } from 'tap';
import { Webhook } from 'standardwebhooks';
import { incidentApp } from '../incidents/helpers.js';
import { smtpMailbox } from '../core/smtp-mailbox.js';
import { json, localServer, until } from './receivers.js';
import { LOOPBACK_STAND_INS, rowsOf } from '../../helpers.js';
import { freePort } from '../../free-port.js';
import { sql } from 'drizzle-orm';
import { created } from '../factories.js';

const ENGINE_SECRET = `whsec_${Buffer.from('engine-secret-of-thirty-two-bytes!!').toString('base64')}`;

async function setup(t: Test, env: Record<string, string> = {}) {
  const port = await freePort();
  const base = await incidentApp(t, {
    JOB_POLL_SECONDS: '0.5',
    WORKFLOW_POLL_SECONDS: '0.5',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...LOOPBACK_STAND_INS,
    ...env,
  });
  // The engine calls back over a real socket.
  await base.app.listen({ port, host: '127.0.0.1' });
  const plugin = async (plugin_slug: string, configuration: Record<string, unknown> = {}, title = plugin_slug) => {
    return created('plugin', await base.api('POST', '/plugins/instances', { plugin_slug, title, configuration, project_id: base.projectId })) as Record<
      string,
      any
    >;
  };
  const workflow = async (body: Record<string, unknown>) => {
    return created('workflow', await base.api('POST', '/workflows', { project_id: base.projectId, ...body })) as Record<string, any>;
  };
  const finished = (id: number) =>
    until(`workflow instance ${id} to finish`, async () => {
      base.app.queue.notify('workflow-runs');
      const res = await base.api('GET', `/workflows/instances/${id}`);
      return ['Completed', 'Failed'].includes(res.body.status) && (res.body as Record<string, any>);
    });
  return { ...base, plugin, workflow, finished };
}

t.test('plugins: the catalog, instances per project, secrets sealed and never returned', async (t) => {
  const { api, plugin, database } = await setup(t);
  const catalog = await api('GET', '/plugins');
  const slugs = catalog.body.items.map((p: any) => p.slug);
  t.same(slugs.slice(0, 2), ['step-engine', 'email'], 'built-in plugins first (they need no configuration)');
  t.same(
    [...slugs].sort(),
    [
      'ai-model',
      'atlassian-statuspage',
      'conference-link',
      'discord-webhook',
      'email',
      'firewatch-oncall',
      'github-commits',
      'google-meet',
      'http-workflow-engine',
      'jira-ticket',
      'ntfy',
      'pagerduty-oncall',
      'slack-app',
      'slack-webhook',
      'step-engine',
      'teams-webhook',
      'twilio',
      'zoom-meeting',
    ],
    'every plugin found in its integrations folder',
  );
  // Those that need no configuration first, then the rest; by title within each.
  const needsNone = (p: any) => !p.configuration_schema.required?.length;
  const titles = (items: any[]) => items.map((p: any) => p.title as string);
  const sorted = (list: string[]) => [...list].sort((a, b) => a.localeCompare(b));
  const all = catalog.body.items as any[];
  t.same(titles(all), [...sorted(titles(all.filter(needsNone))), ...sorted(titles(all.filter((p) => !needsNone(p))))], 'then by title');
  t.equal(
    catalog.body.items.find((p: any) => p.slug === 'slack-webhook').configuration_schema.properties.webhook_url.writeOnly,
    true,
    'the schema marks the secret',
  );

  const secretUrl = 'http://127.0.0.1:9/services/T000/B000/very-secret-token';
  const slack = await plugin('slack-webhook', { webhook_url: secretUrl }, 'Ops channel');
  await plugin('slack-webhook', { webhook_url: secretUrl + '2' }, 'Exec channel');
  t.equal(slack.configuration.webhook_url, '********');
  const everything = JSON.stringify([(await api('GET', '/plugins/instances')).body, (await api('GET', `/plugins/instances/${slack.id}`)).body]);
  t.notOk(everything.includes('very-secret-token'), 'neither list nor record shows the secret');
  t.equal((await api('GET', '/plugins/instances')).body.total, 2, 'several instances of one plugin');
  const stored = rowsOf(await database.db.execute(sql`select secrets::text as s from plugin_instances where id = ${slack.id}`))[0] as { s: string };
  t.notOk(stored.s.includes('very-secret-token'), 'the secret is encrypted at rest');
  t.match(stored.s, /v1:[0-9a-f]{8}:/);

  const renamed = await api('PUT', `/plugins/instances/${slack.id}`, {
    title: 'Ops',
    configuration: { webhook_url: '********', username: 'Bot' },
    enabled: false,
  });
  t.equal(renamed.status, 200);
  t.same(renamed.body.configuration, { webhook_url: '********', username: 'Bot' });
  const after = rowsOf(await database.db.execute(sql`select secrets::text as s from plugin_instances where id = ${slack.id}`))[0] as { s: string };
  t.equal(after.s, stored.s, 'the mask keeps the stored secret');

  const bad = await api('POST', '/plugins/instances', { plugin_slug: 'slack-webhook', title: 'x', configuration: { username: 'x' } });
  t.equal(bad.status, 422);
  t.same(bad.body.detail[0].loc, ['body', 'configuration', 'webhook_url']);
  const unknown = await api('POST', '/plugins/instances', { plugin_slug: 'no-such-plugin', title: 'x' });
  t.equal(unknown.status, 422);
  t.equal(unknown.body.detail[0].msg, `Plugin must be one of ${slugs.join(', ')} (GET /plugins lists them)`);
  t.same(unknown.body.detail[0].loc, ['body', 'plugin_slug']);
  const notEngine = await api('POST', '/workflows', { name: 'w', plugin_instance_id: slack.id });
  t.equal(notEngine.status, 422, 'a workflow runs on a workflow engine only');
  t.equal((await api('GET', '/plugins/instances')).body.total, 2, 'bad input changed nothing');
});

t.test('a status change runs its workflows (filtered by type) and the message reaches the Slack receiver', async (t) => {
  const { api, plugin, workflow, finished, createIncident, drain } = await setup(t);
  const slackPeer = await localServer(t);
  const slack = await plugin('slack-webhook', { webhook_url: `${slackPeer.url}/services/T1/B1/x` });
  const steps = await plugin('step-engine');
  const type = await api('POST', '/incident_types', { name: 'Security' });
  const other = await api('POST', '/incident_types', { name: 'Other' });
  await workflow({
    name: 'Announce stable',
    plugin_instance_id: steps.id,
    incident_statuses: ['Stable'],
    incident_type_ids: [type.body.id],
    steps: [{ kind: 'message', with: { plugin_instance_id: slack.id, text: '{{incident.name}} "{{incident.title}}" is stable' } }],
  });
  await workflow({
    name: 'Not this type',
    plugin_instance_id: steps.id,
    incident_statuses: ['Stable'],
    incident_type_ids: [other.body.id],
    steps: [{ kind: 'timeline', with: { description: 'wrong' } }],
  });
  await workflow({ name: 'On close', plugin_instance_id: steps.id, incident_statuses: ['Closed'], steps: [] });

  const incident = await createIncident({ incident_type_id: type.body.id });
  const stable = await api('POST', `/iaos/${incident.id}/stable`);
  t.equal(stable.body.message, 'Incident marked as stable. Running stable status workflows.');
  await drain();
  const instances = (
    await api(
      'GET',
      `/workflows/instances?filter=${encodeURIComponent(JSON.stringify([{ model: 'WorkflowInstance', field: 'incident_id', op: '==', value: incident.id }]))}`,
    )
  ).body;
  t.equal(instances.total, 1, 'only the workflow of this status and type');
  const done = await finished(instances.items[0].id);
  t.equal(done.status, 'Completed');
  t.equal(done.trigger, 'incident stable');
  t.equal(slackPeer.received.length, 1);
  t.same(JSON.parse(slackPeer.received[0]!.body), { text: `${incident.name} "Database down" is stable`, username: 'Firewatch' });
  const events = (await api('GET', `/iaos/${incident.id}`)).body.events.map((e: any) => e.description);
  t.ok(events.includes('Running 1 stable status workflow'), 'the toast is now true');
  t.ok(events.includes('Workflow Announce stable completed'), 'the run is on the timeline');
  const pluginEvents = (await api('GET', '/plugins/plugin_events')).body.items;
  t.match(pluginEvents, [{ name: 'Message posted', plugin_slug: 'slack-webhook', incident_id: incident.id }]);
});

t.test('HTTP engine: a manual run completes by signed callback, another by polling, with artifacts', async (t) => {
  const { api, plugin, workflow, finished, createIncident } = await setup(t);
  const verifier = new Webhook(ENGINE_SECRET);
  let polls = 0;
  const runs: { callback_url: string; parameters: Record<string, string> }[] = [];
  const engine = await localServer(t, (req, res) => {
    if (req.method === 'POST' && req.path === '/runs') {
      verifier.verify(req.body, req.headers as Record<string, string>); // throws on a bad signature
      const run = JSON.parse(req.body);
      runs.push(run);
      return json(res, 202, run.parameters.mode === 'poll' ? { id: 'r-poll', status_url: '/runs/r-poll' } : { id: 'r-callback' });
    }
    if (req.method === 'GET' && req.path === '/runs/r-poll') {
      polls++;
      return json(
        res,
        200,
        polls < 2 ? { status: 'Running' } : { status: 'Completed', artifacts: [{ name: 'report', url: 'http://engine.local/r-poll/report' }] },
      );
    }
    json(res, 404, {});
  });
  const engineInstance = await plugin('http-workflow-engine', { url: engine.url, signing_secret: ENGINE_SECRET });
  t.equal(engineInstance.configuration.signing_secret, '********');
  const wf = await workflow({
    name: 'Collect logs',
    resource_id: 'collect-logs',
    plugin_instance_id: engineInstance.id,
    parameters: [{ key: 'mode', value: 'callback' }],
  });
  const incident = await createIncident();

  const run = await api('POST', `/workflows/${wf.id}/run`, { run_reason: 'Need logs', parameters: { host: 'db-1' }, incident: { id: incident.id } });
  t.equal(run.status, 201);
  t.equal(run.body.status, 'Submitted');
  t.same(run.body.workflow, { id: wf.id, name: 'Collect logs' });
  t.same(
    [run.body.incident, run.body.case, run.body.signal],
    [{ id: incident.id, name: incident.name }, null, null],
    'spec §3: the instance names its incident, case and signal',
  );
  await until('the engine to receive the run', () => runs.length === 1);
  t.same(runs[0]!.parameters, { mode: 'callback', host: 'db-1' }, 'workflow parameters with the run parameters');
  t.match(runs[0], { incident: { id: incident.id, title: 'Database down' }, workflow: { resource_id: 'collect-logs' }, run: { reason: 'Need logs' } });
  await until('Running', async () => (await api('GET', `/workflows/instances/${run.body.id}`)).body.status === 'Running');

  // The engine reports through the callback URL it was given, signed with the shared secret.
  const signer = new Webhook(ENGINE_SECRET);
  const report = JSON.stringify({ status: 'Completed', artifacts: [{ name: 'logs.tar.gz', url: 'http://engine.local/logs.tar.gz' }] });
  const now = new Date();
  const signed = (id: string, by = signer) => ({
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': by.sign(id, now, report),
  });
  const forged = await fetch(runs[0]!.callback_url, {
    method: 'POST',
    headers: signed('m1', new Webhook(`whsec_${Buffer.from('x'.repeat(32)).toString('base64')}`)),
    body: report,
  });
  t.equal(forged.status, 401, 'a callback signed with another secret is refused');
  t.equal((await api('GET', `/workflows/instances/${run.body.id}`)).body.status, 'Running', 'and changes nothing');
  const callback = await fetch(runs[0]!.callback_url, { method: 'POST', headers: signed('m2'), body: report });
  t.equal(callback.status, 200);
  const byCallback = await finished(run.body.id);
  t.equal(byCallback.status, 'Completed');
  t.same(byCallback.artifacts, [{ name: 'logs.tar.gz', url: 'http://engine.local/logs.tar.gz' }]);
  t.equal(byCallback.external_id, 'r-callback');

  const polled = await api('POST', `/workflows/${wf.id}/run`, {
    run_reason: 'poll it',
    parameters: [{ key: 'mode', value: 'poll' }],
    incident_id: incident.id,
  });
  const byPolling = await finished(polled.body.id);
  t.equal(byPolling.status, 'Completed');
  t.ok(polls >= 2, 'the status URL was polled until it said Completed');
  t.same(byPolling.artifacts, [{ name: 'report', url: 'http://engine.local/r-poll/report' }]);
  const events = (await api('GET', `/iaos/${incident.id}`)).body.events.map((e: any) => e.description);
  t.equal(events.filter((d: string) => d === 'Workflow Collect logs completed').length, 2, 'both runs on the incident timeline');

  const missing = await api('POST', `/workflows/${wf.id}/run`, { incident_id: 999999 });
  t.equal(missing.status, 422);
  t.same(missing.body.detail[0].loc, ['body', 'incident_id']);
});

t.test('an unanswered run fails after its timeout, never stays Submitted', async (t) => {
  const { api, plugin, workflow, finished, createIncident } = await setup(t);
  const silent = await localServer(t, (_req, res) => json(res, 202, { id: 'accepted-and-forgotten' }));
  const accepting = await plugin('http-workflow-engine', { url: silent.url, signing_secret: ENGINE_SECRET });
  const unreachable = await plugin('http-workflow-engine', { url: `http://127.0.0.1:9`, signing_secret: ENGINE_SECRET }, 'Down');
  const incident = await createIncident();
  // Long enough for the start job to reach the engine on a loaded machine (with 1 s the timeout came first).
  const a = await workflow({ name: 'Never answers', plugin_instance_id: accepting.id, timeout_seconds: 8 });
  const b = await workflow({ name: 'Never accepts', plugin_instance_id: unreachable.id, timeout_seconds: 1 });
  const runA = await api('POST', `/workflows/${a.id}/run`, { incident_id: incident.id });
  const runB = await api('POST', `/workflows/${b.id}/run`, { incident_id: incident.id });
  const failedA = await finished(runA.body.id);
  const failedB = await finished(runB.body.id);
  t.equal(failedA.status, 'Failed');
  t.equal(failedA.status_reason, 'Timed out after 8 s without a result.');
  t.equal(failedB.status, 'Failed');
  t.equal(failedB.status_reason, 'Timed out after 1 s: the engine never accepted the run.');
  const events = (await api('GET', `/iaos/${incident.id}`)).body.events.map((e: any) => e.description);
  t.ok(events.includes('Workflow Never answers failed: Timed out after 8 s without a result.'));
});

t.test('the step engine runs each step kind with values from the incident', async (t) => {
  const mailbox = await smtpMailbox(t);
  const { api, plugin, workflow, finished, createIncident } = await setup(t, { SMTP_URL: mailbox.url });
  const slackPeer = await localServer(t);
  const teamsPeer = await localServer(t, (_r, res) => {
    res.writeHead(202);
    res.end();
  });
  const hook = await localServer(t);
  const slack = await plugin('slack-webhook', { webhook_url: `${slackPeer.url}/hook` });
  const teams = await plugin('teams-webhook', { webhook_url: `${teamsPeer.url}/workflows/abc` });
  const steps = await plugin('step-engine');
  const wf = await workflow({
    name: 'Everything',
    plugin_instance_id: steps.id,
    // A member of the organization: e-mail steps write to no one else unless the organization allows their domain.
    parameters: [{ key: 'who', value: 'commander@example.com' }],
    steps: [
      { kind: 'message', with: { plugin_instance_id: slack.id, text: 'Slack: {{incident.name}}' } },
      { kind: 'message', with: { plugin_instance_id: teams.id, text: 'Teams: {{incident.title}}' } },
      { kind: 'email', with: { to: '{{parameters.who}}', subject: '{{incident.name}} needs you', text: 'Reason: {{run.reason}}' } },
      { kind: 'webhook', with: { url: `${hook.url}/notify`, body: { incident: '{{incident.name}}' } } },
      { kind: 'task', with: { description: 'Follow up on {{incident.name}}' } },
      { kind: 'timeline', with: { description: 'Checked by the workflow' } },
      { kind: 'set_field', with: { field: 'resolution', value: 'Handled by {{workflow.name}}' } },
      { kind: 'wait', with: { seconds: 1 } },
      { kind: 'timeline', with: { description: 'After the wait' } },
    ],
  });
  const incident = await createIncident();
  const run = await api('POST', `/workflows/${wf.id}/run`, { run_reason: 'drill', incident_id: incident.id });
  const done = await finished(run.body.id);
  t.equal(done.status, 'Completed', done.status_reason);
  t.equal(done.status_reason, '9 steps run');
  t.same(JSON.parse(slackPeer.received[0]!.body).text, `Slack: ${incident.name}`);
  t.match(JSON.parse(teamsPeer.received[0]!.body), {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        content: { type: 'AdaptiveCard', body: [{ type: 'TextBlock', text: 'Teams: Database down' }] },
      },
    ],
  });
  t.same(JSON.parse(hook.received[0]!.body), { incident: incident.name });
  t.equal(mailbox.received.length, 1, 'the e-mail went through SMTP');
  t.match(mailbox.received[0], new RegExp(`To: commander@example.com[\\s\\S]*Subject: ${incident.name} needs you[\\s\\S]*Reason: drill`));
  const full = (await api('GET', `/iaos/${incident.id}`)).body;
  t.equal(full.resolution, 'Handled by Everything');
  const descriptions = full.events.map((e: any) => e.description);
  t.ok(descriptions.indexOf('Checked by the workflow') < descriptions.indexOf('After the wait'));
  const tasks = (await api('GET', '/tasks')).body.items;
  t.match(tasks, [{ description: `Follow up on ${incident.name}`, incident_id: incident.id }]);

  const failing = await workflow({
    name: 'Bad field',
    plugin_instance_id: steps.id,
    steps: [{ kind: 'set_field', with: { field: 'status', value: 'Closed' } }],
  });
  const bad = await finished((await api('POST', `/workflows/${failing.id}/run`, { incident_id: incident.id })).body.id);
  t.equal(bad.status, 'Failed');
  t.equal(bad.status_reason, "Step 1 (set_field) failed: Field 'status' cannot be set by a workflow (title, description, resolution).");
});
