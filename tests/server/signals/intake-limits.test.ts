import t from 'tap';
import { fixture, signalApp } from './helpers.js';

/** A native signal's body as text, so its nesting can go deeper than JSON.stringify here could write it. */
const nested = (levels: number) => `{"raw":{"a":${'['.repeat(levels)}${']'.repeat(levels)}}}`;

t.test('one deeply nested signal is refused alone: 30 valid and 10 deep sent at once give 30 × 202 and 10 × 4xx', async (t) => {
  const s = await signalApp(t);
  const send = (payload: string) =>
    s.app.inject({
      method: 'POST',
      url: '/api/v1/default/signals/instances',
      payload,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${s.key}` },
    });
  const bodies = Array.from({ length: 40 }, (_, i) => (i % 4 === 3 ? nested(5000) : JSON.stringify({ raw: { ok: i } })));
  const answers = await Promise.all(bodies.map(send));
  const valid = answers.filter((_, i) => i % 4 !== 3);
  const deep = answers.filter((_, i) => i % 4 === 3);
  t.same(
    valid.map((a) => a.statusCode),
    Array(30).fill(202),
    'every valid signal accepted',
  );
  for (const a of deep) {
    t.ok(a.statusCode >= 400 && a.statusCode < 500, `deep one: ${a.statusCode}`);
    t.match(a.json(), { detail: [{ msg: String, loc: Array, type: String }] }, 'in the error shape');
  }
  t.equal((await s.counts()).instances, 30, 'exactly the accepted ones are stored');

  // A payload the serializer takes but PostgreSQL refuses (a lone surrogate): the others of its batch still commit.
  const lone = '{"raw":{"text":"\\ud800 alone"}}';
  const mixed = await Promise.all([...Array.from({ length: 8 }, (_, i) => send(JSON.stringify({ raw: { second: i } }))), send(lone), send(lone)]);
  t.same(
    mixed.slice(0, 8).map((a) => a.statusCode),
    Array(8).fill(202),
  );
  for (const a of mixed.slice(8)) t.ok(a.statusCode >= 400 && a.statusCode < 500 && Array.isArray(a.json().detail), `lone surrogate: ${a.statusCode}`);
  t.equal((await s.counts()).instances, 38);
  await s.drain();
});

t.test(
  'Alertmanager groups are taken whole past the old 1,000 alerts and 1 MB (up to 20,000 and 32 MB); beyond, throttled or shutting down: 503 with Retry-After',
  async (t) => {
    const s = await signalApp(t);
    // A definition that stores only (processing thousands of alerts is the bench's business, not this test's).
    const quiet = await s.ok('POST', '/signals', { name: 'Big groups', project_id: s.projectId, enabled: false, create_case: false });
    const alerts = (n: number, description = '') =>
      Array.from({ length: n }, (_, i) => ({
        status: 'firing',
        labels: { alertname: 'NodeDown', instance: `node-${i}.prod.example.com:9100` },
        annotations: { summary: `node-${i} down`, description },
        fingerprint: `big-${n}-${i}`,
      }));
    const group = fixture('alertmanager-firing.json');

    const tooMany = await s.ingest(
      '/signals/alertmanager',
      { ...group, alerts: Array.from({ length: 20_001 }, (_, i) => ({ status: 'firing', labels: { n: String(i) } })) },
      { key: quiet.ingest_key },
    );
    t.equal(tooMany.status, 503, 'more alerts than one request may carry: a status Alertmanager retries');
    t.ok(Number(tooMany.headers['retry-after']) > 0, 'with Retry-After');
    const tooLarge = await s.app.inject({
      method: 'POST',
      url: '/api/v1/default/signals/grafana',
      payload: `{"status":"firing","pad":"${'y'.repeat(33 * 1024 * 1024)}","alerts":[]}`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${quiet.ingest_key}` },
    });
    t.equal(tooLarge.statusCode, 503, 'a body over the limit: 503 too');
    t.ok(Number(tooLarge.headers['retry-after']) > 0);

    // A limit set through the API (it was refused on create, ignored on update).
    const limited = await s.ok('POST', '/signals', { name: 'Limited', project_id: s.projectId, rate_limit_per_minute: 4 });
    t.equal((await s.api('GET', `/signals/${limited.id}`)).body.rate_limit_per_minute, 4, 'set on create');
    t.equal((await s.api('PUT', `/signals/${limited.id}`, { rate_limit_per_minute: 3 })).body.rate_limit_per_minute, 3, 'and on update');
    t.equal((await s.api('POST', '/signals', { name: 'Bad', project_id: s.projectId, rate_limit_per_minute: 0 })).status, 422);
    t.equal((await s.ingest('/signals/alertmanager', group, { key: limited.ingest_key })).status, 202, 'within the limit');
    const over = await s.ingest('/signals/alertmanager', group, { key: limited.ingest_key });
    t.equal(over.status, 503, 'over it, Alertmanager gets 503 (it does not retry 429)');
    t.ok(Number(over.headers['retry-after']) > 0);
    // The bucket may hold one event again (3 a minute); the next ones are refused.
    const pds = [];
    for (let i = 0; i < 3; i++) pds.push(await s.ingest('/signals/pagerduty/v2/enqueue', fixture('pagerduty-trigger.json', limited.ingest_key)));
    const pd = pds.find((r) => r.status !== 202)!;
    t.equal(pd?.status, 429, "PagerDuty's clients get its 429");
    t.equal(pd.body.status, 'throttle event');
    t.ok(Number(pd.headers['retry-after']) > 0);

    // Both old limits crossed at once, last (the app shuts down next, so the background processing of
    // these alerts stops after a batch): one group of 2,500 alerts, over 5 MB (2.6 KB of description
    // each), where 1,000 alerts or 1 MB used to be refused and Alertmanager dropped the group. Storing
    // a group of 10,000 took this test 12 minutes on two loaded cores; the real Alertmanager test sends
    // 1,500 in one group, and `npm run bench -- signals` measures large bursts.
    const before = (await s.counts()).instances;
    const big = { ...group, alerts: alerts(2_500, 'x'.repeat(2_600)) };
    const body = JSON.stringify(big);
    t.ok(body.length > 5 * 1024 * 1024, `a body over 5 MB (${(body.length / 1024 / 1024).toFixed(1)} MB)`);
    const many = await s.app.inject({
      method: 'POST',
      url: '/api/v1/default/signals/alertmanager',
      payload: body,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${quiet.ingest_key}` },
    });
    t.equal(many.statusCode, 202);
    t.equal(many.json().ids.length, 2_500, 'a group of 2,500 alerts accepted whole');
    t.equal((await s.counts()).instances - before, 2_500, 'every alert stored');

    await s.app.drain(0);
    const closing = await s.ingest('/signals/alertmanager', group, { key: s.key });
    t.equal(closing.status, 503, 'shutting down: 503');
    t.ok(Number(closing.headers['retry-after']) > 0, 'with Retry-After');
  },
);
