import t from 'tap';
import { sql } from 'drizzle-orm';
import { oncallApp } from './helpers.js';
import { ntfyStandIn } from '../../stand-ins/ntfy.js';
import { twilioStandIn } from '../../stand-ins/twilio.js';
import { startStandIn, send } from '../../stand-ins/base.js';

t.test('channels: ntfy, Twilio SMS and voice, a webhook, each with its delay; a person tests their own', async (t) => {
  const o = await oncallApp(t);
  const ntfy = await ntfyStandIn({ token: 'tk_secret' });
  const twilio = await twilioStandIn('AC123', 'twilio-token');
  const hook = await startStandIn((_req, res) => send(res, 204, ''));
  t.teardown(() => Promise.all([ntfy.close(), twilio.close(), hook.close()]));
  await o.ok('POST', '/plugins/instances', { plugin_slug: 'ntfy', title: 'Push', configuration: { server_url: ntfy.url, access_token: 'tk_secret' } });
  await o.ok('POST', '/plugins/instances', {
    plugin_slug: 'twilio',
    title: 'Phone',
    configuration: { account_sid: 'AC123', auth_token: 'twilio-token', from_number: '+15005550006', api_url: twilio.url },
  });

  const me = 'commander@example.com';
  const push = await o.ok('POST', '/oncall/channels', { kind: 'ntfy', address: 'cmd-pages' });
  const sms = await o.ok('POST', '/oncall/channels', { kind: 'sms', address: '+4915112345678', delay_minutes: 2 });
  await o.ok('POST', '/oncall/channels', { kind: 'voice', address: '+4915112345678', delay_minutes: 5 });
  await o.ok('POST', '/oncall/channels', { kind: 'webhook', address: `${hook.url}/page` });
  const bad = await o.api('POST', '/oncall/channels', { kind: 'sms', address: '0151 123' });
  t.match([bad.status, bad.body.detail[0].loc], [422, ['body', 'address']], 'a phone number must be E.164');

  const tested = await o.api('POST', `/oncall/channels/${push.id}/test`);
  t.same(tested.body, { ok: true, error: null }, 'testing my own channel sends to it');
  t.match(ntfy.requests.at(-1), { method: 'POST', path: '/cmd-pages', headers: { title: 'Firewatch test message', authorization: 'Bearer tk_secret' } });

  const page = await o.ok('POST', '/oncall/pages', { title: 'Queue stuck', email: me });
  await o.drainOncall();
  const pushed = ntfy.requests.at(-1)!;
  t.match(pushed.headers, { title: 'PAGE: Queue stuck', priority: '5' });
  t.match(
    String(pushed.headers.actions),
    /^http, Acknowledge, http:\/\/\S+\/oncall\/respond\/\S+, method=POST, clear=true; view, Resolve, /,
    'one tap acknowledges',
  );
  t.match(JSON.parse(hook.requests.at(-1)!.body), { type: 'page.triggered', page: { id: page.id, title: 'Queue stuck' }, links: { acknowledge: /respond/ } });
  t.equal(twilio.requests.length, 0, 'SMS waits its two minutes');
  // The two minutes pass while nobody acknowledges: the delayed deliveries fall due.
  await o.exec(sql`update pgboss.job set start_after = now() where name = 'oncall-deliver' and state = 'created'`);
  await o.drainOncall();
  const texts = twilio.requests.map((r) => [r.path, new URLSearchParams(r.body).get('To')]).sort((a, b) => String(b[0]).localeCompare(String(a[0])));
  t.same(texts, [
    ['/2010-04-01/Accounts/AC123/Messages.json', '+4915112345678'],
    ['/2010-04-01/Accounts/AC123/Calls.json', '+4915112345678'],
  ]);
  t.match(new URLSearchParams(twilio.requests.find((r) => r.path.endsWith('Calls.json'))!.body).get('Twiml'), /<Say>PAGE: Queue stuck/);

  // Twilio refusing (an invalid number) fails the delivery and says why; a 429 is waited out.
  await o.ok('PUT', `/oncall/channels/${sms.id}`, { address: '+1' + '5'.repeat(14) });
  twilio.fail(/Messages/, { status: 429, headers: { 'retry-after': '1' }, body: { code: 20429, message: 'Too Many Requests', status: 429 } });
  const tried = await o.api('POST', `/oncall/channels/${sms.id}/test`);
  t.same(tried.body, { ok: true, error: null }, 'a 429 with Retry-After is waited out and tried again');
  twilio.fail(/Messages/, { status: 400, body: { code: 21211, message: "The 'To' number is not a valid phone number.", status: 400 } });
  const refused = await o.api('POST', `/oncall/channels/${sms.id}/test`);
  t.match(refused.body, { ok: false, error: /answered 400: .*21211/ });

  // Someone else's channels are theirs.
  const member = await o.login('member@example.com', { role: 'Member' });
  const theirs = await o.api('GET', '/oncall/channels?email=commander@example.com', undefined, member);
  t.equal(theirs.status, 403);
  t.equal((await o.api('POST', `/oncall/channels/${push.id}/test`, undefined, member)).status, 403);
});

t.test('one channel of a delivery batch fails: the retry sends only that one, nothing is sent twice', async (t) => {
  const o = await oncallApp(t);
  const ntfy = await ntfyStandIn({ token: 'tk_secret' });
  let failures = 1;
  const hook = await startStandIn((_req, res) => (failures-- > 0 ? send(res, 502, 'bad gateway') : send(res, 204, '')));
  t.teardown(() => Promise.all([ntfy.close(), hook.close()]));
  await o.ok('POST', '/plugins/instances', { plugin_slug: 'ntfy', title: 'Push', configuration: { server_url: ntfy.url, access_token: 'tk_secret' } });
  const me = 'commander@example.com';
  await o.ok('POST', '/oncall/channels', { kind: 'ntfy', address: 'cmd-pages' });
  await o.ok('POST', '/oncall/channels', { kind: 'webhook', address: `${hook.url}/page` });
  await o.ok('POST', '/oncall/pages', { title: 'Disk full', email: me });
  await o.drainOncall();
  const states = async () =>
    Object.fromEntries(
      (await o.exec<{ kind: string; status: string; error: string | null }>(sql`select kind, status, error from oncall_notifications order by id`)).map((n) => [
        n.kind,
        [n.status, n.error],
      ]),
    );
  t.match(await states(), { ntfy: ['sent', null], webhook: ['failed', /answered 502/] }, 'the webhook failed and says why');
  t.equal(hook.requests.length, 1);

  // The job's retry falls due (pg-boss waits its delay; the test does not).
  await o.exec(sql`update pgboss.job set start_after = now() where name = 'oncall-deliver' and state = 'retry'`);
  await o.drainOncall();
  t.match(await states(), { ntfy: ['sent', null], webhook: ['sent', null] }, 'the retry delivered it');
  t.equal(hook.requests.length, 2, 'the webhook was called again');
  t.equal(ntfy.requests.length, 1, 'the push that went through was not sent again');
});
