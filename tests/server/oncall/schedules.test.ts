import t from 'tap';
import ICAL from 'ical.js';
import { oncallApp, pathOf } from './helpers.js';

t.test('schedules over the API: validation, overrides, who is on call now and at T, the calendar, iCal feeds', async (t) => {
  const o = await oncallApp(t);
  const bad = await o.api('POST', '/oncall/schedules', {
    name: 'X',
    time_zone: 'Mars/Olympus',
    layers: [{ name: 'L', start: 'monday', rotation: 'weekly', length: 1, members: [] }],
  });
  t.equal(bad.status, 422);
  t.same(bad.body.detail.map((d: any) => d.loc.join('.')).sort(), ['body.layers.0.members', 'body.layers.0.start', 'body.time_zone']);

  const schedule = await o.ok('POST', '/oncall/schedules', o.weekly(['ana@example.com', 'bo@example.com']));
  t.match(schedule.feed_token, /^[A-Za-z0-9_-]{20,}$/);
  const at = async (iso: string) => (await o.api('GET', `/oncall/schedules/${schedule.id}/oncall?at=${iso}`)).body.oncall;
  t.match(await at('2026-03-12T10:00:00Z'), { email: 'ana@example.com', start: '2026-03-09T08:00:00.000Z', end: '2026-03-16T08:00:00.000Z', source: 0 });
  // "I take Friday night."
  const override = await o.api('POST', '/oncall/overrides', {
    schedule_id: schedule.id,
    email: 'cy@example.com',
    start_at: '2026-03-13T17:00:00Z',
    end_at: '2026-03-14T07:00:00Z',
  });
  t.equal(override.status, 201);
  t.equal(
    (
      await o.api('POST', '/oncall/overrides', {
        schedule_id: schedule.id,
        email: 'cy@example.com',
        start_at: '2026-03-14T07:00:00Z',
        end_at: '2026-03-13T07:00:00Z',
      })
    ).status,
    422,
  );
  t.match(await at('2026-03-13T20:00:00Z'), { email: 'cy@example.com', source: 'override' });

  const shifts = (await o.api('GET', `/oncall/schedules/${schedule.id}/shifts?from=2026-03-09T00:00:00Z&to=2026-03-23T00:00:00Z`)).body.items;
  t.same(
    shifts.map((s: any) => [s.start, s.email]),
    [
      ['2026-03-09T00:00:00.000Z', 'bo@example.com'],
      ['2026-03-09T08:00:00.000Z', 'ana@example.com'],
      ['2026-03-13T17:00:00.000Z', 'cy@example.com'],
      ['2026-03-14T07:00:00.000Z', 'ana@example.com'],
      ['2026-03-16T08:00:00.000Z', 'bo@example.com'],
    ],
    'the calendar: the rotation with the override on top',
  );
  t.equal(
    (await o.api('GET', `/oncall/schedules/${schedule.id}/shifts?from=2026-01-01T00:00:00Z&to=2026-12-01T00:00:00Z`)).status,
    422,
    'at most 92 days at once',
  );
  t.match((await o.api('GET', '/oncall/now')).body.items, [{ schedule_id: schedule.id, name: 'Primary', oncall: { email: /@example.com$/ } }]);

  // The schedule's feed, without signing in, read by ical.js.
  const feed = await o.request({ method: 'GET', url: `/api/v1/default/oncall/feeds/${schedule.feed_token}.ics` });
  t.equal(feed.status, 200);
  t.match(feed.headers['content-type'], /text\/calendar/);
  const events = new ICAL.Component(ICAL.parse(feed.body) as unknown[]).getAllSubcomponents('vevent').map((v) => new ICAL.Event(v));
  t.ok(events.length >= 8, 'ten weeks of shifts');
  t.ok(events.every((e) => /^On call: (ana|bo)@example.com$/.test(e.summary)));
  t.equal((await o.request({ method: 'GET', url: `/api/v1/default/oncall/feeds/${'x'.repeat(24)}.ics` })).status, 404);

  // My own feed.
  const mine = (await o.api('POST', '/oncall/feeds/me', {})).body.url;
  t.same((await o.api('POST', '/oncall/feeds/me', {})).body.url, mine, 'the same address until rotated');
  await o.ok('PUT', `/oncall/schedules/${schedule.id}`, { layers: [{ ...o.weekly([]).layers[0], members: ['commander@example.com'] }] });
  const own = await o.request({ method: 'GET', url: pathOf(mine) });
  t.match(own.body, /SUMMARY:On call: commander@example.com \(Primary\)/);
  const rotated = (await o.api('POST', '/oncall/feeds/me', { rotate: true })).body.url;
  t.not(rotated, mine);
  t.equal((await o.request({ method: 'GET', url: pathOf(mine) })).status, 404, 'the old address stops working');
});
