import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import t from 'tap';
import { rowsOf, testApp } from '../../helpers.js';
import { SocketClient } from './socket-client.js';
import { INDEX_JOB } from '../../../server/ai/ingest.js';

/**
 * An upload and its index job commit together (security review F24: a crash between the two left
 * uploads nothing would index). A failure injected at the job's insert rolls the upload back with it,
 * over HTTP and over the socket; without it, the job is there as soon as the upload is.
 */
t.test('an upload and its index job are one transaction', async (t) => {
  const { app, request, login, ticket, database } = await testApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const db = database.db;
  const token = await login('owner@example.com');
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } })).body;
  const listed = async () =>
    (await request({ method: 'GET', url: `/api/v1/default/submissions?project_id=${project.id}`, token })).body.items as { id: number }[];
  const jobsFor = async (submissionId: number) =>
    rowsOf<{ n: number }>(
      await db.execute(sql`select count(*)::int as n from pgboss.job where name = ${INDEX_JOB} and (data->>'submissionId')::int = ${submissionId}`),
    )[0]!.n;
  const upload = (fileName: string) =>
    request({
      method: 'POST',
      url: `/api/v1/default/submissions/upload?project_id=${project.id}&fileName=${fileName}`,
      token,
      payload: '# Failover\n\nPromote the replica with pg_ctl promote.',
      headers: { 'content-type': 'text/markdown' },
    });
  const ws = await SocketClient.open(`ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws?ticket=${await ticket(token)}`);
  t.teardown(() => ws.close());
  const submitText = (text: string) => ws.request('text_submission', { text, project_id: project.id }, 'submit_text_response');

  // The job's insert fails: the upload must not stay behind without it.
  await db.execute(
    sql.raw(`create function fail_index_job() returns trigger language plpgsql as $$
    begin if new.name = '${INDEX_JOB}' then raise exception 'injected failure'; end if; return new; end $$`),
  );
  await db.execute(sql.raw('create trigger fail_index_job after insert on pgboss.job for each row execute function fail_index_job()'));
  t.equal((await upload('failing.md')).status, 500, 'HTTP: the upload fails with its job');
  t.equal((await submitText('A text whose indexing job cannot be queued.')).type, 'error', 'socket: so does a text submission');
  t.same(await listed(), [], 'and neither left a submission behind');

  await db.execute(sql.raw('drop trigger fail_index_job on pgboss.job'));
  const ok = await upload('runbook.md');
  t.equal(ok.status, 201);
  t.equal(await jobsFor(ok.body.submission_id), 1, 'HTTP: the committed upload has its index job');
  const text = await submitText('Promote the replica, then repoint the app.');
  t.equal(text.data.status, 'success');
  t.equal(await jobsFor(text.data.submission_id), 1, 'socket: so does the text');
  t.same((await listed()).map((s) => s.id).sort(), [ok.body.submission_id, text.data.submission_id].sort());
});
