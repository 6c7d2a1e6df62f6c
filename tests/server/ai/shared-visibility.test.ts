import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import t from 'tap';
import { testApp } from '../../helpers.js';
import { SocketClient } from './socket-client.js';
import { redactAnswer, WITHHELD_NOTE } from '../../../server/ai/shared-view.js';

/**
 * A shared chat shows readers who are not signed in public material only, checked when they read it:
 * an incident its answer quoted is withheld (also after it is made Restricted), a public upload shown.
 */

const DESCRIPTION = 'An engineer pasted the numbat vault password into a public bug report and it was rotated.';
const PUBLIC_TEXT = 'To rotate the numbat vault password run vaultctl rotate --numbat on the bastion host.';
const INTERNAL_TEXT = 'The numbat vault password escrow copy sits in the numbat safe behind the wombat door.';

t.test('a shared chat withholds incident passages from anonymous readers, at every view', async (t) => {
  const { app, request, login, ticket } = await testApp(t, { JOB_POLL_SECONDS: '0.5' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const wsBase = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws`;
  const owner = await login('owner@example.com');
  const member = await login('member@example.com', { role: 'Member' });
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token: owner, payload: { name: 'Ops' } })).body;
  const incident = await request({
    method: 'POST',
    url: '/api/v1/default/iaos',
    token: owner,
    payload: { title: 'Numbat vault password leak', description: DESCRIPTION, project_id: project.id },
  });
  t.equal(incident.status, 201);

  const memberWs = await SocketClient.open(`${wsBase}?ticket=${await ticket(member)}`);
  t.teardown(() => memberWs.close());
  for (const [text, level] of [
    [PUBLIC_TEXT, 'public'],
    [INTERNAL_TEXT, 'internal'],
  ] as const) {
    const up = await memberWs.request('text_submission', { text, project_id: project.id, sensitivityLevel: level }, 'submit_text_response');
    await memberWs.next((f) => f.type === 'submission_status' && f.data.submission_id === up.data.submission_id && f.data.status === 'indexed');
  }
  const asked = await memberWs.request('chat', { project_id: project.id, text: 'How do I rotate the numbat vault password after the leak?' }, 'chat_done');
  const chatId = asked.data.chat_id as string;
  t.match(asked.data.answer, DESCRIPTION.slice(0, 40), "the member's own answer quotes the open incident");
  t.match(asked.data.answer, 'vaultctl rotate', 'and the public upload');
  t.ok(
    asked.data.sources.some((s: { object_type: string }) => s.object_type === 'incident'),
    'the incident is cited',
  );

  const preview = await request({ method: 'GET', url: `/api/v1/default/chats/${chatId}/share-preview`, token: member });
  t.equal(preview.status, 200);
  t.equal(preview.body.withheld, 2, 'the share dialog hears that the incident and the internal upload would be withheld');
  t.match(
    preview.body.sources.find((s: { object_type: string }) => s.object_type === 'incident'),
    { public: false, reason: /incident/i },
  );
  t.equal((await request({ method: 'PUT', url: `/api/v1/default/chats/${chatId}`, token: member, payload: { shared: true } })).status, 200);

  /** Everything a reader nobody signed in gets: the shared chat, and every citation opened over the socket. */
  const anonymousRead = async () => {
    const shared = await request({ method: 'GET', url: `/api/v1/default/chats/shared/${chatId}` });
    t.equal(shared.status, 200);
    const raw: string[] = [];
    const ws = await SocketClient.open(wsBase);
    ws.ws.on('message', (m: WebSocket.RawData) => raw.push(m.toString()));
    const answerMessage = shared.body.messages.find((m: { role: string }) => m.role === 'assistant');
    const opened: { n: number; type: string }[] = [];
    for (const s of asked.data.sources as { n: number; object_type: string; object_id: number }[]) {
      if (s.object_type !== 'chunk') continue;
      const reply = await ws.request(
        'fetch_object_content',
        { object_type: 'chunk', object_id: s.object_id, chat_id: chatId, is_shared_view: true },
        'object_content',
      );
      opened.push({ n: s.n, type: reply.type });
    }
    ws.close();
    return { body: shared.body, text: JSON.stringify(shared.body) + raw.join('\n'), answer: answerMessage, opened };
  };

  const first = await anonymousRead();
  t.notMatch(first.text, DESCRIPTION.slice(0, 40), 'no anonymous answer or socket frame carries the incident description');
  t.notMatch(first.text, 'wombat door', 'nor the internal upload');
  t.match(first.answer.text, 'vaultctl rotate', 'the public upload passage is shown');
  t.match(first.answer.text, WITHHELD_NOTE, 'the withheld part is named as such');
  t.equal(first.answer.withheld, 2);
  t.ok(
    first.answer.sources.some((s: { object_type: string; title: string }) => s.object_type === 'withheld' && /sign in to see/.test(s.title)),
    'the citation list names a source to sign in for',
  );
  t.same(first.opened.map((o) => o.type).sort(), ['error', 'object_content'], 'over the socket the public passage opens and the internal one does not');

  const asMember = await request({ method: 'GET', url: `/api/v1/default/chats/shared/${chatId}`, token: member });
  t.match(JSON.stringify(asMember.body), DESCRIPTION.slice(0, 40), 'a signed-in member reads the open incident in the shared chat');

  t.equal((await request({ method: 'PUT', url: `/api/v1/default/iaos/${incident.body.id}`, token: owner, payload: { visibility: 'Restricted' } })).status, 200);
  const after = await anonymousRead();
  t.notMatch(after.text, DESCRIPTION.slice(0, 40), 'after the incident is restricted, anonymous readers still do not see it');
  t.match(after.answer.text, 'vaultctl rotate');
  const memberAfter = await request({ method: 'GET', url: `/api/v1/default/chats/shared/${chatId}`, token: member });
  t.notMatch(JSON.stringify(memberAfter.body), DESCRIPTION.slice(0, 40), 'nor does the member, who is not on the now restricted incident');
  const ownerAfter = await request({ method: 'GET', url: `/api/v1/default/chats/shared/${chatId}`, token: owner });
  t.match(JSON.stringify(ownerAfter.body), DESCRIPTION.slice(0, 40), 'an owner, who may see restricted incidents, still does');
});

t.test('redacting an answer: sentences citing a hidden source go, the rest stay as written', async (t) => {
  const extractive = 'From guide.md: Run vaultctl rotate. [1]\n\nFrom Incident IAO-5: Leak: the password is hunter2. [2]';
  t.equal(redactAnswer(extractive, new Set([2])), `From guide.md: Run vaultctl rotate. [1]\n\n${WITHHELD_NOTE}`);
  const model = 'Rotate the key with vaultctl [1]. The leaked key was hunter2 [2]. Both steps are logged [1][2].\n\nAsk the on-call [1].';
  const redacted = redactAnswer(model, new Set([2]));
  t.notMatch(redacted, 'hunter2');
  t.notMatch(redacted, 'Both steps', 'a sentence citing a hidden and a shown source goes too');
  t.match(redacted, 'Rotate the key with vaultctl [1].');
  t.match(redacted, 'Ask the on-call [1].');
  t.equal(redactAnswer(model, new Set()), model, 'nothing hidden: unchanged');
});
