import t from 'tap';
import { fixture, signalApp } from './helpers.js';

t.test("Opsgenie's Alert API: create (alias dedups), request status, acknowledge by id, note by tiny id, close by alias", async (t) => {
  const s = await signalApp(t);
  const p1 = await s.ok('POST', '/case_priorities', { name: 'P1', project_id: s.projectId });
  const genie = (method: string, path: string, payload?: unknown, key = s.key) =>
    s.request({
      method: method as never,
      url: `/api/v1/default/signals/opsgenie/v2/alerts${path}`,
      headers: { authorization: `GenieKey ${key}` },
      ...(payload !== undefined ? { payload: payload as never } : {}),
    });
  const created = await genie('POST', '', fixture('opsgenie-create.json'));
  t.equal(created.status, 202);
  t.match(created.body, { result: 'Request will be processed', took: Number, requestId: /^[0-9a-f-]{36}$/ });
  t.equal((await genie('POST', '', fixture('opsgenie-create.json'))).status, 202, 'the same alias again');
  await s.drain();
  const status = await genie('GET', `/requests/${created.body.requestId}`);
  t.match(status.body, {
    data: { success: true, action: 'Create', alias: 'Life is too short for no alias', alertId: /^\d+$/ },
    requestId: created.body.requestId,
  });
  t.equal((await s.counts()).cases, 1, 'one alert for the alias');
  const list = await s.api('GET', `/signals/${s.signal.id}/instances`);
  const c = await s.caseOf(list.body.items.at(-1).id);
  t.equal(c.title, 'An example alert message', 'message is the title');
  t.equal(c.description, 'Every alert needs a description');
  t.equal(c.case_priority_id, p1.id, 'P1 onto the case priority of that name');

  const alertId = status.body.data.alertId;
  t.equal((await genie('POST', `/${alertId}/acknowledge`, { user: 'trinity', note: 'looking' })).status, 202, 'acknowledge by id');
  await s.drain();
  t.equal((await s.api('GET', `/cases/${c.id}`)).body.status, 'Triage');
  t.equal((await genie('POST', `/${alertId}/notes?identifierType=tiny`, { note: 'Restarted the pod', user: 'trinity' })).status, 202);
  t.ok(
    (await s.api('GET', `/cases/${c.id}`)).body.events.some((e: any) => e.description === 'Note from trinity: Restarted the pod'),
    'the note is on the timeline',
  );
  const closed = await genie('POST', `/${encodeURIComponent('Life is too short for no alias')}/close?identifierType=alias`, { source: 'alertmanager' });
  t.equal(closed.status, 202, 'close by alias');
  await s.drain();
  t.equal((await s.api('GET', `/cases/${c.id}`)).body.status, 'Closed');

  t.equal((await genie('POST', '/999999/close')).status, 404, 'an unknown id');
  const invalid = await genie('POST', '', { description: 'no message' });
  t.equal(invalid.status, 422);
  t.match(invalid.body, { message: String, detail: [{ loc: ['body', 'message'] }] }, "Opsgenie's message beside the detail");
  const wrongKey = await genie('POST', '', fixture('opsgenie-create.json'), '0'.repeat(32));
  t.equal(wrongKey.status, 401);
});

t.test('PagerDuty change events land on the open cases and incidents of the source service, and are searchable', async (t) => {
  const s = await signalApp(t);
  const service = await s.ok('POST', '/services', { name: 'checkout', project_id: s.projectId });
  await s.ok('PUT', `/signals/${s.signal.id}`, { oncall_service_id: service.id });
  const incident = await s.createIncident({ services: [service.id] });
  const other = await s.createIncident({ title: 'Unrelated' });
  const trigger = await s.ingest('/signals/pagerduty/v2/enqueue', fixture('pagerduty-trigger.json', s.key));
  await s.drain();
  const c = await s.caseOf((await s.api('GET', `/signals/${s.signal.id}/instances`)).body.items[0].id);
  t.equal(trigger.status, 202);

  const change = await s.ingest('/signals/pagerduty/v2/change/enqueue', fixture('pagerduty-change.json', s.key));
  t.equal(change.status, 202);
  t.same(change.body, { status: 'success', message: 'Change event processed' });
  await s.drain();
  const line = 'Change: Build Success: Increase snapshot create timeout to 30 seconds (prod-build-agent-i-0b148d1040d565540)';
  t.ok(
    (await s.api('GET', `/cases/${c.id}`)).body.events.some((e: any) => e.description === line),
    'on the open case',
  );
  t.ok(
    (await s.api('GET', `/iaos/${incident.id}`)).body.events.some((e: any) => e.description === line),
    "on the service's open incident",
  );
  t.notOk(
    (await s.api('GET', `/iaos/${other.id}`)).body.events.some((e: any) => e.description === line),
    'not on an incident of another service',
  );
  t.equal((await s.counts()).cases, 1, 'a change opens nothing');
  const found = await s.api('GET', `/search?q=${encodeURIComponent('snapshot create timeout')}&type=SignalInstance`);
  t.equal(found.body.results.length, 1, 'found by search');

  const bad = await s.ingest('/signals/pagerduty/v2/change/enqueue', { routing_key: s.key, payload: {} });
  t.equal(bad.status, 400);
  t.match(bad.body, { status: 'invalid event', message: 'Event object is invalid', errors: [/summary/] });
});

t.test("Grafana: the source's own header names, a 5-minute replay window, and PUT", async (t) => {
  const { createHmac } = await import('node:crypto');
  const s = await signalApp(t);
  const secret = 'grafana-shared-secret-0123456789';
  await s.ok('PUT', `/signals/${s.signal.id}`, { hmac_secret: secret, signature_header: 'X-Signature', timestamp_header: 'X-Grafana-Timestamp' });
  const text = JSON.stringify(fixture('grafana-firing.json'));
  const send = (at: number, method: 'POST' | 'PUT' = 'POST', sigHeader = 'x-signature') => {
    const ts = String(Math.floor(at / 1000));
    return s.app.inject({
      method,
      url: '/api/v1/default/signals/grafana',
      payload: text,
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${s.key}`,
        [sigHeader]: createHmac('sha256', secret).update(`${ts}:${text}`).digest('hex'),
        'x-grafana-timestamp': ts,
      },
    });
  };
  t.equal((await send(Date.now())).statusCode, 202, 'signed with the headers the source names');
  t.equal((await send(Date.now(), 'PUT')).statusCode, 202, 'PUT as well as POST');
  t.equal((await send(Date.now(), 'POST', 'x-grafana-alerting-signature')).statusCode, 401, "the default header name is not this source's");
  const old = await send(Date.now() - 7 * 24 * 3600_000);
  t.equal(old.statusCode, 401, 'a 7-day-old signature is refused');
  t.equal(old.json().detail[0].type, 'stale_signature');
  t.equal((await send(Date.now() - 6 * 60_000)).statusCode, 401, 'six minutes old: outside the window');
  t.equal((await send(Date.now() - 4 * 60_000)).statusCode, 202, 'four minutes old: inside it');
  await s.drain();
});

t.test(
  "Dispatch's shape on /signals/instances: the project by name, the definition by raw.externalId or raw.variant, a user's or API key's bearer",
  async (t) => {
    const s = await signalApp(t);
    await s.ok('PUT', `/signals/${s.signal.id}`, { external_id: 'guardduty-unusual-login', variant: 'aws-guardduty' });
    const body = { ...fixture('dispatch-instance.json'), project: { name: 'Ops' } };
    const asUser = await s.api('POST', '/signals/instances', body);
    t.equal(asUser.status, 202, "a user's token");
    const key = (await s.api('POST', '/apikeys', { project_id: s.projectId, description: 'dispatch script' })).body.key as string;
    const asKey = await s.request({ method: 'POST', url: '/api/v1/default/signals/instances', headers: { authorization: `Bearer ${key}` }, payload: body });
    t.equal(asKey.status, 202, "an API key's");
    const byVariant = await s.api('POST', '/signals/instances', { ...body, raw: { ...body.raw, externalId: undefined } });
    t.equal(byVariant.status, 202, 'found by variant');
    await s.drain();
    const c = await s.caseOf(asUser.body.id);
    t.equal(c.title, 'Unusual console login for alice@example.com from 203.0.113.7');
    t.equal((await s.api('GET', `/signals/instances/${asKey.body.id}`)).body.signal_id, s.signal.id);

    t.equal((await s.ingest('/signals/instances', body)).status, 401, 'no bearer');
    t.equal((await s.ingest('/signals/instances', body, { key: s.key })).status, 401, 'an ingest key is not a user');
    t.equal((await s.api('POST', '/signals/instances', { ...body, raw: { externalId: 'nope' } })).status, 404, 'no such definition');
    t.equal((await s.api('POST', '/signals/instances', { ...body, project: { name: 'Elsewhere' } })).status, 404, 'not in that project');
    t.equal((await s.ingest('/signals/instances', { raw: { a: 1 } }, { key: s.key })).status, 202, 'the ingest-key form still works');
    await s.drain();
  },
);
