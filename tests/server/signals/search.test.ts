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
