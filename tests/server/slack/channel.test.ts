import t from 'tap';
import { SLACK_LANE } from '../../../server/slack/work.js';
import { slackApp, until } from './helpers.js';

const cardText = (blocks: any[]) => JSON.stringify(blocks);

t.test('declare from /firewatch through the modal: channel, invitations, pinned card, bookmarks; the card follows; closing archives', async (t) => {
  const s = await slackApp(t);
  const opened = await s.command('declare');
  t.equal(opened.status, 200);
  const view = s.callsOf('views.open')[0]!;
  t.ok(view, 'the dialog opens while the trigger is valid (no lookups first)');
  t.equal(view.args.view.callback_id, 'firewatch_declare');

  const submitted = await s.interaction({
    type: 'view_submission',
    view: {
      id: 'V1',
      callback_id: 'firewatch_declare',
      state: {
        values: {
          title: { value: { value: 'Checkout errors' } },
          description: { value: { value: 'Card payments fail with 502.' } },
          visibility: { value: { selected_option: { value: 'Open' } } },
        },
      },
    },
  });
  t.equal(submitted.status, 200);
  await s.settle();

  const incident = (await s.api('GET', '/iaos')).body.items.find((i: any) => i.title === 'Checkout errors');
  t.ok(incident, 'the incident exists, declared as the Slack user’s member');
  t.equal(incident.reporter_email, 'commander@example.com');
  // Someone without a Slack account is a participant too: reported once, not retried.
  t.equal((await s.api('POST', `/iaos/${incident.id}/roles`, { email: 'nobody@example.com', role: 'scribe' })).status, 200);
  await s.settle();

  const channel = [...s.slack.channels.values()][0]!;
  t.equal(channel.name, `inc-${incident.name.replace('IAO-', '')}-checkout-errors`, 'named by the template');
  t.equal(channel.is_private, false);
  t.ok(channel.members.has('UCMD'), 'the declarer was invited (users.lookupByEmail)');
  t.equal(channel.pins.length, 1, 'the card is pinned');
  const card = channel.messages.find((m) => m.ts === channel.pins[0])!;
  t.match(cardText(card.blocks!), /Checkout errors/);
  t.match(cardText(card.blocks!), /\*Status\*\\nActive/);
  t.match(cardText(card.blocks!), /scribe: nobody@example\.com/, 'a role given in the web app reaches the card');
  t.equal(s.callsOf('chat.update').length, 1, 'by itself (the role change publishes incident.updated)');
  t.equal(channel.topic, `${incident.name}: Checkout errors · Active`, 'the topic: the incident, its title and status');
  t.same(
    channel.bookmarks.map((b) => b.title),
    [`${incident.name} in Firewatch`, 'Conference'],
  );
  t.equal(channel.bookmarks[0]!.link, `http://firewatch.test/default/iaos/${incident.name}/view`);
  const order = s.slack.calls
    .map((c) => c.method)
    .filter((m) => ['conversations.create', 'users.lookupByEmail', 'conversations.invite', 'chat.postMessage', 'pins.add', 'bookmarks.add'].includes(m));
  t.same(order.slice(0, 6), ['conversations.create', 'users.lookupByEmail', 'conversations.invite', 'chat.postMessage', 'pins.add', 'bookmarks.add']);

  const full = (await s.api('GET', `/iaos/${incident.id}`)).body;
  t.ok(full.conversation_id, 'the conversation exists (the client stops polling)');
  t.ok(
    full.events.some((e: any) => e.description.startsWith(`Slack channel #${channel.name} created`)),
    'the timeline says where the channel is',
  );
  const lookups = () => s.callsOf('users.lookupByEmail').filter((c) => c.args.email === 'nobody@example.com').length;
  const reported = async () =>
    (await s.api('GET', `/iaos/${incident.id}`)).body.events.filter((e: any) => /nobody@example\.com has no Slack account/.test(e.description)).length;

  // A status change from the web app updates the card in place (and invites who joined meanwhile).
  t.equal((await s.api('POST', `/iaos/${incident.id}/stable`)).status, 200);
  await s.settle();
  const update = s.callsOf('chat.update').at(-1)!;
  t.equal(update.args.ts, card.ts, 'chat.update on the pinned card');
  t.match(cardText(card.blocks!), /\*Status\*\\nStable/);
  t.equal(channel.topic, `${incident.name}: Checkout errors · Stable`, 'the topic follows the status');
  t.equal(await reported(), 1, 'a person without Slack is reported on the timeline');

  // The title changes: the channel is renamed, its topic follows.
  t.equal((await s.api('PUT', `/iaos/${incident.id}`, { title: 'Checkout errors in EU' })).status, 200);
  await s.settle();
  const number = incident.name.replace('IAO-', '');
  t.equal(channel.name, `inc-${number}-checkout-errors-in-eu`, 'renamed after the new title');
  t.equal(channel.topic, `${incident.name}: Checkout errors in EU · Stable`);
  t.ok(
    (await s.api('GET', `/iaos/${incident.id}`)).body.events.some(
      (e: any) => e.description === `Slack channel #inc-${number}-checkout-errors renamed to #${channel.name}`,
    ),
  );

  // Reports written in the web app are posted into the channel, one message per second at most.
  const tactical = { conditions: 'EU card payments fail', actions: 'Failover to the second acquirer', needs: 'Acquirer contact' };
  t.equal((await s.api('POST', `/iaos/${incident.id}/report/tactical`, tactical)).status, 201);
  t.equal(
    (await s.api('POST', `/iaos/${incident.id}/report/executive`, { current_status: 'Stable', overview: 'Payments recovered', next_steps: 'Review' })).status,
    201,
  );
  await s.settle();
  const posted = channel.messages.filter((m) => /report: /.test(JSON.stringify(m.blocks ?? '')));
  t.same(
    posted.map((m) => m.text),
    [`Tactical report: ${incident.name} Checkout errors in EU`, `Executive report: ${incident.name} Checkout errors in EU`],
    'both reports, in order',
  );
  t.match(cardText(posted[0]!.blocks!), /\*Conditions\*\\nEU card payments fail.*\*Actions\*\\nFailover to the second acquirer.*\*Needs\*\\nAcquirer contact/);
  const posts = s.callsOf('chat.postMessage').filter((c) => c.args.channel === channel.id);
  for (let i = 1; i < posts.length; i++) t.ok(posts[i]!.at - posts[i - 1]!.at >= 990, `post ${i} ${posts[i]!.at - posts[i - 1]!.at} ms after the one before`);
  t.same(s.slack.limited, [], 'Slack never had to refuse a call (429)');

  // Documents attached to the incident become bookmarks; a plain link does not, and none twice.
  const runbook = { resource_type: 'dispatch-incident-document', name: 'Payments runbook', weblink: 'https://docs.example.com/payments' };
  t.equal((await s.api('POST', `/iaos/${incident.id}/add-resource`, runbook)).status, 201);
  t.equal(
    (await s.api('POST', `/iaos/${incident.id}/add-resource`, { resource_type: 'Weblink', name: 'Status', weblink: 'https://status.example.com' })).status,
    201,
  );
  await s.settle();
  t.equal((await s.api('POST', `/iaos/${incident.id}/roles`, { email: 'commander@example.com', role: 'liaison' })).status, 200);
  await s.settle();
  t.same(
    channel.bookmarks.map((b) => b.title),
    [`${incident.name} in Firewatch`, 'Conference', 'Payments runbook'],
  );
  t.equal(channel.bookmarks[2]!.link, 'https://docs.example.com/payments');
  t.equal(s.callsOf('chat.postMessage').filter((c) => c.args.channel === channel.id).length, 3, 'and the reports are not posted again');

  t.equal((await s.api('POST', `/iaos/${incident.id}/closed`)).status, 200);
  await s.settle();
  t.equal(channel.is_archived, true, 'archived when the incident closes');
  t.equal(await reported(), 1, 'reported once');
  t.equal(lookups(), 1, 'and not looked up again');
});

t.test('reports are posted in the order they were written, even while a sync of the first is still on its way', async (t) => {
  const s = await slackApp(t);
  const incident = await s.createIncident({ title: 'Queue backlog' });
  await s.settle();
  const channel = [...s.slack.channels.values()][0]!;
  const before = s.callsOf('chat.postMessage').length;

  // The first report's post takes 2 s to reach Slack; the second report's sync runs meanwhile.
  const firstSetOut = s.slack.delayNext('chat.postMessage', 2000);
  const tactical = { conditions: 'Backlog of 40k', actions: 'Scale the consumers', needs: 'None' };
  t.equal((await s.api('POST', `/iaos/${incident.id}/report/tactical`, tactical)).status, 201);
  await firstSetOut;
  const executive = { current_status: 'Draining', overview: 'Consumers scaled', next_steps: 'Watch' };
  t.equal((await s.api('POST', `/iaos/${incident.id}/report/executive`, executive)).status, 201);
  await s.settle();

  t.same(
    channel.messages.filter((m) => /report: /.test(m.text)).map((m) => m.text.split(':')[0]),
    ['Tactical report', 'Executive report'],
    'in the order written',
  );
  const posts = s.callsOf('chat.postMessage').slice(before);
  t.equal(posts.length, 2, 'each once');
  t.ok(posts[1]!.at - posts[0]!.at >= 1000, `a second apart where Slack counts (${posts[1]!.at - posts[0]!.at} ms)`);
  t.same(s.slack.limited, [], 'no 429');
});

t.test('the channel job and a sync at once: one card, pinned once, each person invited once', async (t) => {
  const s = await slackApp(t);
  s.slack.users.push({ id: 'UANA', email: 'ana@example.com', name: 'Ana' });
  // The channel job's first look-up (its invitations, before the card) waits on its way to Slack...
  const lookup = s.slack.holdNext('users.lookupByEmail');
  let setOut = false;
  void lookup.setOut.then(() => (setOut = true));
  const incident = await s.createIncident({ title: 'Disk full' });
  await until('the channel job’s first look-up', () => setOut);
  // ...while a role given in the web app queues a sync, which runs to its end meanwhile.
  t.equal((await s.api('POST', `/iaos/${incident.id}/roles`, { email: 'ana@example.com', role: 'scribe' })).status, 200);
  await until('the sync', async () => (await s.app.queue.countJobs(SLACK_LANE.name, { job: 'slack.sync' })).completed > 0);
  lookup.release();
  await s.settle();

  const channel = [...s.slack.channels.values()][0]!;
  t.equal(s.callsOf('chat.postMessage').length, 1, 'one card posted');
  t.equal(channel.pins.length, 1, 'and pinned once');
  t.match(JSON.stringify(channel.messages[0]!.blocks), /scribe: ana@example\.com/, 'showing what the sync was queued for');
  const lookups = s.callsOf('users.lookupByEmail').map((c) => c.args.email);
  t.same(lookups.sort(), ['ana@example.com', 'commander@example.com'], 'each person looked up once');
  const invited = s.callsOf('conversations.invite').flatMap((c) => String(c.args.users).split(','));
  t.same(invited.sort(), ['UANA', 'UCMD'], 'and invited once');
  t.equal(channel.bookmarks.length, 2, 'the page and conference bookmarked once');
});

t.test('a restricted incident gets a private channel', async (t) => {
  const s = await slackApp(t);
  await s.createIncident({ title: 'Leaked keys', visibility: 'Restricted' });
  await s.settle();
  const create = s.callsOf('conversations.create')[0]!;
  t.equal(String(create.args.is_private), 'true', 'conversations.create with is_private');
  t.equal([...s.slack.channels.values()][0]!.is_private, true);
});

t.test('commands answer in people’s words and keep the web app’s rights', async (t) => {
  const s = await slackApp(t);
  const help = await s.command('help');
  t.match(help.body.text, /declare/, 'help answers at once');
  s.slack.failNext('views.open', 'expired_trigger_id');
  const late = await s.command('declare');
  t.equal(late.status, 200);
  t.match(late.body.text, /did not open \(expired_trigger_id\)\. Slack gave up waiting/, 'a dialog Slack refused is explained, not a 500');

  s.slack.users.push({ id: 'UOUT', email: 'outsider@elsewhere.test', name: 'Out Sider' });
  await s.command('status', { user_id: 'UOUT' });
  await s.settle();
  t.match(s.slack.responses.at(-1)!.body.text, /not a member of Firewatch organization 'default'/);

  // A Member who holds no role may not close an incident (the web app's rule).
  await s.login('member@example.com', { role: 'Member' });
  s.slack.users.push({ id: 'UMEM', email: 'member@example.com', name: 'Mem Ber' });
  const incident = await s.createIncident({ title: 'Slow search' });
  await s.settle();
  const channelId = [...s.slack.channels.values()][0]!.id;
  await s.command('close', { user_id: 'UMEM', channel_id: channelId });
  await s.settle();
  t.match(s.slack.responses.at(-1)!.body.text, /^Not done: Only the incident's commander/);
  t.equal((await s.api('GET', `/iaos/${incident.id}`)).body.status, 'Active');

  await s.command('take scribe', { user_id: 'UMEM', channel_id: channelId });
  await s.settle();
  t.match(s.slack.responses.at(-1)!.body.text, /member@example\.com is now scribe/);
  await s.command('update status Stable', { user_id: 'UMEM', channel_id: channelId });
  await s.settle();
  t.equal((await s.api('GET', `/iaos/${incident.id}`)).body.status, 'Stable', 'holding a role, they may');
  await s.command('task Rotate the replica', { channel_id: channelId });
  await s.settle();
  t.ok((await s.api('GET', `/iaos/${incident.id}`)).body.events.some((e: any) => /Rotate the replica/.test(e.description)));
});

t.test('a case type with a channel per case: the case gets one, follows it there, and a 📌 goes on the case timeline', async (t) => {
  const s = await slackApp(t);
  const own = await s.api('POST', '/case_types', { name: 'Phishing', dedicated_channel: true });
  t.equal(own.status, 201);
  t.equal(own.body.dedicated_channel, true);
  const plain = await s.api('POST', '/case_types', { name: 'Spam' });
  const c = (
    await s.api('POST', '/cases', { title: 'Mail to finance', project_id: s.projectId, case_type_id: own.body.id, assignee_email: 'commander@example.com' })
  ).body;
  await s.api('POST', '/cases', { title: 'Newsletter flood', project_id: s.projectId, case_type_id: plain.body.id });
  await s.settle();

  t.equal(s.slack.channels.size, 1, 'only the case whose type says so');
  const channel = [...s.slack.channels.values()][0]!;
  t.equal(channel.name, `case-${c.name.replace(/^\D+-/, '')}-mail-to-finance`);
  t.equal(channel.topic, `${c.name}: Mail to finance · New`);
  t.ok(channel.members.has('UCMD'), 'the assignee is invited');
  const card = channel.messages.find((m) => m.ts === channel.pins[0])!;
  t.match(JSON.stringify(card.blocks), /\*Type\*\\nPhishing/);
  t.same(channel.bookmarks, [{ title: `${c.name} in Firewatch`, link: `http://firewatch.test/default/cases/${c.name}/view` }]);

  const ts = channel.messages[0]!.ts;
  channel.messages.push({ ts: `${ts}1`, text: 'Sender spoofs our CFO', user: 'UCMD' });
  await s.event({ type: 'reaction_added', user: 'UCMD', reaction: 'pushpin', item: { type: 'message', channel: channel.id, ts: `${ts}1` } });
  await s.settle();
  const pinned = (await s.api('GET', `/cases/${c.id}`)).body.events.find((e: any) => e.description === 'Sender spoofs our CFO');
  t.ok(pinned, 'the message is on the case timeline');

  t.equal((await s.api('PUT', `/cases/${c.id}`, { status: 'Closed' })).status, 200);
  await s.settle();
  t.equal(channel.topic, `${c.name}: Mail to finance · Closed`);
  t.match(JSON.stringify(card.blocks), /\*Status\*\\nClosed/, 'the card follows');
  t.equal(channel.is_archived, true, 'archived when the case closes');
});
