import t from 'tap';
import { buildApp } from '../../../server/app.js';
import { BACKGROUND_LANE, drainJobs } from '../../../server/core/jobs/define.js';
import { SLACK_LANE } from '../../../server/slack/work.js';
import { nextTs } from '../../stand-ins/slack/methods.js';
import { slackApp, until } from './helpers.js';

t.test('a 429 (a tier spent by another process) is retried after its Retry-After, through the job queue; ok:false is shown with the fix', async (t) => {
  const s = await slackApp(t);
  // Another process of the app had made Tier 2's 20 conversations.create of the minute, 58 s before ours.
  s.slack.spendBeforeNext('conversations.create', { calls: 20, agoMs: 58_000 });
  s.slack.failNext('bookmarks.add', 'missing_scope');
  const incident = await s.createIncident({ title: 'Throttled' });
  await s.settle();

  t.same(
    s.slack.limited.map((l) => [l.method, l.retryAfter]),
    [['conversations.create', 2]],
    'Slack refused once, saying when a call counts again',
  );
  const creates = s.callsOf('conversations.create');
  t.equal(creates.length, 2, 'asked again after the 429');
  t.ok(creates[1]!.at - creates[0]!.at >= 2000, `not before Retry-After (${creates[1]!.at - creates[0]!.at} ms later)`);
  t.equal(s.slack.channels.size, 1, 'one channel');
  const events = (
    await s.api('GET', `/plugins/plugin_events?filter=${encodeURIComponent(JSON.stringify([{ field: 'name', op: '==', value: 'Rate limited by Slack' }]))}`)
  ).body.items;
  t.match(events[0], { description: 'conversations.create: retried after 2 s' });

  const [installation] = (await s.api('GET', '/slack/installations')).body.items;
  t.match(installation.last_error, { method: 'bookmarks.add', error: 'missing_scope', hint: /manifest/ }, 'the error and its fix are on the installation');
  t.equal(installation.health, 'ok', 'and it recovered: the retry went through');
  t.equal([...s.slack.channels.values()][0]!.bookmarks.length, 2);
  t.ok(incident.id);
});

t.test('Socket Mode: two app processes connected, each event handled once', async (t) => {
  const s = await slackApp(t, { install: false });
  s.slack.tokens.app.add('xapp-standin');
  const id = await s.addInstance({ connection_mode: 'socket', app_token: 'xapp-standin' });
  t.equal((await s.install(id)).status, 302);
  // A second process on the same database (another replica of the app).
  const second = await buildApp({ config: s.config, database: s.database, logger: false, mailer: async () => undefined });
  t.teardown(() => second.close());
  await second.ready();
  await until('both processes’ sockets', () => s.slack.sockets.length === 2);
  t.ok(
    s.slack.calls.filter((c) => c.method === 'apps.connections.open').every((c) => c.token === 'xapp-standin'),
    'connections opened with the app-level token',
  );

  s.slack.users.push({ id: 'UANA', email: 'ana@example.com', name: 'Ana' });
  const incident = await s.createIncident({ title: 'Behind the firewall' });
  await s.settle();
  const channel = [...s.slack.channels.values()][0]!;
  const ts = nextTs();
  channel.messages.push({ ts, text: 'From the socket', user: 'UANA' });
  const event = {
    type: 'event_callback',
    team_id: s.slack.team.id,
    event_id: 'EvSocket1',
    event: { type: 'message', channel: channel.id, user: 'UANA', text: 'From the socket', ts },
  };
  // Slack redelivers to the other connection: both processes receive the same envelope.
  s.slack.sendEnvelope({ envelope_id: 'env-1', type: 'events_api', payload: event, accepts_response_payload: false, retry_attempt: 0 });
  await until('both acks', () => s.slack.acks.filter((a) => a.envelope_id === 'env-1').length === 2);
  for (const app of [s.app, second]) {
    await drainJobs(app, 30_000, SLACK_LANE);
    await drainJobs(app, 30_000, BACKGROUND_LANE);
  }
  const jobs = await s.app.queue.countJobs(SLACK_LANE.name, { data: { body: { event_id: 'EvSocket1' } } });
  t.equal(jobs.completed + jobs.failed + jobs.created + jobs.active + jobs.retry, 1, 'one process queued its work; the other found the delivery taken');
  const messages = (await s.api('GET', `/iaos/${incident.id}/conversation/messages`)).body.items;
  t.same(
    messages.map((m: any) => m.text),
    ['From the socket'],
    'handled once',
  );
});
