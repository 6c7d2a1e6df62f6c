import t from 'tap';
import { createSubmission } from '../../../server/ai/ingest.js';
import { planLimits } from '../../../server/billing/limits.js';
import { withTenant } from '../../../server/core/db/tenant.js';
import { rowsOf, testApp } from '../../helpers.js';

// A client that reads right after a write's answer must see the write: the answer may only go out once
// the transaction committed. The tenancy plugin refuses a reply sent while inTenant's transaction is open
// (a 500, which the statuses below catch on both databases). On PostgreSQL a deferred trigger also makes
// every COMMIT on the watched tables take 300 ms, so an early answer would arrive while the old rows are
// still what other connections see (embedded PGlite runs one statement at a time: no read overtakes there).
t.test('write routes answer after their transaction committed', async (t) => {
  const { request, login, database, config } = await testApp(t);
  const token = await login('owner@example.com');
  const rows = async (text: string) => rowsOf(await database.db.execute(text));
  const count = async (table: string, id: string | number) => Number((await rows(`select count(*)::int as n from ${table} where id = '${id}'`))[0]!.n);
  await rows(`create function slow_commit() returns trigger language plpgsql as $$ begin perform pg_sleep(0.3); return null; end $$`);
  for (const table of ['tag_types', 'tags', 'chats', 'submissions']) {
    await rows(
      `create constraint trigger slow_commit after insert or update or delete on ${table} deferrable initially deferred for each row execute function slow_commit()`,
    );
  }
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } })).body as { id: number };
  const [org] = await rows(`select id from organizations where slug = 'default'`);
  const orgId = Number(org!.id);

  const type = await request({ method: 'POST', url: '/api/v1/default/tag_types', token, payload: { name: 'Environment' } });
  const tag = await request({ method: 'POST', url: '/api/v1/default/tags', token, payload: { name: 'prod', tag_type_id: type.body.id } });
  t.equal(tag.status, 201);
  t.equal(await count('tag_types', type.body.id), 1, 'a created tag type is there once its 201 arrives');
  t.equal(await count('tags', tag.body.id), 1, 'a created tag is there once its 201 arrives');
  t.equal((await request({ method: 'PUT', url: `/api/v1/default/tags/${tag.body.id}`, token, payload: { name: 'production' } })).status, 200);
  t.equal((await rows(`select name from tags where id = ${tag.body.id}`))[0]!.name, 'production', 'an update is seen once its answer arrives');
  t.equal((await request({ method: 'DELETE', url: `/api/v1/default/tags/${tag.body.id}`, token })).status, 204);
  t.equal(await count('tags', tag.body.id), 0, 'a deleted tag is gone once its 204 arrives');

  const [chat] = await rows(`insert into chats (organization_id, project_id, title, user_id) values (${orgId}, ${project.id}, 'Outage', 1) returning id`);
  t.equal((await request({ method: 'DELETE', url: `/api/v1/default/chats/${chat!.id}`, token })).status, 204);
  t.equal(await count('chats', String(chat!.id)), 0, 'a deleted chat is gone once its 204 arrives');

  const submission = await withTenant(database.db, { orgId, userId: null }, (tx) =>
    createSubmission(tx, { orgId, userId: 1, sessionId: null }, planLimits(config, 'free'), {
      kind: 'text',
      projectId: project.id,
      title: 'note',
      content: Buffer.from('The pangolin archive.'),
      sensitivityLevel: 'internal',
    }),
  );
  t.equal((await request({ method: 'DELETE', url: `/api/v1/default/submissions/${submission.id}`, token })).status, 204);
  t.equal(await count('submissions', submission.id), 0, 'a deleted submission is gone once its 204 arrives');
});
