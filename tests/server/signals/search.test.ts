import t from 'tap';
import { fixture, signalApp } from './helpers.js';

t.test('an accepted signal is found by global search once processed, each alert of a group under its own instance', async (t) => {
  const s = await signalApp(t);
  const res = await s.ingest('/signals/alertmanager', fixture('alertmanager-firing.json'), { key: s.key });
  t.equal(res.status, 202);
  await s.drain();
  const found = await s.api('GET', `/search?q=${encodeURIComponent('api-2.prod.example.com')}&type=SignalInstance`);
  t.equal(found.status, 200);
  t.same(
    found.body.results.map((r: { link: string }) => r.link),
    [`/signals/instances/${res.body.ids[1]}`],
    'the second alert, by a value of its own labels',
  );
  const both = await s.api('GET', `/search?q=${encodeURIComponent('oncall-payments')}&type=SignalInstance`);
  t.same(
    both.body.results.map((r: { link: string }) => r.link).sort(),
    res.body.ids.map((id: number) => `/signals/instances/${id}`).sort(),
    'a value both share finds both',
  );
});

t.test('a repeat deduplicated into an open alert gets no search entry of its own: its first instance leads to the case', async (t) => {
  const s = await signalApp(t);
  await s.ingest('/signals/pagerduty/v2/enqueue', fixture('pagerduty-trigger.json', s.key));
  await s.drain();
  const repeat = await s.ingest('/signals/pagerduty/v2/enqueue', fixture('pagerduty-trigger.json', s.key));
  t.equal(repeat.status, 202);
  await s.drain();
  const list = await s.api('GET', `/signals/${s.signal.id}/instances`);
  const [second, opened] = list.body.items;
  t.equal(second.filter_action, 'deduplicate', 'the repeat joined the open alert');
  const found = await s.api('GET', `/search?q=${encodeURIComponent('prod-datapipe03.example.com')}&type=SignalInstance`);
  t.same(
    found.body.results.map((r: { link: string }) => r.link),
    [`/signals/instances/${opened.id}`],
    'one hit for the series, not one per repeat',
  );
  t.equal(opened.case_id, second.case_id, 'whose case holds the repeat');
});
