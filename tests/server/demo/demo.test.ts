import t from 'tap';
import { runDemo } from '../../../server/demo/demo.js';
import { testApp } from '../../helpers.js';

/** npm run demo on a fresh database: a quarter of work that every list and dashboard shows. */
t.test('the demo fills an organization repeatably, once, and the dashboards show it', async (t) => {
  const app = await testApp(t);
  const now = new Date('2026-11-24T12:00:00Z');
  const started = Date.now();
  const result = await runDemo(app.database.db, { now });
  t.comment(`demo loaded in ${Date.now() - started} ms: ${JSON.stringify(result.counts)}`);
  t.equal(result.loaded, true);
  t.equal(result.counts.incidents, 300);
  t.equal(result.counts.cases, 150);
  t.equal(result.counts.projects, 3);
  t.ok(result.counts.services! >= 5 && result.counts.teams! >= 3, 'several services and teams');
  t.ok(result.counts.tasks! > 100 && result.counts.reports! > 100 && result.counts.feedback! > 20, 'tasks, reports and feedback');
  const again = await runDemo(app.database.db, { now });
  t.equal(again.loaded, false, 'a second run changes nothing');

  const token = await app.login('admin@example.com', { role: 'Owner' });
  const get = async (path: string) => {
    const res = await app.request({ method: 'GET', url: `/api/v1/default${path}`, token });
    t.equal(res.status, 200, `GET ${path}`);
    return res.body;
  };
  t.equal((await get('/iaos')).total, 300, 'the incident list has them all');
  t.equal((await get('/cases')).total, 150);
  t.equal((await get('/tasks')).total, result.counts.tasks, 'every task counted is in the task list (incidents and cases)');
  const incidentPage = (await get('/iaos?itemsPerPage=50')).items as { id: number; conversation: unknown; conference: { weblink: string } | null }[];
  t.ok(
    incidentPage.every((i) => i.conversation && i.conference?.weblink),
    'every demo incident has its conversation and conference (the page stops waiting)',
  );
  // The conversation tab of an incident shows its thread, from people on the incident.
  for (const incident of incidentPage.slice(0, 10)) {
    const { items } = (await get(`/iaos/${incident.id}/conversation/messages`)) as { items: { author_email: string; text: string }[] };
    t.ok(
      items.length > 0 && items.every((m) => m.text && m.author_email.endsWith('@demo.firewatch.test')),
      `incident ${incident.id} has conversation messages`,
    );
  }
  const { conversationMessages } = await import('../../../server/timeline/tables.js');
  const { incidents: incidentTable } = await import('../../../server/incidents/tables.js');
  const { count, countDistinct, eq: equal } = await import('drizzle-orm');
  const [threads] = await app.database.db
    .select({ incidents: countDistinct(incidentTable.id), messages: count() })
    .from(conversationMessages)
    .innerJoin(incidentTable, equal(incidentTable.conversation_id, conversationMessages.conversation_id));
  t.equal(threads!.incidents, 300, "every demo incident's conversation has messages");
  t.equal(threads!.messages, result.counts.messages, 'every message counted is in a conversation');
  t.ok(
    ((await get('/cases?itemsPerPage=50')).items as { conversation: unknown }[]).every((c) => c.conversation),
    'and every case its conversation',
  );
  for (const path of ['/services', '/teams', '/individuals', '/tasks', '/feedback', '/data/sources', '/documents'])
    t.ok((await get(path)).total > 0, `${path} is not empty`);
  const summary = await get(`/iaos/metric/summary?since=${new Date(now.getTime() - 120 * 86400_000).toISOString()}`);
  for (const tab of ['incidents', 'cases', 'tasks', 'data', 'feedback']) t.ok(summary[tab].by_month.length > 0, `the ${tab} dashboard has months of figures`);
  t.ok(summary.incidents.by_month.length >= 3, 'incidents over three months or more');
  t.ok(summary.people.length > 5, 'the people dashboard lists responders');
  t.ok(summary.feedback.service.by_month.length > 0, 'on-call effort feedback');
  // The runbooks were uploaded to chat and indexed: a question finds one.
  const { submissions } = await import('../../../server/ai/tables.js');
  const rows = await app.database.db.select().from(submissions);
  t.ok(rows.length >= 6 && rows.every((r) => r.status === 'indexed'), 'runbooks uploaded to chat and indexed');

  // Same seed, same data: a second database gets the same incidents.
  const other = await testApp(t);
  await runDemo(other.database.db, { now });
  const { incidents } = await import('../../../server/incidents/tables.js');
  const { asc } = await import('drizzle-orm');
  const pick = (db: typeof app.database.db) =>
    db
      .select({ name: incidents.name, title: incidents.title, reported_at: incidents.reported_at, status: incidents.status })
      .from(incidents)
      .orderBy(asc(incidents.id))
      .limit(50);
  t.same(await pick(other.database.db), await pick(app.database.db), 'repeatable');
});
