import t from 'tap';
import { signalApp } from './helpers.js';

type Alert = { fp: string; status?: 'firing' | 'resolved'; labels?: Record<string, string> };
/** An Alertmanager webhook body (version 4) for one group. */
const group = (groupKey: string, alerts: Alert[]) => ({
  receiver: 'firewatch',
  status: alerts.some((a) => (a.status ?? 'firing') === 'firing') ? 'firing' : 'resolved',
  groupKey,
  version: '4',
  alerts: alerts.map((a) => ({
    status: a.status ?? 'firing',
    labels: { alertname: 'PaymentsErrors', instance: `${a.fp}.prod.example.com:9100`, ...a.labels },
    annotations: { summary: `Payments errors on ${a.fp}` },
    fingerprint: a.fp,
  })),
});

t.test('one case per Alertmanager group: its alerts are its instances, it closes with the last resolve, and a new firing opens a new case', async (t) => {
  const s = await signalApp(t);
  const send = async (body: unknown) => {
    const res = await s.ingest('/signals/alertmanager', body, { key: s.key });
    t.equal(res.status, 202);
    await s.drain();
    return res.body.ids as number[];
  };
  const ids = await send(group('{}:{alertname="PaymentsErrors"}', [{ fp: 'db-1' }, { fp: 'db-2' }, { fp: 'db-3' }]));
  t.same(await s.casesByStatus(), { New: 1 }, 'three alerts, one case');
  const c = await s.caseOf(ids[0]!);
  t.same(await Promise.all(ids.map(async (id) => (await s.caseOf(id)).id)), [c.id, c.id, c.id]);
  t.equal(c.case_type_id, s.caseType.id, "the definition's case type");
  t.equal(c.case_priority_id, s.priority.id, 'and priority');
  t.ok(
    c.events.some((e: any) => e.description === `Case ${c.name} created by signal definition 'Prod alerts'`),
    'the timeline names the signal definition as who created it',
  );

  await send(group('{}:{alertname="PaymentsErrors"}', [{ fp: 'db-1', status: 'resolved' }, { fp: 'db-2' }, { fp: 'db-3' }]));
  t.same(await s.casesByStatus(), { New: 1 }, 'one alert resolved, two still firing: the case stays open');
  await send(
    group('{}:{alertname="PaymentsErrors"}', [
      { fp: 'db-2', status: 'resolved' },
      { fp: 'db-3', status: 'resolved' },
    ]),
  );
  t.same(await s.casesByStatus(), { Closed: 1 }, 'every alert resolved: the case closes');
  const closed = await s.api('GET', `/cases/${c.id}`);
  t.ok(
    closed.body.events.some((e: any) => /Case status changed from New to Closed by signal definition 'Prod alerts'/.test(e.description)),
    'and the definition is named as who closed it',
  );

  const again = await send(group('{}:{alertname="PaymentsErrors"}', [{ fp: 'db-1' }]));
  t.same(await s.casesByStatus(), { Closed: 1, New: 1 }, 'firing after the resolve: a new case');
  t.not((await s.caseOf(again[0]!)).id, c.id);
  await send(group('{}:{alertname="DiskFull"}', [{ fp: 'db-9' }]));
  t.same(await s.casesByStatus(), { Closed: 1, New: 2 }, 'another group: its own case');
});

t.test('a definition can choose a case per alert, or per value of named labels; a dedup filter groups on what it names', async (t) => {
  const s = await signalApp(t);
  const cases = async () => (await s.counts()).cases;
  const send = async (body: unknown) => {
    t.equal((await s.ingest('/signals/alertmanager', body, { key: s.key })).status, 202);
    await s.drain();
  };
  await s.ok('PUT', `/signals/${s.signal.id}`, { grouping: 'alert' });
  await send(group('g1', [{ fp: 'a-1' }, { fp: 'a-2' }]));
  t.equal(await cases(), 2, 'per alert: one case each');

  await s.ok('PUT', `/signals/${s.signal.id}`, { grouping: 'labels', group_by: ['team'] });
  await send(group('g2', [{ fp: 'b-1', labels: { team: 'payments' } }]));
  await send(
    group('g3', [
      { fp: 'b-2', labels: { team: 'payments' } },
      { fp: 'b-3', labels: { team: 'search' } },
    ]),
  );
  t.equal(await cases(), 4, 'by label: one case for team=payments across two groups, one for team=search');

  const service = await s.ok('POST', '/entity_type', { name: 'Service', jpath: '$.labels.service', project_id: s.projectId });
  const filter = await s.ok('POST', '/signals/filters', {
    name: 'One case per service',
    action: 'deduplicate',
    window: 3600,
    expression: [{ model: 'EntityType', field: 'name', op: '==', value: 'Service' }],
    project_id: s.projectId,
  });
  await s.ok('PUT', `/signals/${s.signal.id}`, { grouping: 'alert', entity_type_ids: [service.id], filter_ids: [filter.id] });
  const res = await s.ingest(
    '/signals/alertmanager',
    group('g4', [
      { fp: 'c-1', labels: { service: 'payments' } },
      { fp: 'c-2', labels: { service: 'payments' } },
      { fp: 'c-3', labels: { service: 'payments' } },
    ]),
    { key: s.key },
  );
  await s.drain();
  t.equal(await cases(), 5, 'three alerts of service=payments (each its own fingerprint): one case');
  const instances = await Promise.all(res.body.ids.map((id: number) => s.api('GET', `/signals/instances/${id}`)));
  t.same(
    instances.map((i) => i.body.filter_id),
    [filter.id, filter.id, filter.id],
    'each instance names the filter that grouped it',
  );
});

t.test('a definition without case type or priority gives its cases the organization defaults', async (t) => {
  const s = await signalApp(t);
  const bare = await s.ok('POST', '/signals', { name: 'Bare', project_id: s.projectId });
  const res = await s.ingest('/signals/instances', { raw: { summary: 'bare alert' } }, { key: bare.ingest_key });
  await s.drain();
  const c = await s.caseOf(res.body.id);
  const byHand = await s.ok('POST', '/cases', { title: 'by hand', project_id: s.projectId });
  t.ok(c.case_type_id !== null && c.case_priority_id !== null, 'a type and a priority');
  t.same([c.case_type_id, c.case_priority_id], [byHand.case_type_id, byHand.case_priority_id], 'the same a case created by hand gets');
});
