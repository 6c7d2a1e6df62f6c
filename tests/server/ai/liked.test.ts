import type { AddressInfo } from 'node:net';
import t from 'tap';
import { ask, giveFeedback, likedInProcessing, type Chatter } from '../../../server/ai/chat.js';
import { createSubmission, indexSubmission } from '../../../server/ai/ingest.js';
import { processLikedMessage } from '../../../server/ai/liked.js';
import { planLimits } from '../../../server/billing/limits.js';
import { retrieve } from '../../../server/ai/retrieve.js';
import { withTenant } from '../../../server/core/db/tenant.js';
import { rowsOf, testApp } from '../../helpers.js';
import { SocketClient } from './socket-client.js';

const quiet = { sources: () => {}, token: () => {}, reset: () => {} };

t.test('a liked answer becomes a curated Q&A of the project, then leaves processing; failures keep the reason', async (t) => {
  const { request, login, database, config } = await testApp(t, { AI_LIMITS: JSON.stringify({ free: { files_per_project: 2 } }) });
  const token = await login('owner@example.com');
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } })).body as { id: number };
  const orgId = 1;
  const who: Chatter = { orgId, userId: 1, role: 'Owner', sessionId: null };
  const run = <T>(fn: Parameters<typeof withTenant<T>>[2]) => withTenant(database.db, { orgId, userId: 1 }, fn);
  const q = async (text: string) => rowsOf(await database.db.execute(text));
  const doc = await run((tx) =>
    createSubmission(tx, { orgId, userId: 1, sessionId: null }, planLimits(config, 'free'), {
      kind: 'file',
      projectId: project.id,
      title: 'keys.txt',
      fileName: 'keys.txt',
      content: Buffer.from('To rotate the kraken API keys, run keyctl rotate --all and restart the edge proxies.'),
      sensitivityLevel: 'restricted',
    }),
  );
  await indexSubmission(database.db, orgId, doc.id);

  const first = await ask(database.db, config, who, { project_id: project.id, text: 'How do I rotate the kraken API keys?' }, quiet);
  const vote = await run((tx) => giveFeedback(tx, who, first.message_id, 'like'));
  t.match(vote, { message: 'Thank you for your feedback!', feedback_id: Number });
  t.match(
    await run((tx) => likedInProcessing(tx, orgId, project.id)),
    [{ message_id: first.message_id, question: 'How do I rotate the kraken API keys?', status: 'processing', error: null }],
    'before: listed as processing',
  );

  await processLikedMessage(database.db, config, orgId, vote.feedback_id);
  t.same(await run((tx) => likedInProcessing(tx, orgId, project.id)), [], 'after: no longer listed');
  const [feedback] = await q(`select status, error, submission_id from message_feedback where id = ${vote.feedback_id}`);
  t.match(feedback, { status: 'processed', error: null, submission_id: Number });
  const [qa] = await q(
    `select title, kind, status, sensitivity_level, created_by, (select convert_from(string_agg(data, ''::bytea order by seq), 'UTF8') from submission_parts p where p.submission_id = submissions.id) as content
     from submissions where id = ${feedback!.submission_id}`,
  );
  t.match(
    qa,
    { title: 'Q&A: How do I rotate the kraken API keys?', kind: 'text', status: 'indexed', sensitivity_level: 'restricted', created_by: 1 },
    'as sensitive as the passage it cites',
  );
  t.match(
    qa!.content,
    /^# How do I rotate the kraken API keys\?\n\n.*keyctl rotate --all.* \(keys\.txt, line 1\)\n$/,
    'the question heads the answer, whose markers name what they cited',
  );
  t.notMatch(qa!.content, /\[\d\]/);
  t.match(first.answer, /^From keys\.txt/, 'the liked answer was the offline one, which leads with its source');
  t.notMatch(qa!.content, /From keys\.txt/, 'the Q&A keeps the sentences, not that lead');
  const found = await run((tx) =>
    retrieve(tx, { orgId, projectId: project.id, query: 'kraken key rotation steps', access: { kind: 'user', userId: 1, role: 'Owner' } }),
  );
  t.ok(
    found.some((p) => p.title === 'Q&A: How do I rotate the kraken API keys?'),
    'later questions retrieve the curated Q&A',
  );
  const later = await ask(database.db, config, who, { project_id: project.id, text: 'What are the kraken key rotation steps?' }, quiet);
  t.match(later.answer, /From Q&A: How do I rotate the kraken API keys\?/, 'a later answer quotes the Q&A');
  t.notMatch(later.answer, /From Q&A[^\n]*From keys\.txt/, 'without re-quoting the answer it was made of');

  // Liking again is curated once.
  const again = await run((tx) => giveFeedback(tx, who, first.message_id, 'like'));
  await processLikedMessage(database.db, config, orgId, again.feedback_id);
  const [count] = await q(`select count(*)::int as n from submissions where project_id = ${project.id} and title like 'Q&A:%'`);
  t.equal(Number(count!.n), 1, 'one Q&A per answer');

  // The plan allows two files: a second liked answer fails, with the limit's words.
  const second = await ask(database.db, config, who, { chat_id: first.chat_id, text: 'What do I restart after rotating the kraken keys?' }, quiet);
  const secondVote = await run((tx) => giveFeedback(tx, who, second.message_id, 'like'));
  await processLikedMessage(database.db, config, orgId, secondVote.feedback_id);
  const reason = 'The answer could not be added: File limit reached: your plan allows 2 files per project.';
  t.match(
    await run((tx) => likedInProcessing(tx, orgId, project.id)),
    [{ message_id: second.message_id, status: 'failed', error: reason }],
    'a failed like is listed with its reason',
  );

  // Turning the like into a dislike takes the Q&A back.
  const dislike = await run((tx) => giveFeedback(tx, who, first.message_id, 'dislike'));
  await processLikedMessage(database.db, config, orgId, dislike.feedback_id);
  const [left] = await q(`select count(*)::int as n from submissions where id = ${feedback!.submission_id}`);
  t.equal(Number(left!.n), 0, 'the Q&A is removed');
  t.match((await q(`select status, submission_id from message_feedback where id = ${dislike.feedback_id}`))[0], { status: 'processed', submission_id: null });
});

t.test('the job runs on the queue: the liker hears over the socket, and a chat without a project fails with the reason', async (t) => {
  const { app, request, login, ticket } = await testApp(t, { JOB_POLL_SECONDS: '0.5' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const token = await login('owner@example.com');
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } })).body as { id: number };
  const ws = await SocketClient.open(`ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws?ticket=${await ticket(token)}`);
  t.teardown(() => ws.close());
  const up = await ws.request(
    'text_submission',
    { title: 'Pager rota', text: 'The ocelot pager rota changes every Monday at nine.', project_id: project.id },
    'submit_text_response',
  );
  await ws.next((f) => f.type === 'submission_status' && f.data.submission_id === up.data.submission_id && f.data.status === 'indexed');

  const done = await ws.request('chat', { project_id: project.id, text: 'When does the ocelot pager rota change?' }, 'chat_done');
  const liked = await ws.request('message_feedback', { message_id: done.data.message_id, value: 'like' }, 'message_feedback_response');
  t.equal(liked.data.message, 'Thank you for your feedback!');
  const status = await ws.next((f) => f.type === 'liked_message_status' && f.data.message_id === done.data.message_id);
  t.match(status.data, { status: 'processed', error: null, submission_id: Number, project_id: project.id });
  t.same(
    (await ws.request('fetch_liked_messages_processing', { project_id: project.id }, 'liked_messages_processing')).data.messages,
    [],
    'processed likes leave the list',
  );
  const list = await ws.request('fetch_submissions', { project_id: project.id }, 'submissions');
  t.match(
    list.data.items.find((s: { id: number }) => s.id === status.data.submission_id),
    { title: 'Q&A: When does the ocelot pager rota change?', status: 'indexed' },
  );

  // The REST vote queues the same job.
  const loose = await ws.request('chat', { text: 'When does the ocelot pager rota change?' }, 'chat_done');
  const rest = await request({ method: 'POST', url: `/api/v1/default/chat_messages/${loose.data.message_id}/feedback`, token, payload: { value: 'like' } });
  t.equal(rest.status, 200);
  const failed = await ws.next((f) => f.type === 'liked_message_status' && f.data.message_id === loose.data.message_id);
  t.match(failed.data, { status: 'failed', error: 'The chat belongs to no project, so there is no project to add the answer to.', submission_id: null });
});
