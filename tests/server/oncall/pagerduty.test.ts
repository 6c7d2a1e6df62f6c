import t from 'tap';
import { oncallApp } from './helpers.js';
import { pagerDutyStandIn } from '../../stand-ins/pagerduty.js';

t.test('PagerDuty plugin: who is on call (paged /oncalls with users), page with From and incident_key, dedup, 429, resolve on close', async (t) => {
  const o = await oncallApp(t);
  const oncalls = Array.from({ length: 30 }, (_, i) => ({ policy: 'PEP1', level: i < 2 ? 1 : 2, user: { id: `PU${i}`, email: `User${i}@example.com` } }));
  const pd = await pagerDutyStandIn('pd-key', { services: { PSVC1: 'PEP1' }, oncalls });
  t.teardown(() => pd.close());
  await o.ok('POST', '/plugins/instances', {
    plugin_slug: 'pagerduty-oncall',
    title: 'PagerDuty',
    configuration: { api_key: 'pd-key', from_email: 'bot@example.com', api_url: pd.url },
  });
  const service = await o.ok('POST', '/services', { name: 'checkout', type: 'pagerduty-oncall', external_id: 'PSVC1' });

  const who = (await o.api('GET', `/oncall/services/${service.id}/oncall`)).body;
  t.equal(who.provider, 'pagerduty-oncall');
  t.same(
    who.oncall.slice(0, 2).map((x: any) => [x.email, x.level]),
    [
      ['user0@example.com', 1],
      ['user1@example.com', 1],
    ],
    'first level first',
  );
  t.equal(who.oncall.length, 30, 'every page of /oncalls was read (more: true)');
  const lists = pd.requests.filter((r) => r.path === '/oncalls');
  t.same(
    lists.map((r) => r.query.get('offset')),
    ['0', '25'],
  );
  t.same([lists[0]!.query.getAll('include[]'), lists[0]!.query.getAll('escalation_policy_ids[]')], [['users'], ['PEP1']]);
  t.equal(lists[0]!.headers.accept, 'application/vnd.pagerduty+json;version=2');

  // Paged from an incident; PagerDuty is rate limiting at first.
  pd.fail(/^\/incidents$/, { status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'Rate Limit Exceeded', code: 2020 } } });
  const incident = await o.createIncident({ title: 'Checkout down', services: [service.id] });
  const page = await o.ok('POST', '/oncall/pages', { title: 'Checkout down', service_id: service.id, incident_id: incident.id, key: 'inc-1' });
  await o.drainOncall();
  const posts = pd.requests.filter((r) => r.method === 'POST' && r.path === '/incidents');
  t.equal(posts.length, 2, 'the 429 was waited out and sent again');
  t.equal(posts[1]!.headers.from, 'bot@example.com', 'with the From header');
  t.match(JSON.parse(posts[1]!.body), {
    incident: { type: 'incident', incident_key: 'inc-1', service: { id: 'PSVC1', type: 'service_reference' }, urgency: 'high' },
  });
  t.match((await o.api('GET', `/oncall/pages/${page.id}`)).body, { provider: 'pagerduty-oncall', external_id: 'Q000001', state: 'triggered' });

  // An answer lost after PagerDuty created the incident: the retry is refused as a duplicate, and the open one is taken.
  pd.incidents.push({ id: 'Q000777', service: 'PSVC1', incident_key: 'inc-2', status: 'triggered', title: 'x', from: 'bot@example.com' });
  const dup = await o.ok('POST', '/oncall/pages', { title: 'Again', service_id: service.id, key: 'inc-2' });
  await o.drainOncall();
  t.equal((await o.api('GET', `/oncall/pages/${dup.id}`)).body.external_id, 'Q000777', 'the dedup refusal leads to the open incident');

  // Closing the incident resolves the PagerDuty incident.
  await o.api('PUT', `/iaos/${incident.id}`, { ...(await o.api('GET', `/iaos/${incident.id}`)).body, status: 'Closed' });
  await o.drainOncall();
  const put = pd.requests.find((r) => r.method === 'PUT');
  t.match(put, { path: '/incidents/Q000001', headers: { from: 'bot@example.com' } });
  t.same(JSON.parse(put!.body), { incident: { type: 'incident_reference', status: 'resolved' } });
  t.equal(pd.incidents[0]!.status, 'resolved');

  // The stand-in refuses what PagerDuty refuses.
  const noFrom = await fetch(`${pd.url}/incidents`, { method: 'POST', headers: { authorization: 'Token token=pd-key' }, body: '{}' });
  t.equal(noFrom.status, 400);
  t.equal((await fetch(`${pd.url}/oncalls`)).status, 401);
});
