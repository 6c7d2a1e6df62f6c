import t from 'tap';
import { localServer } from '../workflows/receivers.js';
import { streamCompletion } from '../../../server/ai/llm.js';

/**
 * F22: an organization's model endpoint (an ai-model plugin instance, `outbound` set by modelFor) is
 * called through core's outbound policy and its error bodies are not quoted; the operator's
 * AI_BASE_URL (no `outbound`) is called directly.
 */
t.test("an organization's model endpoint goes through the outbound policy", async (t) => {
  const model = await localServer(
    t,
    (_r, res) => void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"INTERNAL-SECRET-BODY"}}'),
  );
  const settings = { baseUrl: `${model.url}/v1`, model: 'm', timeoutMs: 5000 };
  const ask = (outbound?: { OUTBOUND_ALLOW?: string }) =>
    streamCompletion({ ...settings, outbound }, [{ role: 'user', content: 'hi' }], () => {}).then(
      () => 'answered',
      (err: Error) => err.message,
    );
  t.match(await ask({}), /^the model could not be reached \(refused: 127\.0\.0\.1 is a loopback address; an operator may allow it with OUTBOUND_ALLOW\)$/);
  t.equal(model.received.length, 0, 'the endpoint received nothing');
  t.equal(await ask({ OUTBOUND_ALLOW: '127.0.0.1/32' }), 'the model answered 500', 'allowed, it is called; its error body is not quoted');
  t.equal(model.received.length, 1);
  t.match(model.received[0], { method: 'POST', path: '/v1/chat/completions' });
  t.match(await ask(undefined), /^the model answered 500: .*INTERNAL-SECRET-BODY/, "the operator's own endpoint is called directly, as before");
});
