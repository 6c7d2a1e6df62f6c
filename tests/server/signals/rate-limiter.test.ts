import t from 'tap';
import { RateLimiter } from '../../../server/signals/rate-limit.js';

/** A shared bucket in memory, answering after a delay as the database would (no refill: the test is quicker than a token). */
function bucket(tokens: number) {
  const state = { tokens, asked: 0 };
  const reserve = async (_org: unknown, _id: number, _perMinute: number, want: number) => {
    state.asked++;
    await new Promise((r) => setTimeout(r, 1 + Math.random() * 5));
    const granted = Math.min(want, Math.floor(state.tokens));
    state.tokens -= granted;
    return granted;
  };
  return { state, reserve };
}

const org = { orgId: 1, orgSlug: 'default' };

t.test('a source under its limit is never throttled, whatever the mix of request sizes arriving at once', async (t) => {
  for (let round = 0; round < 5; round++) {
    const { reserve } = bucket(12_000);
    const limiter = new RateLimiter(reserve, () => 0);
    // 400 requests of 1 to 50 events (about 10,000 in all, under the 12,000 the bucket holds), all at once.
    const sizes = Array.from({ length: 400 }, (_, i) => 1 + ((i * 37 + round * 11) % 50));
    t.ok(sizes.reduce((a, b) => a + b) < 12_000);
    const waits = await Promise.all(sizes.map((n) => limiter.take(org, 7, 12_000, n)));
    t.equal(waits.filter((w) => w > 0).length, 0, `round ${round}: no request refused`);
  }
});

t.test('over the limit it refuses, and a group larger than the bucket is taken once the bucket is full', async (t) => {
  const { state, reserve } = bucket(100);
  const limiter = new RateLimiter(reserve, () => 0);
  const waits = await Promise.all(Array.from({ length: 30 }, () => limiter.take(org, 7, 100, 5)));
  t.equal(waits.filter((w) => w === 0).length, 20, 'exactly the 100 tokens are granted');
  t.ok(
    waits.filter((w) => w > 0).every((w) => w >= 1),
    'the others are told when to come back',
  );
  const asked = state.asked;
  t.ok((await limiter.take(org, 7, 100, 5)) > 0, 'still refused');
  t.equal(state.asked, asked, 'from memory, while the bucket cannot have refilled');

  const big = new RateLimiter(bucket(100).reserve, () => 0);
  t.equal(await big.take(org, 8, 100, 1_500), 0, 'a 1,500-alert group needs a full bucket, not 1,500 tokens it can never hold');
});
