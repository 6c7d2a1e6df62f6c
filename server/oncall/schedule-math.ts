import type { LayerSpec } from './tables.js';

/**
 * Schedule arithmetic, pure: wall times in a time zone (DST through Intl), a layer's shifts, and the
 * final schedule where later layers lie on top of earlier ones and overrides on top of all.
 */

export interface Shift {
  start: Date;
  end: Date;
  email: string;
  /** The layer's index, or 'override'. */
  source: number | 'override';
}
export interface OverrideSpan {
  start: Date;
  end: Date;
  email: string;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string) {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

export function isTimeZone(tz: string) {
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

export interface Wall {
  y: number;
  m: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  /** 1 = Monday … 7 = Sunday. */
  weekday: number;
}

/** The wall clock in `tz` at an instant. */
export function wallOf(ms: number, tz: string): Wall {
  const p: Record<string, number> = {};
  for (const part of formatter(tz).formatToParts(new Date(ms))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const weekday = ((new Date(Date.UTC(p.year!, p.month! - 1, p.day!)).getUTCDay() + 6) % 7) + 1;
  return { y: p.year!, m: p.month!, d: p.day!, h: p.hour!, mi: p.minute!, s: p.second!, weekday };
}

/** How far `tz`'s wall clock is ahead of UTC at an instant, in ms. */
function offsetAt(ms: number, tz: string) {
  const w = wallOf(ms, tz);
  return Date.UTC(w.y, w.m - 1, w.d, w.h, w.mi, w.s) - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant a wall time in `tz` names. A time that happens twice (clocks back) is its first
 * occurrence; one that never happens (clocks forward) moves on by the gap, as a clock would show it.
 */
export function wallToInstant(y: number, m: number, d: number, h: number, mi: number, tz: string): number {
  const local = Date.UTC(y, m - 1, d, h, mi);
  const before = offsetAt(local - 14 * HOUR, tz);
  const after = offsetAt(local + 14 * HOUR, tz);
  const valid = [local - before, local - after].filter((t) => offsetAt(t, tz) === local - t);
  return valid.length ? Math.min(...valid) : local - before;
}

const WALL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;
export const parseWall = (text: string) => {
  const [, y, m, d, h, mi] = WALL.exec(text)!.map(Number);
  return { y: y!, m: m!, d: d!, h: h!, mi: mi! };
};
export const isWall = (text: string) => WALL.test(text);
const hm = (text: string) => text.split(':').map(Number) as [number, number];

/** The i-th hand-off of a layer. Daily and weekly ones keep their wall time across DST; custom ones are every `length` hours. */
function handoff(layer: LayerSpec, tz: string, i: number): number {
  const w = parseWall(layer.start);
  if (layer.rotation === 'custom') return wallToInstant(w.y, w.m, w.d, w.h, w.mi, tz) + i * layer.length * HOUR;
  const days = layer.length * (layer.rotation === 'weekly' ? 7 : 1);
  const date = new Date(Date.UTC(w.y, w.m - 1, w.d + i * days));
  return wallToInstant(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), w.h, w.mi, tz);
}

const periodMs = (layer: LayerSpec) => layer.length * (layer.rotation === 'custom' ? HOUR : layer.rotation === 'weekly' ? 7 * DAY : DAY);

/** Windows of the restrictions within [from, to), merged, in order. */
function restrictionWindows(restrictions: NonNullable<LayerSpec['restrictions']>, tz: string, from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  const first = wallOf(from, tz);
  for (let day = Date.UTC(first.y, first.m - 1, first.d - 1); day < to + 2 * DAY; day += DAY) {
    const date = new Date(day);
    const [y, m, d] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
    const weekday = ((date.getUTCDay() + 6) % 7) + 1;
    for (const r of restrictions) {
      if (!r.days.includes(weekday)) continue;
      const [sh, sm] = hm(r.start);
      const [eh, em] = hm(r.end);
      const overnight = eh * 60 + em <= sh * 60 + sm;
      const s = wallToInstant(y, m, d, sh, sm, tz);
      const e = wallToInstant(y, m, d + (overnight ? 1 : 0), eh, em, tz);
      if (e > from && s < to) out.push([Math.max(s, from), Math.min(e, to)]);
    }
  }
  out.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const w of out) {
    const last = merged.at(-1);
    if (last && w[0] <= last[1]) last[1] = Math.max(last[1], w[1]);
    else merged.push([...w]);
  }
  return merged;
}

/** A layer's shifts that overlap [from, to), clipped to it (and to the layer's restrictions and end). */
export function layerShifts(layer: LayerSpec, tz: string, from: Date, to: Date, index = 0): Shift[] {
  if (!layer.members.length) return [];
  const lo = from.getTime();
  const layerEnd = layer.end ? (({ y, m, d, h, mi }) => wallToInstant(y, m, d, h, mi, tz))(parseWall(layer.end)) : Infinity;
  const hi = Math.min(to.getTime(), layerEnd);
  const origin = handoff(layer, tz, 0);
  // Periods vary by an hour at most across DST: start two before the estimate.
  let i = Math.max(0, Math.floor((lo - origin) / periodMs(layer)) - 2);
  const out: Shift[] = [];
  for (let start = handoff(layer, tz, i); start < hi; i++) {
    const end = handoff(layer, tz, i + 1);
    const s = Math.max(start, lo);
    const e = Math.min(end, hi);
    const email = layer.members[i % layer.members.length]!;
    if (e > s) {
      const spans = layer.restrictions?.length ? restrictionWindows(layer.restrictions, tz, s, e) : [[s, e] as [number, number]];
      for (const [a, b] of spans) out.push({ start: new Date(a), end: new Date(b), email, source: index });
    }
    start = end;
  }
  return out;
}

/**
 * The final schedule over [from, to): at each moment the last override covering it, else the highest
 * layer covering it (layers later in the list lie on top). Adjacent pieces of one person are joined.
 */
export function finalShifts(schedule: { time_zone: string; layers: LayerSpec[] }, overrides: OverrideSpan[], from: Date, to: Date): Shift[] {
  const lo = from.getTime();
  const hi = to.getTime();
  const layers = schedule.layers.map((l, i) => layerShifts(l, schedule.time_zone, from, to, i));
  const over: Shift[] = overrides
    .filter((o) => o.end.getTime() > lo && o.start.getTime() < hi)
    .map((o) => ({ start: new Date(Math.max(o.start.getTime(), lo)), end: new Date(Math.min(o.end.getTime(), hi)), email: o.email, source: 'override' }));
  const points = new Set<number>([lo, hi]);
  for (const s of [...layers.flat(), ...over]) points.add(s.start.getTime()).add(s.end.getTime());
  const sorted = [...points].filter((p) => p >= lo && p <= hi).sort((a, b) => a - b);
  const cursors = layers.map(() => 0);
  const out: Shift[] = [];
  for (let k = 0; k + 1 < sorted.length; k++) {
    const [a, b] = [sorted[k]!, sorted[k + 1]!];
    let top: Shift | undefined;
    for (let o = over.length - 1; o >= 0 && !top; o--) if (over[o]!.start.getTime() <= a && over[o]!.end.getTime() >= b) top = over[o];
    for (let l = layers.length - 1; l >= 0 && !top; l--) {
      const shifts = layers[l]!;
      while (cursors[l]! < shifts.length && shifts[cursors[l]!]!.end.getTime() <= a) cursors[l]!++;
      const s = shifts[cursors[l]!];
      if (s && s.start.getTime() <= a && s.end.getTime() >= b) top = s;
    }
    if (!top) continue;
    const last = out.at(-1);
    if (last && last.email === top.email && last.end.getTime() === a) last.end = new Date(b);
    else out.push({ start: new Date(a), end: new Date(b), email: top.email, source: top.source });
  }
  return out;
}

/** Who is on call at `at` (none when nobody covers that moment). */
export function onCallAt(schedule: { time_zone: string; layers: LayerSpec[] }, overrides: OverrideSpan[], at: Date): Shift | null {
  // Wide enough to see the whole shift around `at` (its real start and end), whatever the layers' lengths.
  const reach = Math.max(DAY, ...schedule.layers.map(periodMs)) + DAY;
  const t = at.getTime();
  return finalShifts(schedule, overrides, new Date(t - reach), new Date(t + reach)).find((s) => s.start.getTime() <= t && s.end.getTime() > t) ?? null;
}
