import t from 'tap';
import { drainSignals } from '../../../server/signals/ingest.js';
import { slackApp } from './helpers.js';

type App = Awaited<ReturnType<typeof slackApp>>;

/** A channel the bot is in already (people made it; a conversation_target names it). */
const channel = (s: App, id: string, name: string) => {
  s.slack.channels.set(id, { id, name, is_private: false, is_archived: false, topic: '', members: new Set(), messages: [], pins: [], bookmarks: [] });
  return s.slack.channels.get(id)!;
};
const actionsOf = (m: { blocks?: unknown[] }) =>
  ((m.blocks ?? []) as { type: string; elements?: { action_id: string; url?: string; value?: string }[] }[]).find((b) => b.type === 'actions')?.elements ?? [];
const ids = (m: { blocks?: unknown[] }) => actionsOf(m).map((a) => a.action_id);
/** A button of a posted card clicked in Slack (a signed block_actions delivery), by `user`. */
const click = (s: App, m: { blocks?: unknown[] }, action_id: string, user = 'UCMD') =>
  s.interaction({
    type: 'block_actions',
    user: { id: user },
    response_url: s.slack.responseUrl(),
    actions: [{ action_id, value: actionsOf(m).find((a) => a.action_id === action_id)!.value }],
  });

t.test('a case type naming a channel: new cases are posted there with buttons that act with the clicker’s rights', async (t) => {
  const s = await slackApp(t);
  const ops = channel(s, 'COPS0001', 'ops-alerts');
  const bad = await s.api('POST', '/case_types', { name: 'Spaces', conversation_target: '#Ops Alerts' });
  t.equal(bad.status, 422, 'a channel Slack could not have is refused when saved');
  t.same(bad.body.detail[0].loc, ['body', 'conversation_target']);
  const type = await s.api('POST', '/case_types', { name: 'Phishing', conversation_target: '#ops-alerts' });
  t.equal(type.status, 201);
  const made = await s.api('POST', '/cases', { title: 'Fake invoice mail', project_id: s.projectId, case_type_id: type.body.id });
  const hidden = await s.api('POST', '/cases', { title: 'Payroll fraud', project_id: s.projectId, case_type_id: type.body.id, visibility: 'Restricted' });
  t.equal(hidden.status, 201);
  await s.settle();

  t.equal(ops.messages.length, 1, 'the open case is posted; the restricted one is not');
  const card = ops.messages[0]!;
  t.match(JSON.stringify(card.blocks), /Fake invoice mail/);
  t.same(ids(card), ['case_ack', 'case_escalate', 'case_view']);
  t.equal(actionsOf(card)[2]!.url, `http://firewatch.test/default/cases/${made.body.name}/view`);

  s.slack.users.push({ id: 'UOUT', email: 'outsider@elsewhere.test', name: 'Out Sider' });
  await click(s, card, 'case_ack', 'UOUT');
  await s.settle();
  t.match(s.slack.responses.at(-1)!.body.text, /not a member of Firewatch organization 'default'/);
  t.equal((await s.api('GET', `/cases/${made.body.id}`)).body.status, 'New', 'someone who is no member acknowledges nothing');

  await click(s, card, 'case_ack');
  await s.settle();
  t.equal((await s.api('GET', `/cases/${made.body.id}`)).body.status, 'Triage', 'Acknowledge puts the case in triage');
  t.match(s.slack.responses.at(-1)!.body.text, /Acknowledged by commander@example\.com/);
  const update = s.callsOf('chat.update').at(-1)!;
  t.same([update.args.channel, update.args.ts], ['COPS0001', card.ts], 'the message is edited in place, by the channel’s id');
  t.same(ids(card), ['case_escalate', 'case_view'], 'everyone in the channel sees it acknowledged');
  t.match(JSON.stringify(card.blocks), /Triage/);

  await click(s, card, 'case_escalate');
  await s.settle();
  const escalated = (await s.api('GET', `/cases/${made.body.id}`)).body;
  t.equal(escalated.status, 'Escalated');
  t.ok(escalated.incident_id, 'Escalate opens the incident');
  t.equal(s.slack.channels.size, 2, 'whose channel follows');
  t.same(ids(card), ['case_view'], 'and escalating is no longer offered');
  t.equal(ops.messages.length, 1, 'still one message for the case');

  t.equal((await s.api('PUT', `/cases/${made.body.id}`, { visibility: 'Restricted' })).status, 200);
  await s.settle();
  t.notMatch(JSON.stringify(card.blocks), /Fake invoice mail/, 'restricted since, the message keeps only its name');
  t.same(ids(card), []);
});

t.test('a notification naming a channel (by id or #name) posts a card with buttons; a restricted record never', async (t) => {
  const s = await slackApp(t);
  const sec = channel(s, 'CSEC0001', 'security');
  const ops = channel(s, 'COPS0001', 'ops-alerts');
  const filter = async (name: string, subject: string, expression: unknown) => (await s.api('POST', '/search/filters', { name, subject, expression })).body.id;
  const invoices = await filter('Invoices', 'case', [{ field: 'title', op: 'ilike', value: '%invoice%' }]);
  const down = await filter('Down', 'incident', [{ field: 'title', op: 'ilike', value: '%down%' }]);
  for (const [name, target, f] of [
    ['Security', 'CSEC0001', invoices],
    ['Ops', '#ops-alerts', down],
  ])
    t.equal((await s.api('POST', '/notifications', { name, type: 'conversation', target, filters: [f] })).status, 201);

  const kase = (await s.api('POST', '/cases', { title: 'Invoice from a stranger', project_id: s.projectId })).body;
  await s.api('POST', '/cases', { title: 'Invoice to the board', project_id: s.projectId, visibility: 'Restricted' });
  const incident = await s.createIncident({ title: 'Checkout down' });
  await s.settle();

  t.equal(sec.messages.length, 1, 'a channel id is posted to; the restricted case is not');
  const card = sec.messages[0]!;
  t.match(JSON.stringify(card.blocks), new RegExp(`Case ${kase.name} was created\\. Matched: Invoices`));
  t.same(ids(card), ['case_ack', 'case_escalate', 'case_view']);
  t.equal(ops.messages.length, 1, 'a #name too');
  t.match(JSON.stringify(ops.messages[0]!.blocks), /Checkout down/);
  t.same(ids(ops.messages[0]!), ['incident_view', 'incident_join']);
  t.equal(actionsOf(ops.messages[0]!)[0]!.url, `http://firewatch.test/default/iaos/${incident.name}/view`);

  await click(s, card, 'case_escalate');
  await s.settle();
  t.equal((await s.api('GET', `/cases/${kase.id}`)).body.status, 'Escalated', 'the notification’s Escalate acts');
  t.match(s.slack.responses.at(-1)!.body.text, /^Escalated to an incident/);
});

t.test('signals post where their definition says: a repeat edits the message’s count; one without a case gets its own message', async (t) => {
  const s = await slackApp(t);
  const sig = channel(s, 'CSIG0001', 'signals');
  const ops = channel(s, 'COPS0001', 'ops-alerts');
  const bad = await s.api('POST', '/signals', { name: 'Bad', project_id: s.projectId, conversation_target: 'ops alerts' });
  t.equal(bad.status, 422);
  t.same(bad.body.detail[0].loc, ['body', 'conversation_target']);
  const define = async (body: Record<string, unknown>) => (await s.api('POST', '/signals', { project_id: s.projectId, ...body })).body;
  const db = await define({ name: 'DB latency', conversation_target: 'CSIG0001' });
  const disk = await define({ name: 'Disk usage', conversation_target: '#ops-alerts', create_case: false });
  const insider = (await s.api('POST', '/case_types', { name: 'Insider', visibility: 'Restricted' })).body;
  const secret = await define({ name: 'Badge use', conversation_target: '#ops-alerts', case_type_id: insider.id });
  const send = async (def: { ingest_key: string }, summary: string, dedup_key: string) => {
    const res = await s.request({
      method: 'POST',
      url: '/api/v1/default/signals/instances',
      payload: { raw: { summary }, dedup_key },
      headers: { authorization: `Bearer ${def.ingest_key}` },
    });
    t.equal(res.status, 202);
  };
  const processed = async () => {
    await drainSignals(s.app, db.organization_id);
    await s.settle();
  };

  await send(db, 'p99 over 2 s', 'db/latency');
  await send(disk, '/var at 91%', 'disk/var');
  await send(secret, 'Badge used at 3 am', 'badge/1');
  await processed();
  t.equal(sig.messages.length, 1, 'the case the signal opened is posted to the channel id');
  const card = sig.messages[0]!;
  const c = (await s.api('GET', `/cases?q=${encodeURIComponent('p99 over 2 s')}`)).body.items[0];
  t.same(ids(card), ['case_ack', 'case_escalate', 'case_view']);
  t.match(JSON.stringify(card.blocks), /Signals\*\\n1 time, the last at/);
  t.equal(ops.messages.length, 1, 'the signal without a case is posted; the restricted case is not');
  const notice = ops.messages[0]!;
  t.match(JSON.stringify(notice.blocks), /Disk usage: \/var at 91%/);
  t.same(ids(notice), ['signal_view'], 'nothing to acknowledge: a view of its signals');

  await send(db, 'p99 over 2 s', 'db/latency');
  await send(db, 'p99 over 3 s', 'db/latency');
  await send(disk, '/var at 95%', 'disk/var');
  await processed();
  t.equal(sig.messages.length, 1, 'repeats are not posted again');
  t.match(JSON.stringify(card.blocks), /Signals\*\\n3 times, the last at/, 'they edit the count');
  t.ok(
    s.callsOf('chat.update').some((u) => u.args.channel === 'CSIG0001' && u.args.ts === card.ts),
    'with chat.update on the message',
  );
  t.equal(ops.messages.length, 1);
  t.match(JSON.stringify(notice.blocks), /Disk usage: \/var at 95%/);
  t.match(JSON.stringify(notice.blocks), /Seen\*\\n2 times/);
  const view = new URL(actionsOf(notice)[0]!.url!);
  t.equal(view.pathname, '/default/signals/instances');
  const filter = JSON.parse(view.searchParams.get('filter')!) as Record<string, unknown>;
  const [field, value] = Object.entries(filter)[0]!;
  const listed = await s.api('GET', `/signals/instances?filter=${encodeURIComponent(JSON.stringify({ and: [{ field, op: '==', value }] }))}`);
  t.same(listed.body.items.map((i: any) => i.raw.summary).sort(), ['/var at 91%', '/var at 95%'], 'View lists the signal and its repeat');

  await send(disk, '/home at 90%', 'disk/home');
  await processed();
  t.equal(ops.messages.length, 2, 'another alert is a message of its own');

  await click(s, card, 'case_escalate');
  await s.settle();
  t.equal((await s.api('GET', `/cases/${c.id}`)).body.status, 'Escalated', 'Escalate on a signal’s case acts');
  t.same(ids(card), ['case_view']);
});
