import t from 'tap';
import { readFileSync } from 'node:fs';
import { query } from 'jsonpath-rfc9535';
import { extract, select } from '../../../server/signals/extract.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as unknown;
const payloads = [
  fixture('alertmanager-firing.json'),
  fixture('grafana-firing.json'),
  fixture('pagerduty-trigger.json'),
  { a: [{ b: 1, c: [{ b: 2 }] }, { b: 3 }], b: { b: { b: 4 } }, 'odd key': ['x', 'y', 'z'], n: null },
];
const paths = [
  '$',
  '$.alerts[0].labels.instance',
  "$..['instance']",
  '$..instance',
  '$..b',
  '$.a[*].b',
  '$.a[-1]',
  '$.a[5]',
  "$['odd key'][0,2]",
  '$..*',
  '$.*.*',
  "$..['b','c']",
  '$..[0]',
  // Filters and slices take the library's own evaluation.
  '$.alerts[?@.status == "firing"].labels.alertname',
  '$.a[0:1]',
];

t.test('a path selects the same values, in the same order, as RFC 9535 evaluation (jsonpath-rfc9535)', async (t) => {
  for (const raw of payloads)
    for (const path of paths) {
      t.same(select(raw, path), query(raw as never, path), path);
      t.same(select(raw, path), query(raw as never, path), `${path}, again (the parsed path from the cache)`);
    }
});

t.test('entities come out as before: the first host of an Alertmanager group, every e-mail', async (t) => {
  const raw = fixture('alertmanager-firing.json');
  const found = extract(raw, [
    { id: 1, jpath: "$..['instance']", regular_expression: '^([a-z0-9.-]+?)(?::\\d+)?$', scope: 'single' },
    { id: 2, jpath: null, regular_expression: '[a-z0-9.-]+@[a-z0-9.-]+', scope: 'multiple' },
  ]);
  const hosts = query(raw as never, "$..['instance']") as string[];
  t.equal(found.filter((e) => e.entity_type_id === 1).length, 1, 'one host (scope single)');
  t.equal(found.find((e) => e.entity_type_id === 1)!.value, /^([a-z0-9.-]+?)(?::\d+)?$/.exec(hosts[0]!)![1], 'the first instance label, without its port');
  t.ok(
    found.some((e) => e.entity_type_id === 2 && e.value === 'oncall-payments@example.com'),
    'the e-mail in an annotation',
  );
});
