import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { answer, extractiveAnswer, ungrounded } from '../../../server/ai/answer.js';
import type { Passage } from '../../../server/ai/retrieve.js';
import { loadConfig } from '../../../server/core/config.js';

const passage = (n: number, title: string, text: string, place = {}): Passage => ({
  object_type: 'chunk',
  object_id: n,
  submission_id: n,
  title,
  text,
  place,
  headline: '',
  score: 1,
});

/** Every sentence of an extractive answer ends with its passage's number. */
const sentencesOf = (answer: string) => answer.split('\n\n').flatMap((group) => group.replace(/^From [^:]+: /, '').split(/(?<=\]) /));

t.test('the extractive answer leads with the sentence that answers, every sentence cited', async (t) => {
  const passages = [
    passage(
      1,
      'Key rotation FAQ',
      'How do I rotate the kraken API keys? Rotating the kraken API keys is something every on-call engineer asks about. Kraken API keys matter.',
    ),
    passage(
      2,
      'Kraken runbook',
      'To rotate them, run keyctl rotate --all on the bastion host, then restart the kraken-gateway service. The bastion is in the east region.',
    ),
  ];
  const text = extractiveAnswer('How do I rotate the kraken API keys?', passages);
  t.match(
    text,
    /^From Kraken runbook: To rotate them, run keyctl rotate --all on the bastion host/,
    'the command comes first, although the FAQ repeats more of the question',
  );
  t.notMatch(text, /How do I rotate the kraken API keys\?/, 'the question echoed back is not an answer');
  for (const s of sentencesOf(text)) t.match(s, /\[[12]\]$/, `cited: ${s}`);
});

t.test('a number is preferred when the question asks how long; a setting when it asks for one', async (t) => {
  const timeout = extractiveAnswer('How long is the connection pool timeout for the ledger?', [
    passage(1, 'Ledger notes', 'The ledger connection pool timeout is discussed in the ledger connection pool review.'),
    passage(2, 'Ledger config', 'The ledger connection pool timeout is 45 seconds since March.'),
  ]);
  t.match(timeout, /^From Ledger config: The ledger connection pool timeout is 45 seconds since March\. \[2\]/);

  const setting = extractiveAnswer('Which setting turns off the billing cache?', [
    passage(1, 'Billing overview', 'The billing cache can be turned off, and the billing team knows which setting does it.'),
    passage(2, 'Billing configuration', 'Set BILLING_CACHE_ENABLED=false in billing.env to turn off the billing cache.'),
  ]);
  t.match(setting, /^From Billing configuration: Set BILLING_CACHE_ENABLED=false in billing\.env to turn off the billing cache\. \[2\]/);
  for (const s of [...sentencesOf(timeout), ...sentencesOf(setting)]) t.match(s, /\[\d\]$/);
});

t.test('without a better sentence the repeating one still answers, cited', async (t) => {
  const text = extractiveAnswer('Who owns the heron runbook?', [passage(1, 'Heron', 'The heron runbook is owned by the storage team.')]);
  t.equal(text, 'From Heron: The heron runbook is owned by the storage team. [1]');
});

t.test('the grounding check: every sentence cites a passage it was given', async (t) => {
  t.equal(ungrounded('Run keyctl rotate --all [1]. Then restart the gateway [2].', 2), null);
  t.equal(ungrounded('Run keyctl rotate --all. [1] Steps:\n- restart the gateway [2][1]', 2), null, 'a citation after the stop and a lead-in line are fine');
  t.match(ungrounded('Run keyctl rotate --all.', 2), /cites none of the passages/);
  t.match(ungrounded('Run keyctl rotate --all [3].', 2), /cites passage \[3\], which it was not given/);
  t.match(ungrounded('Run keyctl rotate --all [1]. Then call Bob, he knows.', 2), /a sentence cites no passage \("Then call Bob, he knows\."\)/);
});

/** A local server speaking the chat-completions streaming protocol (SSE), answering `reply` in pieces. */
async function model(t: Test) {
  const state = { reply: '', bodies: [] as { model: string; stream: boolean; messages: { role: string; content: string }[] }[] };
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    state.bodies.push(JSON.parse(body));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const piece of state.reply.match(/\S+\s*/g) ?? [])
      res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: piece } }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

t.test('a model answer stands only when grounded; otherwise the extractive answer replaces it, with a notice', async (t) => {
  const m = await model(t);
  const config = loadConfig({ LOG_LEVEL: 'silent', AI_BASE_URL: m.url, AI_MODEL: 'local-model', AI_TIMEOUT_MS: '5000' });
  const passages = [passage(1, 'Kraken runbook', 'Run keyctl rotate --all on the bastion host.'), passage(2, 'Kraken FAQ', 'Keys expire after 90 days.')];
  const ask = async () => {
    const tokens: string[] = [];
    const resets: string[] = [];
    const result = await answer(config, 'How do I rotate the kraken keys?', passages, { onToken: (x) => tokens.push(x), onReset: (n) => resets.push(n) });
    return { result, tokens, resets };
  };

  m.state.reply = 'Run keyctl rotate --all on the bastion host [1]. Keys expire after 90 days [2].';
  const good = await ask();
  t.match(good.result, { answer: m.state.reply, answered_by: 'local-model', notice: null });
  t.equal(good.tokens.join(''), m.state.reply, 'streamed as it came');
  t.match(m.state.bodies.at(-1), { model: 'local-model', stream: true });
  t.match(m.state.bodies.at(-1)!.messages.at(-1)!.content, /\[1\] Kraken runbook\nRun keyctl rotate --all/);

  for (const [reply, why] of [
    ['Just rotate them with the admin console.', /cites none of the passages/],
    ['Run keyctl rotate --all [1]. Ask the vault team for a token [4].', /cites passage \[4\], which it was not given/],
    ['Run keyctl rotate --all [1]. Then page the vault team.', /a sentence cites no passage/],
  ] as const) {
    m.state.reply = reply;
    const bad = await ask();
    t.equal(bad.result.answered_by, 'extractive', reply);
    t.match(bad.result.notice, why);
    t.match(bad.result.notice, /this answer quotes the sources directly/);
    t.match(bad.result.answer, /^From Kraken runbook: Run keyctl rotate --all on the bastion host\. \[1\]/);
    t.same(bad.resets, [bad.result.notice], 'the client is told to drop the streamed answer');
    t.equal(bad.tokens.join('').endsWith(bad.result.answer), true, 'then the extractive answer streams');
  }
});
