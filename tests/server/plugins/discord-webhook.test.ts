import t from 'tap';
import { incidentApp } from '../incidents/helpers.js';
import { json, localServer, until } from '../workflows/receivers.js';
import { created } from '../factories.js';
import { LOOPBACK_STAND_INS } from '../../helpers.js';

/**
 * Discord's webhook as it answers (https://discord.com/developers/docs/resources/webhook#execute-webhook):
 * 204 on success, 429 with Retry-After and `retry_after` when the webhook's bucket is empty, 404
 * "Unknown Webhook" (code 10015) for a deleted one.
 */
async function discordStandIn(t: Parameters<typeof localServer>[0]) {
  let limited = 1;
  return localServer(t, (req, res) => {
    if (!req.path.startsWith('/api/webhooks/1100/good-token')) return json(res, 404, { message: 'Unknown Webhook', code: 10015 });
    if (limited-- > 0) {
      res.setHeader('retry-after', '1');
      return json(res, 429, { message: 'You are being rate limited.', retry_after: 0.6, global: false });
    }
    res.writeHead(204);
    res.end();
  });
}

async function setup(t: Parameters<typeof incidentApp>[0]) {
  const base = await incidentApp(t, { JOB_POLL_SECONDS: '0.5', WORKFLOW_POLL_SECONDS: '0.5', ...LOOPBACK_STAND_INS });
  const make = async (path: string, body: Record<string, unknown>) => created(path, await base.api('POST', path, { project_id: base.projectId, ...body }));
  const run = async (workflowId: number, incidentId: number) => {
    const started = await base.api('POST', `/workflows/${workflowId}/run`, { incident_id: incidentId });
    return until(`run of workflow ${workflowId}`, async () => {
      base.app.queue.notify('workflow-runs');
      const res = await base.api('GET', `/workflows/instances/${started.body.id}`);
      return ['Completed', 'Failed'].includes(res.body.status) && (res.body as Record<string, any>);
    });
  };
  return { ...base, make, run };
}

t.test('a Discord webhook posts the step message once its 429 has passed, with no mention parsed, cut to 2,000 characters', async (t) => {
  const { make, run, createIncident } = await setup(t);
  const discord = await discordStandIn(t);
  const channel = await make('/plugins/instances', {
    plugin_slug: 'discord-webhook',
    title: '#incidents',
    configuration: { webhook_url: `${discord.url}/api/webhooks/1100/good-token` },
  });
  t.equal(channel.configuration.webhook_url, '********', 'the webhook URL (its token) is sealed');
  const steps = await make('/plugins/instances', { plugin_slug: 'step-engine', title: 'Steps' });
  const incident = await createIncident();
  const workflow = await make('/workflows', {
    name: 'Tell Discord',
    plugin_instance_id: steps.id,
    steps: [
      { kind: 'message', with: { plugin_instance_id: channel.id, text: '@everyone {{incident.name}} is open' } },
      { kind: 'message', with: { plugin_instance_id: channel.id, text: 'x'.repeat(2500) } },
    ],
  });
  const done = await run(workflow.id, incident.id);
  t.equal(done.status, 'Completed', done.status_reason);
  t.equal(discord.received.length, 3, 'the first call was refused with 429, then both messages went through');
  const [first, second] = discord.received.slice(1).map((r) => JSON.parse(r.body));
  t.same(first, { content: `@everyone ${incident.name} is open`, allowed_mentions: { parse: [] } });
  t.equal(second.content.length, 2000, 'a long message is cut to what Discord accepts');
  t.ok(second.content.endsWith('…'));

  const gone = await make('/plugins/instances', {
    plugin_slug: 'discord-webhook',
    title: 'Old',
    configuration: { webhook_url: `${discord.url}/api/webhooks/9/deleted` },
  });
  const failing = await make('/workflows', {
    name: 'Old channel',
    plugin_instance_id: steps.id,
    steps: [{ kind: 'message', with: { plugin_instance_id: gone.id, text: 'hi' } }],
  });
  const failed = await run(failing.id, incident.id);
  t.equal(failed.status, 'Failed');
  t.match(failed.status_reason, /^Step 1 \(message\) failed: http:\/\/127\.0\.0\.1:\d+ answered 404$/, 'the reason names the origin, never the token');
});

t.test('conversation plugins are offered by capability: the message step lists every instance that can send a message', async (t) => {
  const { api, make } = await setup(t);
  const url = 'https://hooks.example.com/x';
  const slack = await make('/plugins/instances', { plugin_slug: 'slack-webhook', title: 'Slack', configuration: { webhook_url: url } });
  const discord = await make('/plugins/instances', { plugin_slug: 'discord-webhook', title: 'Discord', configuration: { webhook_url: url } });
  await make('/plugins/instances', { plugin_slug: 'step-engine', title: 'Steps' });
  const filter = (value: string) => encodeURIComponent(JSON.stringify({ and: [{ field: 'capability', op: '==', value }] }));
  const senders = await api('GET', `/plugins/instances?filter=${filter('send_message')}`);
  t.same(senders.body.items.map((i: { id: number }) => i.id).sort(), [slack.id, discord.id].sort(), 'the step engine cannot send a message');
  t.equal((await api('GET', `/plugins/instances?filter=${filter('no_such_capability')}`)).body.total, 0);
});
