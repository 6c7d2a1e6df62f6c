import t from 'tap';
import { nextTs } from '../../stand-ins/slack/methods.js';
import { tsDate } from '../../../server/slack/inbound-events.js';
import { slackApp } from './helpers.js';

/** An incident with its channel, and a person's message in it (as Slack stores it). */
async function incidentWithChannel(t: Parameters<typeof slackApp>[0], body: Record<string, unknown> = {}) {
  const s = await slackApp(t);
  s.slack.users.push({ id: 'UANA', email: 'ana@example.com', name: 'Ana' });
  const incident = await s.createIncident({ title: 'Queue backlog', ...body });
  await s.settle();
  const channel = [...s.slack.channels.values()][0]!;
  const say = (text: string, user = 'UANA') => {
    const ts = nextTs();
    channel.messages.push({ ts, text, user });
    return ts;
  };
  const full = async () => (await s.api('GET', `/iaos/${incident.id}`)).body;
  const messages = async () => (await s.api('GET', `/iaos/${incident.id}/conversation/messages`)).body.items;
  return { s, incident, channel, say, full, messages };
}

t.test('two-way timeline: messages mirrored, 📌 becomes a timeline event at the message’s time, once; joining makes a participant', async (t) => {
  const { s, channel, say, full, messages } = await incidentWithChannel(t);
  const ts = say('Replica lag is 40 s, failing over');
  const delivery = { type: 'message', channel: channel.id, user: 'UANA', text: 'Replica lag is 40 s, failing over', ts };
  t.equal((await s.event(delivery, { event_id: 'EvMsg1' })).status, 200);
  await s.settle();
  let mirrored = await messages();
  t.equal(mirrored.length, 1, 'the channel message is in the incident conversation');
  t.match(mirrored[0], { author_email: 'ana@example.com', text: 'Replica lag is 40 s, failing over' });
  t.equal(new Date(mirrored[0].created_at).getTime(), tsDate(ts).getTime(), 'at the message’s time');

  // Slack delivers again (a retry: the same event id), and once more under a new id: nothing changes.
  await s.event(delivery, { event_id: 'EvMsg1' });
  await s.event(delivery, { event_id: 'EvMsg1-again' });
  await s.settle();
  mirrored = await messages();
  t.equal(mirrored.length, 1, 'the same event twice changes nothing');

  // The bot's own messages (the card) are not mirrored back.
  await s.event({ type: 'message', channel: channel.id, user: 'UBOT', text: 'card', ts: channel.messages[0]!.ts });
  await s.settle();
  t.equal((await messages()).length, 1);

  const pin = { type: 'reaction_added', user: 'UCMD', reaction: 'pushpin', item: { type: 'message', channel: channel.id, ts } };
  await s.event(pin, { event_id: 'EvPin1' });
  await s.event(pin, { event_id: 'EvPin1' });
  await s.event(pin, { event_id: 'EvPin2' });
  await s.settle();
  let imported = (await full()).events.filter((e: any) => e.type === 'Imported message');
  t.equal(imported.length, 1, 'one timeline event, however often the reaction arrives');
  t.match(imported[0], { description: 'Replica lag is 40 s, failing over', owner: 'ana@example.com', source: 'Conversation' });
  t.equal(new Date(imported[0].started_at).getTime(), tsDate(ts).getTime(), 'at the message’s original time');

  await s.event({ type: 'reaction_added', user: 'UCMD', reaction: 'thumbsup', item: { type: 'message', channel: channel.id, ts } });
  await s.settle();
  t.equal((await full()).events.filter((e: any) => e.type === 'Imported message').length, 1, 'another emoji does nothing');

  await s.event({ ...pin, type: 'reaction_removed' }, { event_id: 'EvUnpin' });
  await s.settle();
  imported = (await full()).events.filter((e: any) => e.type === 'Imported message');
  t.equal(imported.length, 0, 'removing the 📌 removes the event');

  s.slack.users.push({ id: 'UBEN', email: 'ben@example.com', name: 'Ben' });
  await s.event({ type: 'member_joined_channel', user: 'UBEN', channel: channel.id });
  await s.settle();
  const after = await full();
  t.ok(
    after.participants.some((p: any) => p.email === 'ben@example.com'),
    'joining the channel makes one a participant',
  );
});

t.test('a restricted incident: private channel; its messages only reach who can see the incident', async (t) => {
  const { s, incident, channel, say, messages } = await incidentWithChannel(t, { visibility: 'Restricted' });
  t.equal(channel.is_private, true);
  const ts = say('Attacker IP is 203.0.113.9');
  await s.event({ type: 'message', channel: channel.id, user: 'UANA', text: 'Attacker IP is 203.0.113.9', ts });
  await s.settle();
  t.equal((await messages()).length, 1, 'mirrored for those who can see it');

  const member = await s.login('member@example.com', { role: 'Member' });
  const hidden = await s.api('GET', `/iaos/${incident.id}/conversation/messages`, undefined, member);
  t.equal(hidden.status, 404, 'a member who is not a participant cannot read the mirror');

  // Being added to the private channel in Slack does not make them a participant of the restricted incident.
  s.slack.users.push({ id: 'UMEM', email: 'member@example.com', name: 'Mem' });
  await s.event({ type: 'member_joined_channel', user: 'UMEM', channel: channel.id });
  await s.settle();
  t.equal((await s.api('GET', `/iaos/${incident.id}/conversation/messages`, undefined, member)).status, 404, 'still hidden');
  const events = (await s.api('GET', `/iaos/${incident.id}`)).body.events;
  t.ok(
    events.some((e: any) => /member@example\.com joined the private Slack channel .* not a participant/.test(e.description)),
    'the commander is told',
  );
});
