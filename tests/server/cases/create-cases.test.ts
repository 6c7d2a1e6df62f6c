import t from 'tap';
import { sql } from 'drizzle-orm';
import { systemActor } from '../../../server/core/context.js';
import { runInTenant } from '../../../server/core/tenancy.js';
import { createCases } from '../../../server/cases/service.js';
import { rowsOf } from '../../helpers.js';
import { incidentApp } from '../incidents/helpers.js';

t.test('createCases: several cases in one go, each as createCase makes one, each provisioned', async (t) => {
  const { app, api, projectId, drain } = await incidentApp(t);
  const type = await api('POST', '/tag_types', { name: 'Threat' });
  const tag = await api('POST', '/tags', { name: 'phishing', tag_type_id: type.body.id });
  // One through the API first: the batch takes the numbers after it.
  t.equal((await api('POST', '/cases', { title: 'Before', project_id: projectId })).body.name, 'OCO-1');
  const [org] = rowsOf(await app.db.execute(sql`select id from organizations where slug = 'default'`)) as { id: number }[];
  const ids = await runInTenant(app.db, app.config, systemActor({ orgId: Number(org!.id), orgSlug: 'default' }), (ctx) =>
    createCases(ctx, [
      { title: 'Phish A', project_id: projectId, tags: [tag.body.id], participants: ['analyst@example.com'] },
      { title: 'Phish B', project_id: projectId, status: 'Closed', timeline: [{ source: 'Signal', description: 'Created from signal X', details: { n: 2 } }] },
      { title: 'Phish C', project_id: projectId },
    ]),
  );
  t.equal(ids.length, 3);
  const got = await Promise.all(ids.map(async (id) => (await api('GET', `/cases/${id}`)).body));
  t.same(
    got.map((c) => [c.name, c.title, c.status, c.reporter_email]),
    [
      ['OCO-2', 'Phish A', 'New', null],
      ['OCO-3', 'Phish B', 'Closed', null],
      ['OCO-4', 'Phish C', 'New', null],
    ],
    'the ids in the order given, numbered after the last case',
  );
  t.ok(got[0].case_type_id && got[0].case_priority_id, "the organization's default type and priority fill what was left out");
  t.ok(got[1].closed_at, 'a status sets its timestamp');
  t.same(
    got[0].tags.map((x: any) => x.name),
    ['phishing'],
  );
  t.same(got[0].participants, ['analyst@example.com']);
  t.same(
    got[1].events.filter((e: any) => e.type === 'Other').map((e: any) => [e.source, e.description]),
    [
      ['Case Participant', 'Case OCO-3 created by an API key'],
      ['Signal', 'Created from signal X'],
    ],
  );
  await drain();
  for (const id of ids) t.ok((await api('GET', `/cases/${id}`)).body.conversation_id, `case ${id} was provisioned (its job was queued)`);
});
