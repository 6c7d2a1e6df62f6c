import { createHmac } from 'node:crypto';
import t from 'tap';
import { fixture, signalApp } from './helpers.js';

t.test(
  "PagerDuty Events API v2: trigger opens a case with the definition's type, priority, entities and raw payload; acknowledge triages it; resolve closes it",
  async (t) => {
    const s = await signalApp(t);
    const trigger = await s.ingest('/signals/pagerduty/v2/enqueue', fixture('pagerduty-trigger.json', s.key));
    t.equal(trigger.status, 202);
    t.same(trigger.body, { status: 'success', message: 'Event processed', dedup_key: 'srv01/mysql-disk' });
    t.equal((await s.counts()).instances, 1, 'the event is stored when the 202 is sent');
    await s.drain();

    const again = await s.ingest('/signals/pagerduty/v2/enqueue', fixture('pagerduty-trigger.json', s.key));
    t.equal(again.status, 202);
    await s.drain();
    const list = await s.api('GET', `/signals/${s.signal.id}/instances`);
    t.equal(list.body.total, 2);
    const [second, first] = list.body.items;
    t.equal(first.filter_action, 'none');
    t.equal(second.filter_action, 'deduplicate', 'the repeat joins the open alert');
    t.equal(second.case_id, first.case_id);

    const c = await s.caseOf(first.id);
    t.equal(c.title, 'DISK at 99% on machine prod-datapipe03.example.com');
    t.equal(c.case_type_id, s.caseType.id);
    t.equal(c.case_priority_id, s.priority.id);
    t.equal(c.status, 'New');
    const created = c.events.find((e: any) => e.source === 'Signal');
    t.equal(created.details.raw.payload.custom_details['free space'], '1%', 'the raw payload is on the timeline');
    t.notOk('routing_key' in created.details.raw, 'the routing key is not kept');

    const detail = await s.api('GET', `/signals/${s.signal.id}/${first.id}`);
    t.same(detail.body.entities.map((e: any) => [e.entity_type, e.value]).sort(), [
      ['Email', 'dana.ops@example.com'],
      ['Host', 'prod-datapipe03.example.com'],
    ]);

    const ack = await s.ingest('/signals/pagerduty/v2/enqueue', { routing_key: s.key, dedup_key: 'srv01/mysql-disk', event_action: 'acknowledge' });
    t.equal(ack.status, 202);
    await s.drain();
    t.equal((await s.caseOf(first.id)).status, 'Triage');

    const resolve = await s.ingest('/signals/pagerduty/v2/enqueue', fixture('pagerduty-resolve.json', s.key));
    t.equal(resolve.status, 202);
    t.equal(resolve.body.dedup_key, 'srv01/mysql-disk');
    await s.drain();
    t.equal((await s.caseOf(first.id)).status, 'Closed', 'resolve closes the case');

    // After the resolve the key names no open alert: a new trigger opens a new case.
    await s.ingest('/signals/pagerduty/v2/enqueue', fixture('pagerduty-trigger.json', s.key));
    await s.drain();
    t.same(await s.casesByStatus(), { Closed: 1, New: 1 });

    const noKey = await s.ingest('/signals/pagerduty/v2/enqueue', { ...fixture('pagerduty-trigger.json', s.key), dedup_key: undefined });
    t.equal(noKey.status, 202);
    t.match(noKey.body.dedup_key, /^[0-9a-f-]{36}$/, 'a trigger without dedup_key gets one made up and returned');
    await s.drain();
  },
);

t.test('Alertmanager: a group of two alerts opens one case, the re-sent group joins it, resolved closes it', async (t) => {
  const s = await signalApp(t);
  const firing = await s.ingest('/signals/alertmanager', fixture('alertmanager-firing.json'), { key: s.key });
  t.equal(firing.status, 202);
  t.equal(firing.body.ids.length, 2);
  await s.drain();
  t.same(await s.casesByStatus(), { New: 1 }, 'one case for the group');
  const c = await s.caseOf(firing.body.ids[0]);
  t.equal(c.title, 'Error rate above 5% on api-1.prod.example.com');
  t.equal((await s.caseOf(firing.body.ids[1])).id, c.id, 'both alerts are instances of that case');
  const detail = await s.api('GET', `/signals/instances/${firing.body.ids[1]}`);
  t.equal(detail.body.dedup_key, 'f03e9d21c7ab4456', 'the fingerprint is the dedup key');
  t.same(
    detail.body.entities.map((e: any) => e.value).sort(),
    ['api-2.prod.example.com', 'oncall-payments@example.com'],
    'host by JSONPath with the port cut by the regex',
  );

  // Alertmanager re-sends the whole group every repeat_interval.
  const repeat = await s.ingest('/signals/alertmanager', fixture('alertmanager-firing.json'), { key: s.key });
  t.equal(repeat.status, 202);
  await s.drain();
  t.equal((await s.counts()).cases, 1, 'the repeat opens nothing new');

  const resolved = await s.ingest('/signals/alertmanager', fixture('alertmanager-resolved.json'), { key: s.key });
  t.equal(resolved.status, 202);
  await s.drain();
  t.same(await s.casesByStatus(), { Closed: 1 });

  const email = (await s.api('GET', `/entity/type/Email`)).body.items;
  t.equal(email.length, 1, 'one entity per normalized value, however many alerts name it');
  const seen = await s.api('GET', `/entity/${email[0].id}/cases`);
  t.equal(seen.body.total, 1, 'the entity links to the case');
  t.equal(seen.body.open, 0);
});

t.test('Grafana: a unified-alerting webhook opens a case; with a secret, only correctly signed deliveries are accepted', async (t) => {
  const s = await signalApp(t);
  const body = fixture('grafana-firing.json');
  const unsigned = await s.ingest('/signals/grafana', body, { key: s.key });
  t.equal(unsigned.status, 202, 'no secret configured: no signature needed');
  await s.drain();
  const c = await s.caseOf(unsigned.body.ids[0]);
  t.equal(c.title, 'p99 checkout latency is 2.4 s on web-7.prod.example.com');

  const secret = 'grafana-shared-secret-0123456789';
  t.equal((await s.api('PUT', `/signals/${s.signal.id}`, { hmac_secret: secret })).status, 200);
  t.notOk('hmac_secret' in (await s.api('GET', `/signals/${s.signal.id}`)).body, 'the secret is never read back');
  const before = (await s.counts()).instances;
  const text = JSON.stringify({ ...body, alerts: [{ ...body.alerts[0], fingerprint: 'aaaabbbbccccdddd' }] });
  const send = (headers: Record<string, string>) =>
    s.app.inject({
      method: 'POST',
      url: '/api/v1/default/signals/grafana',
      payload: text,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${s.key}`, ...headers },
    });
  const missing = await send({});
  t.equal(missing.statusCode, 401);
  t.equal(missing.json().detail[0].type, 'bad_signature');
  const wrong = await send({ 'x-grafana-alerting-signature': createHmac('sha256', 'another-secret-entirely').update(text).digest('hex') });
  t.equal(wrong.statusCode, 401);
  t.equal((await s.counts()).instances, before, 'refused deliveries store nothing');
  const good = await send({ 'x-grafana-alerting-signature': createHmac('sha256', secret).update(text).digest('hex') });
  t.equal(good.statusCode, 202);
  const ts = String(Math.floor(Date.now() / 1000));
  const stamped = await send({
    'x-grafana-alerting-signature': createHmac('sha256', secret).update(`${ts}:${text}`).digest('hex'),
    'x-grafana-alerting-signature-timestamp': ts,
  });
  t.equal(stamped.statusCode, 202, 'timestamp:body form');
  await s.drain();
  t.equal((await s.counts()).cases, 1, 'one Grafana group, one case');
});

t.test('a malformed payload gets a 4xx in the error shape and stores nothing', async (t) => {
  const s = await signalApp(t);
  const cases: [string, unknown, number][] = [
    // PagerDuty's own answer to an invalid event (its clients read it), with the detail beside it.
    ['/signals/pagerduty/v2/enqueue', { ...fixture('pagerduty-trigger.json', s.key), payload: undefined }, 400],
    ['/signals/pagerduty/v2/enqueue', { routing_key: s.key, event_action: 'resolve' }, 400],
    ['/signals/pagerduty/v2/enqueue', { ...fixture('pagerduty-trigger.json', s.key), event_action: 'explode' }, 400],
    ['/signals/alertmanager', { ...fixture('alertmanager-firing.json'), alerts: [] }, 422],
    ['/signals/alertmanager', { ...fixture('alertmanager-firing.json'), alerts: [{ status: 'firing' }] }, 422],
    ['/signals/grafana', { ...fixture('grafana-firing.json'), status: 'sideways' }, 422],
    ['/signals/instances', { dedup_key: 'x' }, 422],
    ['/signals/instances', { raw: 'not an object' }, 422],
    ['/signals/instances/batch', { items: [] }, 422],
  ];
  for (const [path, body, status] of cases) {
    const res = await s.ingest(path, body, { key: s.key });
    t.equal(res.status, status, `${path} ${JSON.stringify(body).slice(0, 60)}`);
    t.ok(Array.isArray(res.body.detail) && res.body.detail[0].msg && res.body.detail[0].loc && res.body.detail[0].type, 'error shape');
    if (path.includes('pagerduty')) t.match(res.body, { status: 'invalid event', message: 'Event object is invalid', errors: [String] }, "PagerDuty's shape");
  }
  for (const path of ['/signals/grafana', '/signals/alertmanager', '/signals/instances']) {
    const res = await s.app.inject({
      method: 'POST',
      url: `/api/v1/default${path}`,
      payload: '{"status": "firing", "alerts": [',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${s.key}` },
    });
    t.equal(res.statusCode, 400, `${path}: broken JSON`);
    t.equal(res.json().detail[0].type, 'json_invalid');
  }
  t.same(await s.counts(), { instances: 0, cases: 0, entities: 0, groups: 0 });
});

t.test('a source key of organization A cannot ingest into B, and opens nothing but ingestion', async (t) => {
  const s = await signalApp(t);
  const b = await s.organization('other-org');
  const cross = await s.ingest('/signals/alertmanager', fixture('alertmanager-firing.json'), { key: s.key, org: b.slug });
  t.equal(cross.status, 401);
  t.same(cross.body.detail[0].msg, 'Invalid ingest key.');
  const pd = await s.ingest('/signals/pagerduty/v2/enqueue', fixture('pagerduty-trigger.json', s.key), { org: b.slug });
  t.equal(pd.status, 401);
  t.equal((await s.counts()).instances, 0, 'nothing stored in either organization');
  t.equal((await s.ingest('/signals/alertmanager', fixture('alertmanager-firing.json'), { key: s.token })).status, 401, 'a user token is not an ingest key');
  t.equal((await s.ingest('/signals/alertmanager', fixture('alertmanager-firing.json'))).status, 401, 'no key');
  const read = await s.request({ method: 'GET', url: '/api/v1/default/signals', headers: { authorization: `Bearer ${s.key}` } });
  t.equal(read.status, 401, 'the ingest key does not open the API');
  t.equal((await s.ingest('/signals/alertmanager', fixture('alertmanager-firing.json'), { key: s.key })).status, 202, 'the key works in its own organization');
  await s.drain();
});
