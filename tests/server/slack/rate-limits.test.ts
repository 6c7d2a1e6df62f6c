import t from 'tap';
import { limitOf, POSTING_MARGIN_MS, RateLimiter } from '../../../server/slack/rate-limits.js';

/** The limiter on a clock the test moves. */
const limiter = () => {
  const clock = { now: 1_000_000 };
  return { clock, limiter: new RateLimiter(() => clock.now) };
};

t.test("a method's tier: its calls of the minute go at once, the next waits for the oldest to leave the minute", async (t) => {
  const { clock, limiter: l } = limiter();
  const create = limitOf('conversations.create', {});
  const waits = Array.from({ length: 20 }, () => l.reserve('ws', create, 5000).wait);
  t.same(waits, Array(20).fill(0), 'Tier 2: 20 a minute');
  t.equal(l.reserve('ws', create, 5000).wait, 60_000, 'the 21st: a minute after the first (left to the job queue)');
  clock.now += 58_000;
  t.equal(l.reserve('ws', create, 5000).wait, 2000, 'two seconds before a slot frees: slept, and the slot reserved');
  t.equal(l.reserve('ws', create, 5000).wait, 2000, 'the 20 first calls leave together; the next caller takes the next free place');
  t.equal(l.reserve('other workspace', create, 5000).wait, 0, 'another workspace counts on its own');
  t.equal(l.reserve('ws', limitOf('users.lookupByEmail', {}), 5000).wait, 0, 'and another method');
  t.equal(limitOf('users.lookupByEmail', {}).calls, 50, 'Tier 3');
  t.equal(limitOf('views.open', {}).calls, 100, 'Tier 4');
  t.equal(limitOf('apps.connections.open', {}).calls, 1, 'Tier 1');
});

t.test('posting: one message per second per channel, with a margin; callers queue behind each other', async (t) => {
  const { clock, limiter: l } = limiter();
  const inOps = limitOf('chat.postMessage', { channel: 'C1' });
  t.equal(inOps.windowMs, 1000 + POSTING_MARGIN_MS, "a little more than Slack's second");
  t.equal(l.reserve('ws', inOps, 5000).wait, 0);
  t.equal(l.reserve('ws', inOps, 5000).wait, 1100, 'the second waits a second and the margin');
  t.equal(l.reserve('ws', inOps, 5000).wait, 2200, 'the third, twice that');
  t.equal(l.reserve('ws', limitOf('chat.postMessage', { channel: 'C2' }), 5000).wait, 0, 'another channel is not held up');
  t.equal(l.reserve('ws', inOps, 3000).wait, 3300, 'a wait longer than the caller takes…');
  t.equal(l.reserve('ws', inOps, 5000).wait, 3300, '…reserves nothing');
  clock.now += 10_000;
  t.equal(l.reserve('ws', inOps, 0).wait, 0, 'later, at once again');
});

t.test('a call is counted from when Slack answered it: the next one is spaced from its arrival, not its start', async (t) => {
  const { clock, limiter: l } = limiter();
  const inOps = limitOf('chat.postMessage', { channel: 'C1' });
  const first = l.reserve('ws', inOps, 5000);
  t.equal(first.wait, 0);
  clock.now += 400; // its way to Slack and back took 400 ms
  first.answered();
  t.equal(l.reserve('ws', inOps, 5000).wait, 1100, 'a full second and the margin after the answer');
});
