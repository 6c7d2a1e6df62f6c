import t from 'tap';
import { sql } from 'drizzle-orm';
import { incidentApp } from '../incidents/helpers.js';
import { localServer, until } from '../workflows/receivers.js';

/** F22: a webhook endpoint at an internal address is refused when saved and when delivered to. */
t.test('webhook endpoints at internal addresses: refused when saved, and when delivered to', async (t) => {
  const { api, createIncident, app, database } = await incidentApp(t, { JOB_POLL_SECONDS: '0.5', WEBHOOK_RETRY_SECONDS: '0' });
  const listener = await localServer(t, (_r, res) => void res.writeHead(500).end('INTERNAL-SECRET-BODY'));
  for (const url of [`${listener.url}/hooks`, 'http://[::1]:8807/', 'http://169.254.169.254/latest/meta-data/', 'http://localhost:8807/']) {
    const res = await api('POST', '/webhooks/endpoints', { url, events: ['incident.created'] });
    t.equal(res.status, 422, url);
    t.match(res.body.detail, [{ loc: ['body', 'url'], msg: /^The server may not call this address: .*; an operator may allow it with OUTBOUND_ALLOW\.$/ }]);
  }
  const endpoint = (await api('POST', '/webhooks/endpoints', { url: 'https://hooks.example.com/firewatch', events: ['incident.created'] })).body;
  t.equal((await api('PUT', `/webhooks/endpoints/${endpoint.id}`, { url: `${listener.url}/hooks` })).status, 422, 'nor by an update');

  // Saved while an operator allowed the range; failing for days already, so its first failure is its last.
  await database.db.execute(
    sql`update webhook_endpoints set url = ${`${listener.url}/hooks`}, failing_since = now() - interval '5 days 1 minute' where id = ${endpoint.id}`,
  );
  await createIncident();
  const [delivery] = await until('the delivery to settle', async () => {
    app.queue.notify('webhook-delivery');
    const items = (await api('GET', '/webhooks/deliveries')).body.items as Record<string, any>[];
    return items.length && items.every((d) => d.status !== 'Pending') && items;
  });
  t.equal(delivery!.status, 'Failed');
  t.match(delivery!.attempts, [{ status: null, error: /^refused: 127\.0\.0\.1 is a loopback address; an operator may allow it with OUTBOUND_ALLOW$/ }]);
  t.same(listener.received, [], 'the listener received nothing');
  t.match((await api('GET', `/webhooks/endpoints/${endpoint.id}`)).body.disabled_reason, /the last attempt refused: 127\.0\.0\.1 is a loopback address/);
});
