import t from 'tap';
import fc from 'fast-check';
import ICAL from 'ical.js';
import { finalShifts, layerShifts, onCallAt, wallOf, wallToInstant, type Shift } from '../../../server/oncall/schedule-math.js';
import { shiftsToIcal } from '../../../server/oncall/ical.js';
import type { LayerSpec } from '../../../server/oncall/tables.js';

const ZONES = ['Europe/Berlin', 'America/New_York', 'UTC', 'Australia/Lord_Howe'];
const HOUR = 3_600_000;
const pad = (n: number) => String(n).padStart(2, '0');
const people: fc.Arbitrary<string[]> = fc.uniqueArray(fc.constantFrom('ana@x.test', 'bo@x.test', 'cy@x.test', 'di@x.test', 'ed@x.test'), {
  minLength: 1,
  maxLength: 4,
});
/** Starts spread over 2023–2029, leap days and both DST changes included. */
const wallStart = fc
  .record({
    y: fc.integer({ min: 2023, max: 2029 }),
    m: fc.integer({ min: 1, max: 12 }),
    d: fc.integer({ min: 1, max: 29 }),
    h: fc.integer({ min: 0, max: 23 }),
    mi: fc.constantFrom(0, 30),
  })
  .filter(({ y, m, d }) => new Date(Date.UTC(y, m - 1, d)).getUTCMonth() === m - 1)
  .map(({ y, m, d, h, mi }) => `${y}-${pad(m)}-${pad(d)}T${pad(h)}:${pad(mi)}`);
const layer: fc.Arbitrary<LayerSpec> = fc.record({
  name: fc.constant('L') as fc.Arbitrary<string>,
  start: wallStart,
  rotation: fc.constantFrom('daily', 'weekly', 'custom') as fc.Arbitrary<LayerSpec['rotation']>,
  length: fc.integer({ min: 1, max: 3 }),
  members: people,
});
const window = fc.record({ offsetDays: fc.integer({ min: -3, max: 400 }), days: fc.integer({ min: 1, max: 40 }) });

const from = (l: LayerSpec, tz: string, offsetDays: number) => {
  const [y, m, d] = l.start.slice(0, 10).split('-').map(Number);
  return new Date(wallToInstant(y!, m!, d!, 0, 0, tz) + offsetDays * 24 * HOUR);
};
const contiguous = (shifts: Shift[]) => shifts.every((s, i) => i === 0 || shifts[i - 1]!.end.getTime() === s.start.getTime());

t.test('a layer without restrictions covers its window with neither gap nor overlap, rotating in order', async (t) => {
  t.doesNotThrow(
    () =>
      fc.assert(
        fc.property(layer, fc.constantFrom(...ZONES), window, (l, tz, w) => {
          const a = new Date(Math.max(from(l, tz, w.offsetDays).getTime(), from(l, tz, 0).getTime() + 24 * HOUR));
          const b = new Date(a.getTime() + w.days * 24 * HOUR);
          const shifts = layerShifts(l, tz, a, b);
          if (!shifts.length || shifts[0]!.start.getTime() !== a.getTime() || shifts.at(-1)!.end.getTime() !== b.getTime()) return false;
          if (!contiguous(shifts)) return false;
          // Each hand-off passes to the next member (unless there is only one).
          return shifts.every(
            (s, i) => i === 0 || l.members.length === 1 || s.email === l.members[(l.members.indexOf(shifts[i - 1]!.email) + 1) % l.members.length],
          );
        }),
        { numRuns: 300 },
      ),
    '300 layers: no counterexample',
  );
});

t.test('daily and weekly hand-offs keep their wall time across DST (Berlin, New York)', async (t) => {
  fc.assert(
    fc.property(
      layer.filter((l) => l.rotation !== 'custom'),
      fc.constantFrom('Europe/Berlin', 'America/New_York'),
      window,
      (l, tz, w) => {
        const a = from(l, tz, Math.max(w.offsetDays, 1));
        const shifts = layerShifts(l, tz, a, new Date(a.getTime() + w.days * 24 * HOUR));
        const [h, mi] = l.start.slice(11).split(':').map(Number);
        return shifts.slice(1).every((s) => {
          const wall = wallOf(s.start.getTime(), tz);
          // A hand-off inside the spring-forward gap moves on by the gap; every other one is on the dot.
          return (wall.h === h && wall.mi === mi) || wall.h === h! + 1;
        });
      },
    ),
    { numRuns: 300 },
  );
  // The concrete days: a daily 09:00 layer's shift across the night the clocks change is 23 or 25 hours.
  const daily = { name: 'D', start: '2026-03-01T09:00', rotation: 'daily' as const, length: 1, members: ['a@x.test', 'b@x.test'] };
  const lengths = (tz: string, a: string, b: string) =>
    layerShifts(daily, tz, new Date(a), new Date(b)).map((s) => (s.end.getTime() - s.start.getTime()) / HOUR);
  t.same(lengths('Europe/Berlin', '2026-03-28T08:00:00Z', '2026-03-30T07:00:00Z'), [23, 24], 'the shift over the spring-forward night is 23 hours');
  t.same(lengths('Europe/Berlin', '2026-10-24T07:00:00Z', '2026-10-26T08:00:00Z'), [25, 24], 'the shift over the fall-back night is 25 hours');
  t.same(lengths('America/New_York', '2026-03-07T14:00:00Z', '2026-03-09T13:00:00Z'), [23, 24], 'New York springs forward on 2026-03-08');
  t.same(lengths('America/New_York', '2026-10-31T13:00:00Z', '2026-11-02T14:00:00Z'), [25, 24], 'and falls back on 2026-11-01');
  t.equal(new Date(wallToInstant(2026, 3, 29, 2, 30, 'Europe/Berlin')).toISOString(), '2026-03-29T01:30:00.000Z', '02:30 never happens in Berlin: 03:30 CEST');
  t.equal(new Date(wallToInstant(2026, 10, 25, 2, 30, 'Europe/Berlin')).toISOString(), '2026-10-25T00:30:00.000Z', '02:30 happens twice: the first');
});

t.test('leap days: a daily layer has 29 shifts in February 2028 and 28 in 2027', async (t) => {
  for (const tz of ZONES) {
    const l: LayerSpec = { name: 'D', start: '2027-01-01T00:00', rotation: 'daily', length: 1, members: ['a@x.test', 'b@x.test', 'c@x.test'] };
    const feb = (y: number) => layerShifts(l, tz, new Date(wallToInstant(y, 2, 1, 0, 0, tz)), new Date(wallToInstant(y, 3, 1, 0, 0, tz))).length;
    t.same([feb(2027), feb(2028)], [28, 29], tz);
  }
  const weekly: LayerSpec = { name: 'W', start: '2028-02-29T09:00', rotation: 'weekly', length: 1, members: ['a@x.test'] };
  const [first] = layerShifts(weekly, 'Europe/Berlin', new Date('2028-02-29T00:00:00Z'), new Date('2028-03-20T00:00:00Z'));
  t.equal(first!.end.toISOString(), '2028-03-07T08:00:00.000Z', 'a week from 29 February is 7 March');
});

t.test('final schedule: one person at a time; overrides win, leave no gap, and layers on top win', async (t) => {
  const override = fc.record({
    at: fc.integer({ min: 0, max: 30 * 24 }),
    hours: fc.integer({ min: 1, max: 72 }),
    email: fc.constantFrom('ov@x.test', 'ov2@x.test'),
  });
  t.doesNotThrow(
    () =>
      fc.assert(
        fc.property(
          fc.array(layer, { minLength: 1, maxLength: 3 }),
          fc.constantFrom(...ZONES),
          fc.array(override, { maxLength: 4 }),
          fc.boolean(),
          (layers, tz, ovs, restricted) => {
            if (restricted) layers[layers.length - 1] = { ...layers.at(-1)!, restrictions: [{ days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' }] };
            const start = Math.max(...layers.map((l) => from(l, tz, 1).getTime()));
            const [a, b] = [new Date(start), new Date(start + 30 * 24 * HOUR)];
            const overrides = ovs.map((o) => ({ start: new Date(start + o.at * HOUR), end: new Date(start + (o.at + o.hours) * HOUR), email: o.email }));
            const final = finalShifts({ time_zone: tz, layers }, overrides, a, b);
            // Never two at once.
            if (!final.every((s, i) => s.end > s.start && (i === 0 || final[i - 1]!.end <= s.start))) return false;
            // No gap when some layer is unrestricted: the first layer (always unrestricted here unless alone) covers all.
            if (
              (layers.length > 1 || !restricted) &&
              !(contiguous(final) && final[0]!.start.getTime() === a.getTime() && final.at(-1)!.end.getTime() === b.getTime())
            )
              return false;
            // At every override's middle the override's person is on call (the last one listed wins).
            for (const o of overrides) {
              const mid = new Date((Math.max(o.start.getTime(), a.getTime()) + Math.min(o.end.getTime(), b.getTime())) / 2);
              if (mid >= b) continue;
              const later = overrides.filter((x) => x.start <= mid && x.end > mid).at(-1)!;
              if (onCallAt({ time_zone: tz, layers }, overrides, mid)?.email !== later.email) return false;
            }
            return true;
          },
        ),
        { numRuns: 60 },
      ),
    '60 schedules: no counterexample',
  );
});

t.test('restrictions: business hours on weekdays, in the zone, and nothing at weekends', async (t) => {
  const l: LayerSpec = {
    name: 'Office',
    start: '2026-03-02T09:00',
    rotation: 'weekly',
    length: 1,
    members: ['a@x.test', 'b@x.test'],
    restrictions: [{ days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' }],
  };
  const shifts = layerShifts(l, 'America/New_York', new Date('2026-03-02T00:00:00Z'), new Date('2026-03-16T00:00:00Z'));
  t.equal(shifts.length, 10, 'ten working days');
  t.same(
    shifts.slice(4, 6).map((s) => [s.start.toISOString(), s.end.toISOString(), s.email]),
    [
      ['2026-03-06T14:00:00.000Z', '2026-03-06T22:00:00.000Z', 'a@x.test'],
      ['2026-03-09T13:00:00.000Z', '2026-03-09T21:00:00.000Z', 'b@x.test'],
    ],
    'Friday 9–17 EST, then Monday 9–17 EDT, handed to the next person',
  );
});

t.test('the iCal feed read back by ical.js gives the same shifts', async (t) => {
  await t.resolves(
    () =>
      fc.assert(
        fc.asyncProperty(fc.array(layer, { minLength: 1, maxLength: 2 }), fc.constantFrom(...ZONES), async (layers, tz) => {
          const a = from(layers[0]!, tz, 2);
          const shifts = finalShifts({ time_zone: tz, layers }, [], a, new Date(a.getTime() + 21 * 24 * HOUR));
          const cal = new ICAL.Component(ICAL.parse(await shiftsToIcal('Primary', shifts, 's1')) as unknown[]);
          const read = cal.getAllSubcomponents('vevent').map((v) => {
            const ev = new ICAL.Event(v);
            return [ev.startDate.toJSDate().getTime(), ev.endDate.toJSDate().getTime(), ev.summary];
          });
          const want = shifts.map((s) => [s.start.getTime(), s.end.getTime(), `On call: ${s.email}`]);
          return JSON.stringify(read) === JSON.stringify(want);
        }),
        { numRuns: 100 },
      ),
    '100 feeds: no counterexample',
  );
});
