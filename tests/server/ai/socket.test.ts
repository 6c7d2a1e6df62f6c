import type { AddressInfo } from 'node:net';
import t from 'tap';
import { testApp } from '../../helpers.js';
import { makePdf } from './fixtures.js';
import { SocketClient } from './socket-client.js';

t.test('live socket: limits, uploads with indexing progress, chat with citations, malformed frames', async (t) => {
  const { app, request, login, ticket } = await testApp(t, { AI_LIMITS: JSON.stringify({ free: { messages_per_day: 3 } }), JOB_POLL_SECONDS: '0.5' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws`;
  const token = await login('owner@example.com');
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } })).body;

  const ws = await SocketClient.open(`${base}?ticket=${await ticket(token)}`);
  t.teardown(() => ws.close());

  const limits = await ws.request('fetch_limits', {}, 'limits');
  t.match(limits.data, { plan: 'free', messages_per_day: 3, messages_today: 0 }, 'fetch_limits answers the plan limits');

  // Malformed and unknown messages: an error frame each, and the socket keeps working.
  ws.ws.send('{not json');
  t.match((await ws.next((f) => f.type === 'error')).data.detail[0], { msg: 'The message is not valid JSON.', type: 'json_invalid' });
  ws.send('launch_rockets', {}, 'r1');
  t.match(await ws.next((f) => f.id === 'r1'), { type: 'error', data: { detail: [{ msg: "Unknown message type 'launch_rockets'." }] } });
  ws.send('fetch_submissions', { project_id: 'seven', extra: 1 }, 'r2');
  const bad = await ws.next((f) => f.id === 'r2');
  t.equal(bad.type, 'error');
  t.ok(
    bad.data.detail.some((d: { loc: unknown[] }) => d.loc.includes('project_id')),
    'names the bad field',
  );
  t.ok(
    bad.data.detail.some((d: { msg: string }) => d.msg === "Unknown field 'extra'."),
    'names the unknown field',
  );
  ws.ws.send(JSON.stringify([1, 2]));
  t.match((await ws.next((f) => f.type === 'error')).data.detail[0].type, 'frame_invalid');
  t.match(
    (await ws.request('fetch_submissions', { project_id: 9999 }, 'submissions')).data.detail[0].msg,
    "Project '9999' could not be found.",
    'other ids are refused',
  );

  // Upload a PDF and watch it index.
  const pdf = await makePdf([['Intro page.'], ['To rotate the kraken API keys, run keyctl rotate --all and restart the edge proxies.']]);
  const up = await ws.request(
    'file_upload',
    {
      fileName: 'keys.pdf',
      fileType: 'application/pdf',
      fileContent: pdf.toString('base64'),
      buildIndex: true,
      project_id: project.id,
      eccs_project_id: 'eccs-1',
      sensitivityLevel: 'internal',
    },
    'submit_file_response',
  );
  t.match(up.data, { status: 'success', submission_id: Number, fileName: 'keys.pdf' });
  const indexed = await ws.next((f) => f.type === 'submission_status' && f.data.submission_id === up.data.submission_id && f.data.status === 'indexed');
  t.equal(indexed.data.progress, 100, 'progress reaches 100');
  const list = await ws.request('fetch_submissions', { project_id: project.id }, 'submissions');
  t.match(list.data.items[0], { id: up.data.submission_id, status: 'indexed', fileName: 'keys.pdf', eccs_project_id: 'eccs-1', chunk_count: 2 });

  const unsupported = await ws.request(
    'file_upload',
    { fileName: 'tool.exe', fileContent: Buffer.from('MZ').toString('base64'), project_id: project.id },
    'submit_file_response',
  );
  t.match(unsupported.data, { status: 'error', submission_id: null, message: /^Upload failed: Unsupported file type 'tool.exe'/ });

  const text = await ws.request(
    'text_submission',
    { text: 'The heron runbook says: page the database team first.', project_id: project.id },
    'submit_text_response',
  );
  t.match(text.data, { status: 'success' });

  // Chat: sources, then tokens, then done; the answer cites the PDF page.
  const id = 'chat-1';
  ws.send('chat', { project_id: project.id, text: 'How do I rotate the kraken API keys?' }, id);
  const sources = await ws.next((f) => f.id === id && f.type === 'chat_sources');
  t.match(sources.data.sources[0], { n: 1, object_type: 'chunk', title: 'keys.pdf', place: { page: 2 } });
  const firstToken = await ws.next((f) => f.id === id && f.type === 'chat_token');
  t.type(firstToken.data.text, 'string');
  const done = await ws.next((f) => f.id === id && f.type === 'chat_done');
  t.match(done.data.answer, /keyctl rotate --all/, 'the answer quotes the passage');
  t.match(done.data.answer, /\[1\]/, 'and cites it');
  t.match(done.data, { answered_by: 'extractive', notice: null, chat_id: String, message_id: Number });

  // Opening the citation gives the passage at its place.
  const opened = await ws.request(
    'fetch_object_content',
    { object_type: 'chunk', object_id: sources.data.sources[0].object_id, chat_id: done.data.chat_id, is_shared_view: false },
    'object_content',
  );
  t.match(opened.data, { object_type: 'chunk', place: { page: 2 }, submission: { title: 'keys.pdf' }, text: /kraken/ });

  // Follow-up in the same chat, then reopen it over REST.
  const again = await ws.request('chat', { chat_id: done.data.chat_id, text: 'Who do we page for the heron runbook?' }, 'chat_done');
  t.equal(again.data.chat_id, done.data.chat_id);
  const reopened = await request({ method: 'GET', url: `/api/v1/default/chats/${done.data.chat_id}`, token });
  t.same(
    reopened.body.messages.map((m: { role: string }) => m.role),
    ['user', 'assistant', 'user', 'assistant'],
    'chat?chat_id= reopens the stored chat',
  );

  // Like → thanks → processed by the queue's job (liked.test.ts shows the processing state) → off the list.
  const liked = await ws.request('message_feedback', { message_id: done.data.message_id, value: 'like' }, 'message_feedback_response');
  t.equal(liked.data.message, 'Thank you for your feedback!');
  t.match((await ws.next((f) => f.type === 'liked_message_status' && f.data.message_id === done.data.message_id)).data, { status: 'processed' });
  const processing = await ws.request('fetch_liked_messages_processing', { project_id: project.id }, 'liked_messages_processing');
  t.same(processing.data.messages, []);

  // Third message hits the daily limit of 3? Two were asked; the third passes, the fourth is refused.
  await ws.request('chat', { chat_id: done.data.chat_id, text: 'anything else?' }, 'chat_done');
  const refused = await ws.request('chat', { chat_id: done.data.chat_id, text: 'one more' }, 'chat_done');
  t.match(refused, { type: 'error', data: { detail: [{ msg: 'Message limit reached: your plan allows 3 messages per day.', type: 'limit_reached' }] } });

  // Sharing opens the chat read-only, and its citations, without signing in.
  await request({ method: 'PUT', url: `/api/v1/default/chats/${done.data.chat_id}`, token, payload: { shared: true } });
  const shared = await request({ method: 'GET', url: `/api/v1/default/chats/shared/${done.data.chat_id}` });
  t.match(shared, { status: 200, body: { read_only: true, title: 'How do I rotate the kraken API keys?' } });
  const stranger = await SocketClient.open(base);
  t.teardown(() => stranger.close());
  t.match(
    (await stranger.request('fetch_limits', {}, 'limits')).data.detail[0].msg,
    'No authentication or temporary session found',
    'an unauthenticated socket reaches nothing private',
  );
  t.match(
    (
      await stranger.request(
        'fetch_object_content',
        { object_type: 'chunk', object_id: sources.data.sources[0].object_id, chat_id: done.data.chat_id, is_shared_view: true },
        'object_content',
      )
    ).data.detail[0].msg,
    /could not be found/,
    "nor a shared chat's citation of an internal upload (public ones open: shared-visibility.test.ts)",
  );
  await request({ method: 'PUT', url: `/api/v1/default/chats/${done.data.chat_id}`, token, payload: { shared: false } });
  t.match(
    (
      await stranger.request(
        'fetch_object_content',
        { object_type: 'chunk', object_id: sources.data.sources[0].object_id, chat_id: done.data.chat_id, is_shared_view: true },
        'object_content',
      )
    ).data.detail[0].msg,
    /could not be found/,
    'not once unshared',
  );
  t.equal((await request({ method: 'GET', url: `/api/v1/default/chats/shared/${done.data.chat_id}` })).status, 404);
});
