import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { refusal, allowedRanges } from '../../../server/core/http/address-policy.js';
import { outboundFetch, outboundFailure, outboundUrlProblem, RateLimited, rateLimitedFetch, retryAfterSeconds } from '../../../server/core/http/outbound.js';

/** A stand-in listening on `host` (a loopback address); every request it gets is kept. */
async function standIn(t: Test, host: string, answer: (path: string, res: ServerResponse) => void = (_p, res) => void res.end('ok')) {
  const received: string[] = [];
  const server = createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    req.resume();
    answer(req.url!, res);
  });
  server.listen(0, host);
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { received, port: (server.address() as AddressInfo).port };
}

const refusedBy = async (policy: { OUTBOUND_ALLOW?: string }, url: string) =>
  outboundFetch(policy, url, { method: 'POST', body: 'x', signal: AbortSignal.timeout(5000) }).then(
    (res) => `answered ${res.status}`,
    (err) => outboundFailure(err),
  );

t.test('the address policy: each refused kind, its IPv6 forms, and an operator range', async (t) => {
  const none = allowedRanges(undefined);
  const cases: [string, RegExp | null][] = [
    ['127.0.0.1', /loopback/],
    ['127.255.0.9', /loopback/],
    ['10.1.2.3', /private/],
    ['172.31.0.1', /private/],
    ['192.168.1.1', /private/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['169.254.169.254', /cloud metadata/],
    ['169.254.3.4', /link-local/],
    ['0.0.0.0', /unspecified/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /reserved/],
    ['::1', /loopback/],
    ['::', /unspecified/],
    ['fd00:ec2::254', /unique-local/],
    ['fe80::1', /link-local/],
    ['ff02::1', /multicast/],
    ['::ffff:127.0.0.1', /loopback address \(IPv4-mapped 127\.0\.0\.1\)/],
    ['::ffff:a9fe:a9fe', /cloud metadata address \(IPv4-mapped 169\.254\.169\.254\)/],
    ['64:ff9b::a00:1', /private address \(NAT64 10\.0\.0\.1\)/],
    ['2002:7f00:1::', /loopback address \(6to4 127\.0\.0\.1\)/],
    ['93.184.215.14', null],
    ['172.32.0.1', null],
    ['2606:4700::1111', null],
    ['::ffff:8.8.8.8', null],
  ];
  for (const [address, why] of cases) {
    const got = refusal(address, none);
    if (why) t.match(got, why, `${address} refused`);
    else t.equal(got, null, `${address} allowed`);
  }
  const allowed = allowedRanges('127.0.0.0/8, 10.20.0.0/16');
  t.equal(refusal('127.0.0.1', allowed), null, 'an allowed range is reached');
  t.equal(refusal('::ffff:127.0.0.1', allowed), null, 'its IPv4-mapped form too');
  t.equal(refusal('10.20.9.9', allowed), null);
  t.match(refusal('10.21.0.1', allowed), /private/, 'beside the range stays refused');
  t.match(refusal('::1', allowed), /loopback/, 'an IPv4 range does not allow IPv6 loopback');
});

t.test('calls to internal addresses are refused at connect time and the listener receives nothing', async (t) => {
  const target = await standIn(t, '127.0.0.1');
  const p = target.port;
  const attempts: [string, RegExp][] = [
    [`http://127.0.0.1:${p}/a`, /^refused: 127\.0\.0\.1 is a loopback address; an operator may allow it with OUTBOUND_ALLOW$/],
    [`http://127.1:${p}/b`, /127\.0\.0\.1 is a loopback address/],
    [`http://[::ffff:127.0.0.1]:${p}/c`, /::ffff:7f00:1 is a loopback address \(IPv4-mapped 127\.0\.0\.1\)/],
    [`http://0.0.0.0:${p}/d`, /0\.0\.0\.0 is an unspecified address/],
    [`http://localhost:${p}/e`, /^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/],
    [`http://2130706433:${p}/f`, /127\.0\.0\.1 is a loopback address/],
    ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is the cloud metadata address/],
  ];
  for (const [url, why] of attempts) t.match(await refusedBy({}, url), why, url);
  t.same(target.received, [], 'no request reached the listener');
  t.equal(await refusedBy({ OUTBOUND_ALLOW: '127.0.0.1/32' }, `http://127.0.0.1:${p}/allowed`), 'answered 200', 'an operator range lets it through');
  t.same(target.received, ['POST /allowed']);
});

t.test('redirects: each target is judged, at most five are followed', async (t) => {
  const inner = await standIn(t, '127.0.0.2');
  const hops = await standIn(t, '127.0.0.1', (path, res) => {
    const n = Number(path.slice(1).split('?')[0]) || 0;
    res.writeHead(302, { location: path.startsWith('/inner') ? `http://127.0.0.2:${inner.port}/secret` : `/${n + 1}` }).end();
  });
  const only = { OUTBOUND_ALLOW: '127.0.0.1/32' };
  t.match(await refusedBy(only, `http://127.0.0.1:${hops.port}/inner`), /^refused: 127\.0\.0\.2 is a loopback address/, 'a redirect to an internal address');
  t.same(inner.received, [], 'the internal listener received nothing');
  const both = { OUTBOUND_ALLOW: '127.0.0.1/32,127.0.0.2/32' };
  const followed = await outboundFetch(both, `http://127.0.0.1:${hops.port}/inner`, { method: 'POST', body: 'x' });
  t.equal(await followed.text(), 'ok', 'allowed, the same redirect is followed');
  t.same(inner.received, ['GET /secret'], 'a 302 after a POST becomes a GET, as fetch does');
  hops.received.length = 0;
  t.equal(await refusedBy(only, `http://127.0.0.1:${hops.port}/0`), 'refused: more than 5 redirects');
  t.equal(hops.received.length, 6, 'the first request and five redirects');
  const manual = await outboundFetch(only, `http://127.0.0.1:${hops.port}/0`, { redirect: 'manual' });
  t.equal(manual.status, 302, "redirect: 'manual' hands the 3xx back");
});

t.test('a URL is checked when it is saved: scheme, IP literals and loopback names', async (t) => {
  t.match(outboundUrlProblem({}, 'http://127.0.0.1:8807/x'), /127\.0\.0\.1 is a loopback address; an operator may allow it with OUTBOUND_ALLOW/);
  t.match(outboundUrlProblem({}, 'http://[::1]/x'), /::1 is a loopback address/);
  t.match(outboundUrlProblem({}, 'http://LOCALHOST./x'), /localhost\. is a loopback name/i);
  t.match(outboundUrlProblem({}, 'http://169.254.169.254/'), /cloud metadata/);
  t.match(outboundUrlProblem({}, 'ftp://example.com/'), /http or https/);
  t.equal(outboundUrlProblem({}, 'https://hooks.slack.com/services/T/B/x'), null, 'a name is judged when called');
  t.equal(outboundUrlProblem({ OUTBOUND_ALLOW: '127.0.0.0/8' }, 'http://localhost:9/x'), null, 'unless the operator allows loopback');
});

t.test('rate limits: a short Retry-After is waited out in place, a long one is thrown capped, 420 when asked', async (t) => {
  const loopback = { OUTBOUND_ALLOW: '127.0.0.0/8' };
  // Answers 429 with the next queued Retry-After until the queue is empty, then 200.
  const waits: (string | null)[] = [];
  const s = await standIn(t, '127.0.0.1', (_path, res) => {
    if (!waits.length) return void res.end('done');
    const wait = waits.shift();
    res.writeHead(wait === '420' ? 420 : 429, wait && wait !== '420' ? { 'retry-after': wait } : {});
    res.end('slow down');
  });
  const url = `http://127.0.0.1:${s.port}/x`;

  waits.push('1');
  const res = await rateLimitedFetch(loopback, url, {}, { service: 'Stand-in', waitInPlaceUpTo: 2 });
  t.equal(await res.text(), 'done', 'the call after the 1 s wait is answered');
  t.equal(s.received.length, 2);

  waits.push('86400');
  const thrown = await rateLimitedFetch(loopback, url, {}, { service: 'Stand-in', waitInPlaceUpTo: 2 }).catch((e: unknown) => e);
  t.ok(thrown instanceof RateLimited);
  t.equal((thrown as RateLimited).retryAfterSeconds, 3600, 'a day is capped at an hour');
  t.equal((thrown as RateLimited).message, 'Stand-in asked to slow down (429); trying again in 3600 s.');
  t.equal(s.received.length, 3, 'a long wait is not slept: one call');

  waits.push('1', '1');
  const spent = await rateLimitedFetch(loopback, url, {}, { service: 'Stand-in', waitInPlaceUpTo: 5, attempts: 2 }).catch((e: unknown) => e);
  t.equal((spent as RateLimited).retryAfterSeconds, 1, 'the attempts spent, the last wait is thrown');
  t.equal(s.received.length, 5);

  waits.push('420');
  const calm = await rateLimitedFetch(loopback, url, {}, { service: 'Statuspage', limitedStatuses: [429, 420] }).catch((e: unknown) => e);
  t.equal((calm as RateLimited).retryAfterSeconds, 60, '420 counts, with no Retry-After the default minute');
  waits.push('420');
  t.equal((await rateLimitedFetch(loopback, url, {}, { service: 'Other' })).status, 420, 'a 420 is an answer where not asked for');

  const refused = await rateLimitedFetch({}, url, {}, { service: 'Stand-in' }).catch((e: unknown) => outboundFailure(e));
  t.match(refused, /refused: .*loopback/, 'the address policy still applies');

  const now = Date.parse('2026-11-28T12:00:00Z');
  const h = (headers: Record<string, string>) => (n: string) => headers[n];
  t.equal(retryAfterSeconds(h({ 'retry-after': 'Sat, 28 Nov 2026 12:02:00 GMT' }), { now }), 120, 'an HTTP date');
  t.equal(retryAfterSeconds(h({ 'x-ratelimit-reset': String(now / 1000 + 30) }), { now }), 30, "GitHub's reset");
  t.equal(retryAfterSeconds(h({ 'retry-after': '0' }), { now }), 1, 'never less than a second');
  t.equal(retryAfterSeconds(h({ 'retry-after': 'soon' }), { now }), 60, 'unreadable: the fallback');
});
