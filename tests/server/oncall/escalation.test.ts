import t from 'tap';
import { sql } from 'drizzle-orm';
import { buildApp } from '../../../server/app.js';
import { openDatabase } from '../../../server/core/db/client.js';
import { escalateDue } from '../../../server/oncall/escalation.js';
import { oncallApp, linksOf, pathOf } from './helpers.js';

t.test('escalation: step 1, then step 2 after its timeout; acknowledging stops it; a second process continues a crashed step once', async (t) => {
  const o = await oncallApp(t);
  const schedule = await o.ok('POST', '/oncall/schedules', o.weekly(['ana@example.com']));
  const policy = await o.ok('POST', '/oncall/escalation_policies', {
    name: 'Payments',
    steps: [
      { timeout_minutes: 5, targets: [{ type: 'schedule', id: schedule.id }] },
      { timeout_minutes: 10, targets: [{ type: 'person', email: 'boss@example.com' }] },
    ],
  });
  const service = await o.ok('POST', '/services', { name: 'payments', type: 'firewatch-oncall', external_id: String(policy.id) });
  t.same(
    (await o.api('GET', `/oncall/services/${service.id}/oncall`)).body.oncall,
    [{ email: 'ana@example.com', level: 1 }],
    "the service's on-call is the schedule's",
  );

  const first = await o.api('POST', '/oncall/pages', { title: 'Checkout errors', service_id: service.id, key: 'k1' });
  t.equal(first.status, 201);
  const again = await o.api('POST', '/oncall/pages', { title: 'Checkout errors', service_id: service.id, key: 'k1' });
  t.same([again.status, again.body], [200, { id: first.body.id, created: false }], 'the same key answers the same page');
  await o.drainOncall();
  const mails = () => o.outbox.filter((m) => m.subject.includes('Checkout errors'));
  t.same(
    mails().map((m) => m.to),
    ['ana@example.com'],
    'step 1 pages the on-call of the schedule',
  );

  const page = async () => (await o.exec<any>(sql`select state, step, round, next_step, next_at from oncall_pages where id = ${first.body.id}`))[0];
  t.match(await page(), { state: 'triggered', step: 0, next_step: 1 }, 'step 2 is due after the timeout');
  // The timeout passing: the page falls due.
  await o.exec(sql`update oncall_pages set next_at = now() - interval '1 second' where id = ${first.body.id}`);
  t.equal(await escalateDue(o.tenantOf(o.app)), 1);
  await o.drainOncall();
  t.same(
    mails().map((m) => m.to),
    ['ana@example.com', 'boss@example.com'],
    'step 2 pages the next person',
  );
  t.match(await page(), { step: 1, next_step: null, next_at: null }, 'no step is left');

  // Acknowledged from the e-mail link, without signing in.
  const second = await o.ok('POST', '/oncall/pages', { title: 'Ledger lag', service_id: service.id, key: 'k2' });
  await o.drainOncall();
  const mail = o.outbox.find((m) => m.subject.includes('Ledger lag'))!;
  const link = pathOf(linksOf(mail.text).acknowledge);
  const shown = await o.request({ method: 'GET', url: link });
  t.match([shown.status, shown.body], [200, /<form method="post">/], 'opening the link only shows a button');
  t.equal((await o.exec<any>(sql`select state from oncall_pages where id = ${second.id}`))[0].state, 'triggered', 'so a mail scanner acknowledges nothing');
  const acked = await o.request({ method: 'POST', url: link, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
  t.match([acked.status, acked.body], [200, /Acknowledged/]);
  const reused = await o.request({ method: 'POST', url: link, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
  t.equal(reused.status, 410, 'the link works once');
  t.match((await o.api('GET', `/oncall/pages/${second.id}`)).body, { state: 'acknowledged', acknowledged_by: 'ana@example.com' });
  await o.exec(sql`update oncall_pages set next_at = now() - interval '1 second', next_step = 1, next_round = 0 where id = ${second.id}`);
  t.equal(await escalateDue(o.tenantOf(o.app)), 0, 'an acknowledged page escalates no further, even when due');

  // A crash in the middle of step 2 (after its notifications were written, before commit).
  const third = await o.ok('POST', '/oncall/pages', { title: 'Refunds stuck', service_id: service.id, key: 'k3' });
  await o.drainOncall();
  await o.exec(sql`update oncall_pages set next_at = now() - interval '1 second' where id = ${third.id}`);
  const crash = () => Promise.reject(new Error('killed'));
  await t.rejects(escalateDue(o.tenantOf(o.app), { afterNotify: crash }), /killed/);
  const notes = () => o.exec<any>(sql`select step, email from oncall_notifications where page_id = ${third.id} order by step`);
  t.same(await notes(), [{ step: 0, email: 'ana@example.com' }], 'the crashed step left nothing behind');

  // A second process on the same database picks it up; running both at once doubles nothing.
  const other = o.url ? await openDatabase({ url: o.url, dataDir: '', max: 2 }) : o.database;
  const b = await buildApp({ config: o.config, database: other, logger: false, mailer: async (m) => void o.outbox.push(m) });
  await b.ready();
  t.teardown(async () => {
    await b.close();
    if (other !== o.database) await other.close();
  });
  const moved = await Promise.all([escalateDue(o.tenantOf(b)), escalateDue(o.tenantOf(o.app)), escalateDue(o.tenantOf(b))]);
  t.equal(
    moved.reduce((a, n) => a + n, 0),
    1,
    'exactly one of them took the step',
  );
  t.same(
    await notes(),
    [
      { step: 0, email: 'ana@example.com' },
      { step: 1, email: 'boss@example.com' },
    ],
    'step 2 was neither lost nor doubled',
  );
});

t.test('a page straight to a person repeats until acknowledged, and bad pages are refused', async (t) => {
  const o = await oncallApp(t);
  const bad = await o.api('POST', '/oncall/pages', { title: 'x', email: 'a@example.com', service_id: 1 });
  t.equal(bad.status, 422);
  t.match(bad.body.detail[0], { msg: /one of/, loc: ['body', 'service_id'] });
  const page = await o.ok('POST', '/oncall/pages', { title: 'Disk full', email: 'cy@example.com' });
  await o.drainOncall();
  for (let i = 0; i < 4; i++) {
    await o.exec(sql`update oncall_pages set next_at = now() - interval '1 second' where id = ${page.id} and next_at is not null`);
    await escalateDue(o.tenantOf(o.app));
  }
  await o.drainOncall();
  t.equal(o.outbox.filter((m) => m.to === 'cy@example.com').length, 3, 'three tries, five minutes apart, then it stops');
});
