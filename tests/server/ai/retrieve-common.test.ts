import { sql } from 'drizzle-orm';
import t from 'tap';
import { createSubmission } from '../../../server/ai/ingest.js';
import { planLimits } from '../../../server/billing/limits.js';
import { retrieve } from '../../../server/ai/retrieve.js';
import { withTenant } from '../../../server/core/db/tenant.js';
import { rowsOf, testApp } from '../../helpers.js';

t.test('words too frequent for the candidate budget still find passages that hold them, best first', async (t) => {
  const { request, login, database, config } = await testApp(t);
  const token = await login('owner@example.com');
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } })).body;
  const [org] = rowsOf<{ id: number }>(await database.db.execute(sql`select id from organizations where slug = 'default'`));
  const orgId = org!.id;
  const { id: submissionId } = await withTenant(database.db, { orgId, userId: null }, (tx) =>
    createSubmission(tx, { orgId, userId: 1, sessionId: null }, planLimits(config, 'free'), {
      kind: 'text',
      projectId: project.id,
      title: 'Ospreys',
      sensitivityLevel: 'internal',
      content: Buffer.from('placeholder'),
    }),
  );
  // 1,200 chunks name ospreys (more than the candidate budget of 800), 300 do not; one also names the marsh.
  await database.db.execute(sql`
    insert into chunks (organization_id, project_id, submission_id, ordinal, text, place, sensitivity_level)
    select ${orgId}, ${project.id}, ${submissionId}, n,
      case when n = 777 then 'The osprey nests by the saltmarsh every spring.' when n <= 1200 then 'An osprey was counted at station ' || n || '.' else 'Nothing to report at station ' || n || '.' end,
      jsonb_build_object('line', n), 'internal'
    from generate_series(1, 1500) n`);
  await database.db.execute(sql`update submissions set status = 'indexed', chunk_count = 1500 where id = ${submissionId}`);
  await database.db.execute(sql`delete from chunk_lexemes where organization_id = ${orgId}`);
  await database.db.execute(
    sql`insert into chunk_lexemes (organization_id, project_id, lexeme, ndoc) select ${orgId}, ${project.id}, word, ndoc from ts_stat('select tsv from chunks')`,
  );

  const ask = (query: string) =>
    withTenant(database.db, { orgId, userId: 1 }, (tx) =>
      retrieve(tx, { orgId, projectId: project.id, query, access: { kind: 'user', userId: 1, role: 'Owner' }, limit: 5 }),
    );
  const hits = await ask('osprey');
  t.equal(hits.length, 5, 'a full page of passages');
  t.ok(
    hits.every((h) => /osprey/i.test(h.text)),
    'every one holds the word',
  );
  const both = await ask('osprey saltmarsh');
  t.match(both[0]!.text, /saltmarsh/, 'the passage with both words comes first');
});
