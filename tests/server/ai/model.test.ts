import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { summarize } from '../../../server/ai/answer.js';
import { loadConfig } from '../../../server/core/config.js';
import { testApp } from '../../helpers.js';
import { SocketClient } from './socket-client.js';

/** A local server speaking the OpenAI chat-completions streaming protocol; `mode` picks its behaviour. */
async function fakeModel(t: Test) {
  const state = { mode: 'ok' as 'ok' | 'error' | 'break' | 'stall', requests: [] as any[] };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    for await (const c of req) body += c;
    state.requests.push({ url: req.url, auth: req.headers.authorization, body: JSON.parse(body) });
    if (state.mode === 'error') {
      res.writeHead(503, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: { message: 'overloaded' } }));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const pieces = ['Rotate ', 'the keys ', 'with keyctl ', '[1].'];
    for (const [i, p] of pieces.entries()) {
      // Let the first pieces reach the client before the connection drops.
      if (state.mode === 'break' && i === 2) return void setTimeout(() => res.destroy(), 100);
      if (state.mode === 'stall' && i === 2) return; // never ends: the timeout must fire
      res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: p } }] })}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

t.test('an OpenAI-compatible model writes the answer, streamed; its failures fall back to the extractive answer', async (t) => {
  const model = await fakeModel(t);
  const { app, request, login, ticket } = await testApp(t, {
    AI_BASE_URL: model.url,
    AI_API_KEY: 'sk-test',
    AI_MODEL: 'tiny-model',
    // Short, for the stalled stream below, yet long enough that a loaded machine (this test shares two
    // cores with the rest of the suite) still reaches the model in time: at 1.5 s the first answer once
    // timed out before its request was even sent.
    AI_TIMEOUT_MS: '6000',
    JOB_POLL_SECONDS: '0.5',
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const token = await login('owner@example.com');
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } })).body;
  const ws = await SocketClient.open(`ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws?ticket=${await ticket(token)}`);
  t.teardown(() => ws.close());
  const up = await ws.request(
    'text_submission',
    { title: 'Key rotation', text: 'Rotate the kraken keys with keyctl rotate --all.', project_id: project.id },
    'submit_text_response',
  );
  await ws.next((f) => f.type === 'submission_status' && f.data.submission_id === up.data.submission_id && f.data.status === 'indexed');

  const ask = async (id: string) => {
    ws.send('chat', { project_id: project.id, text: 'How do I rotate the kraken keys?' }, id);
    const done = await ws.next((f) => f.id === id && f.type === 'chat_done');
    const tokens = [] as string[];
    let frame;
    while ((frame = ws.frames.find((f) => f.id === id && f.type === 'chat_token'))) {
      ws.frames.splice(ws.frames.indexOf(frame), 1);
      tokens.push(frame.data.text);
    }
    return { done, tokens };
  };

  const ok = await ask('ok');
  t.same(ok.tokens, ['Rotate ', 'the keys ', 'with keyctl ', '[1].'], 'tokens arrive one frame each');
  t.match(ok.done.data, { answer: 'Rotate the keys with keyctl [1].', answered_by: 'tiny-model', notice: null, sources: [{ n: 1, title: 'Key rotation' }] });
  const sent = model.state.requests.at(-1);
  t.equal(sent.url, '/v1/chat/completions');
  t.equal(sent.auth, 'Bearer sk-test');
  t.match(sent.body, { model: 'tiny-model', stream: true });
  t.match(sent.body.messages.at(-1).content, /\[1\] Key rotation\nRotate the kraken keys with keyctl rotate --all\./, 'the model gets the numbered passages');

  model.state.mode = 'error';
  const failed = await ask('error');
  t.match(failed.done.data, {
    answered_by: 'extractive',
    notice: /The AI model could not answer \(the model answered 503/,
    answer: /keyctl rotate --all\. \[1\]/,
  });

  model.state.mode = 'break';
  const broken = await ask('break');
  t.match(broken.done.data, { answered_by: 'extractive', notice: /could not answer/ });
  const reset = ws.frames.find((f) => f.id === 'break' && f.type === 'chat_reset');
  t.ok(reset, 'a partial model answer is reset before the extractive one');

  model.state.mode = 'stall';
  const stalled = await ask('stall');
  t.match(stalled.done.data, { answered_by: 'extractive', notice: /did not answer in time/ }, 'a stalled stream times out instead of hanging');

  // The stored message keeps the notice.
  const chat = await request({ method: 'GET', url: `/api/v1/default/chats/${stalled.done.data.chat_id}`, token });
  t.match(chat.body.messages[1], { answered_by: 'extractive', notice: /did not answer in time/ });
});

t.test('summarize: the model when configured, extractive otherwise or on failure', async (t) => {
  const model = await fakeModel(t);
  const texts = ['The database failover started at 10:02.', 'Failover of the database completed at 10:09 and traffic recovered.', 'Lunch was pizza.'];
  const offline = await summarize(loadConfig({}), texts, { maxSentences: 2 });
  t.match(offline, { answered_by: 'extractive', notice: null });
  t.match(offline.summary, /failover/i);
  t.notMatch(offline.summary, /pizza/, 'the least central sentence is left out');
  const online = await summarize(loadConfig({ AI_BASE_URL: model.url, AI_MODEL: 'tiny-model' }), texts);
  t.match(online, { summary: 'Rotate the keys with keyctl [1].', answered_by: 'tiny-model' });
  model.state.mode = 'error';
  const fallback = await summarize(loadConfig({ AI_BASE_URL: model.url, AI_MODEL: 'tiny-model' }), texts);
  t.match(fallback, { answered_by: 'extractive', notice: /could not summarize/ });
});
