import t, { type Test } from 'tap';
import { sql } from 'drizzle-orm';
import { incidentApp } from '../incidents/helpers.js';
import { localServer, until } from './receivers.js';
import { LOOPBACK_STAND_INS } from '../../helpers.js';
import { encryptSecret } from '../../../server/plugins/secrets.js';
import { created } from '../factories.js';

/**
 * F22: what a workflow calls or mails. Internal addresses are refused when saved and when called, a
 * failing remote's body never reaches a status members read, configuring outward steps is an Admin's,
 * and e-mail goes only to members or allowed domains.
 */
const SECRET_BODY = 'INTERNAL-SECRET-BODY db_password=hunter2';

async function setup(t: Test, env: Record<string, string> = {}) {
  const base = await incidentApp(t, { JOB_POLL_SECONDS: '0.5', ...env });
  const member = await base.login('member@example.com', { role: 'Member' });
  const create = async (path: string, body: Record<string, unknown>) => {
    return created(path, await base.api('POST', path, { project_id: base.projectId, ...body })) as Record<string, any>;
  };
  const engine = await create('/plugins/instances', { plugin_slug: 'step-engine', title: 'Steps', configuration: {} });
  const run = async (workflowId: number, parameters: Record<string, string> = {}, as = base.token) => {
    const incident = await base.createIncident();
    const started = created('run', await base.api('POST', `/workflows/${workflowId}/run`, { incident_id: incident.id, parameters }, as));
    return until(`run of workflow ${workflowId} to finish`, async () => {
      base.app.queue.notify('workflow-runs');
      const got = await base.api('GET', `/workflows/instances/${started.id}`, undefined, member);
      return ['Completed', 'Failed'].includes(got.body.status) && (got.body as Record<string, any>);
    });
  };
  const listener = await localServer(t, (_r, res) => {
    res.writeHead(500);
    res.end(SECRET_BODY);
  });
  return { ...base, member, create, engine, run, listener };
}

t.test('a Member may not configure what calls out: plugins, webhook and e-mail steps (403)', async (t) => {
  const { api, member, create, engine, run } = await setup(t);
  const forbidden = { detail: [{ type: 'forbidden', msg: String, loc: Array }] };
  const asMember = (method: string, path: string, body: unknown) => api(method, path, body, member);
  const plugin = await asMember('POST', '/plugins/instances', { plugin_slug: 'step-engine', title: 'Mine', configuration: {} });
  t.equal(plugin.status, 403, 'a plugin instance');
  t.match(plugin.body, forbidden);
  const outward = {
    webhook: [{ kind: 'webhook', with: { url: 'https://hooks.example.com/x' } }],
    email: [{ kind: 'email', with: { to: 'commander@example.com', subject: 's', text: 't' } }],
    'e-mail in a switch': [
      { kind: 'switch', with: { value: '{{incident.status}}', cases: [{ equals: 'Active', steps: [{ kind: 'email', with: { to: 'x@example.com' } }] }] } },
    ],
  };
  for (const [what, steps] of Object.entries(outward)) {
    const res = await asMember('POST', '/workflows', { name: what, plugin_instance_id: engine.id, steps });
    t.equal(res.status, 403, `a workflow with a ${what} step`);
    t.match(res.body, forbidden);
  }
  const plain = await asMember('POST', '/workflows', { name: 'Plain', plugin_instance_id: engine.id, steps: [{ kind: 'task', with: { description: 'x' } }] });
  t.equal(plain.status, 201, 'a workflow without them is still a Member’s');
  t.equal((await asMember('PUT', `/workflows/${plain.body.id}`, { name: 'Plain 2' })).status, 200);
  const mailing = await create('/workflows', { name: 'Mailing', plugin_instance_id: engine.id, steps: outward.email });
  t.equal(
    (await asMember('PUT', `/workflows/${mailing.id}`, { parameters: [{ key: 'who', value: 'x' }] })).status,
    403,
    "nor may a Member change an Admin's outward workflow",
  );
  t.equal((await run(mailing.id, {}, member)).status, 'Completed', 'running it stays theirs');
});

t.test('internal addresses are refused when saved and when called; the listener receives nothing', async (t) => {
  const { api, create, engine, run, listener, database } = await setup(t);
  const loopback = /127\.0\.0\.1 is a loopback address; an operator may allow it with OUTBOUND_ALLOW/;
  const saves = {
    'slack-webhook': { webhook_url: `${listener.url}/slack` },
    'teams-webhook': { webhook_url: `${listener.url}/teams` },
    'http-workflow-engine': { url: listener.url, signing_secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0' },
    'ai-model': { base_url: `${listener.url}/v1`, model: 'm' },
  };
  for (const [slug, configuration] of Object.entries(saves)) {
    const res = await api('POST', '/plugins/instances', { plugin_slug: slug, title: slug, configuration });
    t.equal(res.status, 422, `${slug} at a loopback address`);
    t.match(res.body.detail, [{ msg: loopback, loc: ['body', 'configuration', Object.keys(configuration)[0]] }]);
  }
  const step = await api('POST', '/workflows', {
    name: 'Hook',
    plugin_instance_id: engine.id,
    steps: [{ kind: 'webhook', with: { url: `${listener.url}/x` } }],
  });
  t.equal(step.status, 422, 'a webhook step at a loopback address');
  t.match(step.body.detail, [{ msg: loopback, loc: ['body', 'steps'] }]);

  // Saved while an operator allowed the range, or filled in from parameters: refused when called.
  const slack = await create('/plugins/instances', {
    plugin_slug: 'slack-webhook',
    title: 'Ops',
    configuration: { webhook_url: 'https://hooks.example.com/services/T/B/x' },
  });
  const sealed = encryptSecret(database.db, `${listener.url}/slack-by-member`);
  await database.db.execute(sql`update plugin_instances set secrets = jsonb_build_object('webhook_url', ${sealed}::text) where id = ${slack.id}`);
  const message = await create('/workflows', {
    name: 'Message',
    plugin_instance_id: engine.id,
    steps: [{ kind: 'message', with: { plugin_instance_id: slack.id, text: 'hello' } }],
  });
  t.match((await run(message.id)).status_reason, /^Step 1 \(message\) failed: http:\/\/127\.0\.0\.1:\d+: refused: 127\.0\.0\.1 is a loopback address/);
  const hook = await create('/workflows', { name: 'Hook', plugin_instance_id: engine.id, steps: [{ kind: 'webhook', with: { url: '{{parameters.url}}' } }] });
  for (const url of [`${listener.url}/hook`, listener.url.replace('127.0.0.1', 'localhost'), 'http://169.254.169.254/latest/meta-data/'])
    t.match((await run(hook.id, { url })).status_reason, /^Step 1 \(webhook\) failed: .*refused: /, url);

  const httpEngine = await create('/plugins/instances', {
    plugin_slug: 'http-workflow-engine',
    title: 'Engine',
    configuration: { url: 'https://engine.example.com', signing_secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0' },
  });
  await database.db.execute(
    sql`update plugin_instances set configuration = configuration || jsonb_build_object('url', ${listener.url}::text) where id = ${httpEngine.id}`,
  );
  const remote = await create('/workflows', { name: 'Remote', plugin_instance_id: httpEngine.id, timeout_seconds: 600 });
  t.equal((await api('POST', `/workflows/${remote.id}/run`, {})).status, 201);
  const event = await until('the engine call to be refused', async () => {
    const events = (await api('GET', '/plugins/plugin_events')).body.items as Record<string, any>[];
    return events.find((e) => e.name === 'Run request failed');
  });
  t.match(event.description, /^The engine at http:\/\/127\.0\.0\.1:\d+: refused: 127\.0\.0\.1 is a loopback address/);
  t.same(listener.received, [], 'no request reached the listener');
});

t.test('a failing remote shows only its status to members, never its body', async (t) => {
  const { api, member, create, engine, run, listener } = await setup(t, LOOPBACK_STAND_INS);
  const slack = await create('/plugins/instances', {
    plugin_slug: 'slack-webhook',
    title: 'Ops',
    configuration: { webhook_url: `${listener.url}/slack/secret-path` },
  });
  const wf = await create('/workflows', {
    name: 'Both',
    plugin_instance_id: engine.id,
    steps: [
      {
        kind: 'switch',
        with: {
          value: '{{parameters.which}}',
          cases: [{ equals: 'hook', steps: [{ kind: 'webhook', with: { url: `${listener.url}/hook` } }] }],
          default: [{ kind: 'message', with: { plugin_instance_id: slack.id, text: 'hello' } }],
        },
      },
    ],
  });
  const viaSlack = await run(wf.id, { which: 'slack' });
  t.match(
    viaSlack.status_reason,
    /^Step 1, default, step 1 \(message\) failed: http:\/\/127\.0\.0\.1:\d+ answered 500$/,
    'the origin and the status; not the secret path',
  );
  const viaHook = await run(wf.id, { which: 'hook' });
  t.match(viaHook.status_reason, /^Step 1, case 1, step 1 \(webhook\) failed: http:\/\/127\.0\.0\.1:\d+ answered 500$/);
  t.equal(listener.received.length, 2, 'both calls were made');
  const httpEngine = await create('/plugins/instances', {
    plugin_slug: 'http-workflow-engine',
    title: 'Engine',
    configuration: { url: listener.url, signing_secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0' },
  });
  const remote = await create('/workflows', { name: 'Remote', plugin_instance_id: httpEngine.id, timeout_seconds: 600 });
  await api('POST', `/workflows/${remote.id}/run`, {});
  await until('the engine to answer', () => listener.received.length === 3);
  const readable = await until('the failure to be recorded', async () => {
    const all = JSON.stringify([
      (await api('GET', '/plugins/plugin_events', undefined, member)).body,
      (await api('GET', '/workflows/instances', undefined, member)).body,
    ]);
    return all.includes('The engine answered 500') && all;
  });
  t.notOk(readable.includes('INTERNAL-SECRET-BODY'), 'what a Member reads holds no remote body');
  t.notOk(readable.includes('secret-path'), "nor the Slack URL's secret path");
});

t.test('e-mail steps write only to members or to domains the organization allows', async (t) => {
  const { api, member, create, engine, run, outbox } = await setup(t);
  const mail = (to: string) => [{ kind: 'email', with: { to, subject: 'Firewatch: action needed', text: 'click http://evil.example' } }];
  const outside = await api('POST', '/workflows', { name: 'Outside', plugin_instance_id: engine.id, steps: mail('someone-outside@example.org') });
  t.equal(outside.status, 422, 'an outside address is refused when saved');
  t.match(outside.body.detail, [
    { msg: /only to members of the organization or to its allowed domains.*someone-outside@example\.org is neither/, loc: ['body', 'steps'] },
  ]);
  t.equal(
    (await api('POST', '/workflows', { name: 'Member', plugin_instance_id: engine.id, steps: mail('Member <MEMBER@example.com>') })).status,
    201,
    'a member is accepted',
  );

  const templated = await create('/workflows', { name: 'To whom', plugin_instance_id: engine.id, steps: mail('{{parameters.who}}') });
  const refused = await run(templated.id, { who: 'someone-outside@example.org' });
  t.equal(refused.status, 'Failed');
  t.match(refused.status_reason, /^Step 1 \(email\) failed: E-mail steps write only to members .*someone-outside@example\.org is neither/);
  t.equal(outbox.length, 0, 'nothing was sent');
  t.equal((await run(templated.id, { who: 'member@example.com' })).status, 'Completed');
  t.match(outbox, [{ to: 'member@example.com', subject: 'Firewatch: action needed' }]);

  const org = ((await api('GET', '/organizations')).body.items as Record<string, any>[]).find((o) => o.slug === 'default')!;
  t.equal((await api('PUT', `/organizations/${org.id}`, { mail_allowed_domains: ['example.org'] }, member)).status, 403, 'the allowed domains are an Admin’s');
  const set = await api('PUT', `/organizations/${org.id}`, { mail_allowed_domains: ['Example.org'] });
  t.equal(set.status, 200);
  t.same((await api('GET', `/organizations/${org.id}`)).body.mail_allowed_domains, ['example.org']);
  t.equal((await api('PUT', `/organizations/${org.id}`, { mail_allowed_domains: ['not a domain'] })).status, 422);
  t.equal((await run(templated.id, { who: 'someone-outside@example.org' })).status, 'Completed', 'an allowed domain is accepted at run time');
  t.equal((await run(templated.id, { who: 'x@evil-example.org' })).status, 'Failed', 'a domain merely ending like it is not');
  t.equal(
    (await api('POST', '/workflows', { name: 'Outside 2', plugin_instance_id: engine.id, steps: mail('a@sub.example.org') })).status,
    201,
    'and at save, subdomains too',
  );
});
