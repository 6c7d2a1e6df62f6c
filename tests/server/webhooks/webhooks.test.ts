import t, { type Test } from 'tap';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { incidentApp } from '../incidents/helpers.js';
import { localServer, until } from '../workflows/receivers.js';
import { LOOPBACK_STAND_INS, rowsOf } from '../../helpers.js';

async function setup(t: Test) {
  const base = await incidentApp(t, { JOB_POLL_SECONDS: '0.5', WEBHOOK_RETRY_SECONDS: '0', ...LOOPBACK_STAND_INS });
  const deliveries = async (endpointId: number) => {
    const filter = encodeURIComponent(JSON.stringify([{ model: 'WebhookDelivery', field: 'endpoint_id', op: '==', value: endpointId }]));
    return (await base.api('GET', `/webhooks/deliveries?filter=${filter}`)).body.items as Record<string, any>[];
  };
  const settled = (endpointId: number, count: number) =>
    until(`${count} settled deliveries`, async () => {
      base.app.queue.notify('webhook-delivery');
      const list = await deliveries(endpointId);
      return list.length >= count && list.every((d) => d.status !== 'Pending') && list;
    });
  return { ...base, deliveries, settled };
}

t.test('an incident event is delivered signed as Standard Webhooks; the secret is shown once', async (t) => {
  const { api, createIncident, settled, database } = await setup(t);
  const receiver = await localServer(t);
  const created = await api('POST', '/webhooks/endpoints', { url: `${receiver.url}/hooks`, events: ['incident.created', 'task.created'] });
  t.equal(created.status, 201);
  t.match(created.body.secret, /^whsec_/);
  const secret = created.body.secret as string;
  const shown = JSON.stringify([(await api('GET', `/webhooks/endpoints/${created.body.id}`)).body, (await api('GET', '/webhooks/endpoints')).body]);
  t.notOk(shown.includes(secret.slice(6)), 'the secret never comes back');
  const stored = rowsOf(await database.db.execute(sql`select secret from webhook_endpoints`))[0] as { secret: string };
  t.notOk(stored.secret.includes(secret.slice(6)), 'and is encrypted at rest');

  const incident = await createIncident({ title: 'Payments failing' });
  await api('POST', `/iaos/${incident.id}/stable`); // incident.updated: not subscribed
  const [delivery] = await settled(created.body.id, 1);
  t.equal(delivery!.status, 'Delivered');
  t.equal(receiver.received.length, 1, 'only the subscribed event');
  const got = receiver.received[0]!;
  const payload = new Webhook(secret).verify(got.body, got.headers as Record<string, string>) as Record<string, any>;
  t.equal(payload.type, 'incident.created');
  t.match(payload.data, { id: incident.id, name: incident.name, title: 'Payments failing' });
  t.equal(got.headers['webhook-id'], delivery!.message_id);
  t.throws(() => new Webhook(secret).verify(got.body.replace('Payments', 'Pavments'), got.headers as Record<string, string>), 'a changed body does not verify');

  const bad = await api('POST', '/webhooks/endpoints', { url: 'ftp://example.com', events: ['nothing.happened'] });
  t.equal(bad.status, 422);
  t.same(
    bad.body.detail.map((d: any) => d.loc),
    [
      ['body', 'url'],
      ['body', 'events', 0],
    ],
  );
  t.equal((await api('GET', '/webhooks/endpoints')).body.total, 1, 'bad input created nothing');
});

t.test('a receiver answering 500 three times gets the fourth attempt, with the same webhook-id; replay sends it again', async (t) => {
  const { api, createIncident, settled } = await setup(t);
  let calls = 0;
  const receiver = await localServer(t, (_req, res) => {
    calls++;
    res.writeHead(calls <= 3 ? 500 : 204);
    res.end();
  });
  const endpoint = (await api('POST', '/webhooks/endpoints', { url: receiver.url, events: ['incident.created'] })).body;
  await createIncident();
  const [delivery] = await settled(endpoint.id, 1);
  t.equal(delivery!.status, 'Delivered');
  t.same(
    delivery!.attempts.map((a: any) => a.status),
    [500, 500, 500, 204],
  );
  t.equal(receiver.received.length, 4);
  t.same(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, 1, 'every attempt carries the same webhook-id');
  for (const r of receiver.received) new Webhook(endpoint.secret).verify(r.body, r.headers as Record<string, string>);
  t.equal((await api('GET', `/webhooks/endpoints/${endpoint.id}`)).body.failing_since, null, 'a success clears the failure clock');

  const replay = await api('POST', `/webhooks/deliveries/${delivery!.id}/replay`);
  t.equal(replay.status, 200);
  t.equal(replay.body.status, 'Pending');
  await settled(endpoint.id, 1);
  t.equal(receiver.received.length, 5);
  t.equal(receiver.received[4]!.headers['webhook-id'], delivery!.message_id, 'a replay keeps its webhook-id');
});

t.test('an endpoint failing for 5 days is disabled and its delivery stops', async (t) => {
  const { api, createIncident, settled, database } = await setup(t);
  const receiver = await localServer(t, (_req, res) => {
    res.writeHead(503);
    res.end();
  });
  const endpoint = (await api('POST', '/webhooks/endpoints', { url: receiver.url, events: ['case.created'] })).body;
  await database.db.execute(sql`update webhook_endpoints set failing_since = now() - interval '5 days 1 minute' where id = ${endpoint.id}`);
  await api('POST', '/cases', { title: 'Phishing report', project_id: (await api('GET', '/projects')).body.items[0].id });
  const [delivery] = await settled(endpoint.id, 1);
  t.equal(delivery!.status, 'Failed');
  t.equal(delivery!.attempts.length, 1, 'no retry once the endpoint is disabled');
  const after = (await api('GET', `/webhooks/endpoints/${endpoint.id}`)).body;
  t.equal(after.enabled, false);
  t.match(after.disabled_reason, /^Disabled after failing for 5 days; the last attempt answered 503\.$/);
  const replay = await api('POST', `/webhooks/deliveries/${delivery!.id}/replay`);
  t.equal(replay.status, 409, 'no replay to a disabled endpoint');
  await createIncident();
  t.equal((await api('GET', '/webhooks/deliveries')).body.total, 1, 'a disabled endpoint gets no new deliveries');
});
