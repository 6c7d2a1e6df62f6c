import t from 'tap';
import { holtForecast } from '../../../server/incidents/insights.js';
import { incidentApp } from './helpers.js';

t.test('similar incidents: full-text and tags, scored', async (t) => {
  const { api, createIncident } = await incidentApp(t);
  const type = await api('POST', '/tag_types', { name: 'Service' });
  const pg = await api('POST', '/tags', { name: 'postgres', tag_type_id: type.body.id });
  const base = await createIncident({
    title: 'Postgres replication lag',
    description: 'Replica lag above ten minutes on the billing database.',
    tags: [pg.body.id],
  });
  const textTwin = await createIncident({ title: 'Replication lag on billing database', description: 'Lag alarms fired for the replica.' });
  const tagOnly = await createIncident({ title: 'Disk full', description: 'Volume out of space.', tags: [pg.body.id] });
  await createIncident({ title: 'Login page typo', description: 'Marketing copy wrong.' });
  const res = await api('GET', `/iaos/similar-incidents/${base.id}`);
  t.equal(res.status, 200);
  t.match(res.body.method, /ts_rank_cd/);
  const names = res.body.items.map((i: any) => i.id);
  t.same(names, [textTwin.id, tagOnly.id], 'ranked by score; the unrelated one is absent');
  t.ok(res.body.items[0].text_score > 0);
  t.equal(res.body.items[1].tag_score, 1);
  t.ok(res.body.items.every((i: any, n: number, all: any[]) => n === 0 || all[n - 1].score >= i.score));
  t.equal((await api('GET', '/iaos/similar-incidents/99999')).status, 404);
});

t.test('forecast: incidents per month and the next months', async (t) => {
  t.same(holtForecast([2, 4, 6, 8], 2), [10, 12], 'a straight line continues');
  t.same(holtForecast([5], 2), [5, 5]);
  const { api, createIncident } = await incidentApp(t);
  const now = new Date();
  const monthsAgo = (n: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - n, 10)).toISOString();
  for (const [ago, count] of [
    [3, 1],
    [2, 2],
    [1, 3],
    [0, 4],
  ] as const)
    for (let i = 0; i < count; i++) await createIncident({ reported_at: monthsAgo(ago) });
  const res = await api('GET', '/iaos/metric/forecast?months=6&ahead=2');
  t.equal(res.status, 200);
  t.match(res.body.method, /Holt/);
  t.same(
    res.body.history.map((h: any) => h.count),
    [1, 2, 3, 4],
  );
  t.equal(res.body.forecast.length, 2);
  t.same(
    res.body.forecast.map((f: any) => f.count),
    [5, 6],
  );
  t.equal((await api('GET', '/iaos/metric/forecast?months=0')).status, 422);
});

t.test('steps, step AI summary, resources, postmortem, comments', async (t) => {
  const { api, createIncident, drain } = await incidentApp(t);
  const inc = await createIncident();
  const steps = (await api('GET', `/incident_steps/${inc.id}/steps`)).body.items;
  t.equal(steps.length, 6);
  const put = await api('PUT', `/incident_steps/${inc.id}/${steps[2].id}`, {
    step: { status: 'Done', notes: 'Traffic drained from the primary. Replica promoted.' },
  });
  t.equal(put.status, 200);
  t.equal(put.body.status, 'Done');
  t.equal(put.body.updated_by, 'commander@example.com');
  t.equal((await api('PUT', `/incident_steps/${inc.id}/${steps[2].id}`, { status: 'Finished' })).status, 422);
  t.equal((await api('PUT', `/incident_steps/${inc.id}/99999`, { status: 'Done' })).status, 404);
  const summary = await api('GET', `/incident_steps/${inc.id}/${steps[2].id}/ai-summary`);
  t.equal(summary.status, 200);
  t.equal(summary.body.method, 'extractive');
  t.match(summary.body.summary, /Replica promoted|Traffic drained/);

  const resource = await api('POST', `/iaos/${inc.id}/add-resource`, {
    resource_type: 'weblink',
    name: 'Grafana',
    weblink: 'https://grafana.example.com/d/db',
  });
  t.equal(resource.status, 201);
  t.equal((await api('POST', `/iaos/${inc.id}/add-resource`, { resource_type: 'weblink', name: 'x', weblink: 'not a url' })).status, 422);
  const comment = await api('POST', `/iaos/${inc.id}/comments/add`, { text: 'Replica is healthy.' });
  t.equal(comment.body.message, 'Comment added successfully.');

  const pm = await api('POST', `/iaos/${inc.id}/postmortem/create`);
  t.equal(pm.status, 202);
  t.equal(pm.body.message, 'Postmortem (PIR) story will be available shortly');
  await drain();
  const full = (await api('GET', `/iaos/${inc.id}`)).body;
  const review = full.resources.find((r: any) => r.resource_type === 'dispatch-incident-review-document');
  t.ok(review, 'review document built in the background');
  t.match(review.content, /# Post-incident review: IAO-1 Database down/);
  t.match(review.content, /Step 'Contain' marked Done by commander@example.com/);
  const descriptions = full.events.map((e: any) => `${e.type}: ${e.description}`);
  for (const expected of [
    "Step updated: Step 'Contain' marked Done by commander@example.com",
    "Resource updated: weblink 'Grafana' added by commander@example.com",
    'Other: commander@example.com added a comment',
    'Resource updated: Postmortem requested by commander@example.com',
    'Resource updated: Post-incident review document created',
  ])
    t.ok(descriptions.includes(expected), expected);
  t.same(
    full.comments.map((c: any) => c.text),
    ['Replica is healthy.'],
  );
});

t.test('dashboard summary: counts per month, times to stable and close, tasks, people', async (t) => {
  const { api, createIncident, projectId } = await incidentApp(t);
  const now = new Date();
  const a = await createIncident({ reported_at: new Date(now.getTime() - 4 * 3600_000).toISOString() });
  await createIncident();
  await api('POST', `/iaos/${a.id}/stable`);
  await api('POST', `/iaos/${a.id}/closed`);
  await api('POST', '/tasks', { description: 'Follow up', incident_id: a.id, resolve_by: '2000-01-01T00:00:00Z' });
  await api('POST', '/cases', { title: 'c', project_id: projectId });
  const res = await api('GET', '/iaos/metric/summary');
  t.equal(res.status, 200);
  t.equal(res.body.incidents.total, 2);
  const month = now.toISOString().slice(0, 7);
  t.same(res.body.incidents.by_month.map((r: any) => [r.month, r.status, r.count]).sort(), [
    [month, 'Active', 1],
    [month, 'Closed', 1],
  ]);
  t.ok(res.body.incidents.hours_to_stable >= 3.9 && res.body.incidents.hours_to_stable < 5, 'about four hours to stable');
  t.equal(res.body.cases.total, 1);
  t.match(res.body.tasks, { total: 1, open: 1, overdue: 1 });
  t.same(res.body.people, [{ email: 'commander@example.com', incidents: 2 }]);
  t.equal((await api('GET', '/iaos/metric/summary?since=yesterday-ish')).status, 422);
});
