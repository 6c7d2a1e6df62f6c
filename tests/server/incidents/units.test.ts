import t from 'tap';
import { duration, money } from '../../../admin/src/core/units.js';
import { relativeTime } from '../../../admin/src/ai/time.js';

/**
 * Issue 40: what the admin shows for times and money, as people read them (the incident's cost line,
 * the dashboards' mean times, chat and source ages): the walk's "0.03 h", "0.208477 h at $24.0385/h"
 * and "0m ago" are gone.
 */
t.test('durations read in minutes, hours and days', async (t) => {
  t.equal(duration(2 / 60), '2 min', 'a two-minute incident');
  t.equal(duration(0.208477), '13 min', "the walk's cost line, to the minute");
  t.equal(duration(3 + 10 / 60), '3 h 10 min');
  t.equal(duration(4), '4 h', 'no "0 min"');
  t.equal(duration(26.44), '26 h 26 min');
  t.equal(duration(50), '2 d 2 h', 'past two days, days and hours');
  t.equal(duration(null), null, 'no figure, nothing shown');
});

t.test('money rounds to the cent', async (t) => {
  t.equal(money(24.0385), '$24.04');
  t.equal(money(5.0096), '$5.01');
  t.equal(money(194360), '$194,360.00');
  t.equal(money(undefined), null);
});

t.test('"just now" for the first minute, then minutes, hours and days ago', async (t) => {
  const now = Date.parse('2026-12-01T12:00:00Z');
  const ago = (ms: number) => relativeTime(new Date(now - ms).toISOString(), now);
  t.equal(ago(0), 'just now');
  t.equal(ago(59_000), 'just now');
  t.equal(ago(5 * 60_000), '5m ago');
  t.equal(ago(3 * 3_600_000), '3h ago');
  t.equal(ago(2 * 86_400_000), '2d ago');
  t.equal(relativeTime(new Date(now + 5_000).toISOString(), now), 'just now', 'a clock a little ahead is still now');
});
