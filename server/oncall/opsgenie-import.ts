import { oncallFetch } from './outbound.js';
import { wallOf } from './schedule-math.js';
import type { LayerSpec, PolicyStep, StepTarget } from './tables.js';

/**
 * Reading Opsgenie's REST API (a GenieKey) and mapping its shapes to Firewatch's: rotations to
 * layers, time restrictions, escalation rules to steps. opsgenie-apply.ts writes the result.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Opsgenie's answers, read field by field as documented
export type Json = Record<string, any>;
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const hm = (h: number, m: number) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;

export function opsgenieClient(baseUrl: string, key: string) {
  const base = baseUrl.replace(/\/+$/, '');
  const get = async (path: string) =>
    (await oncallFetch(null, path.startsWith('http') ? path : base + path, { headers: { authorization: `GenieKey ${key}` }, attempts: 5 })).json<Json>();
  /** Every page of a list (Opsgenie's `paging.next`). */
  const all = async (path: string) => {
    const out: Json[] = [];
    for (let next: string | undefined = path; next;) {
      const page = await get(next);
      out.push(...(page.data as Json[]));
      next = page.paging?.next;
      // Only follow links to the same server (the stand-in's, or Opsgenie's own).
      if (next && !next.startsWith(base)) next = undefined;
    }
    return out;
  };
  return { get, all };
}

/** Opsgenie time restrictions as layer restrictions (weekday 1 = Monday; an end at or before the start runs past midnight). */
export function restrictionsOf(tr: Json | undefined): LayerSpec['restrictions'] {
  if (!tr) return undefined;
  if (tr.type === 'time-of-day') {
    const r = tr.restriction;
    return [{ days: [1, 2, 3, 4, 5, 6, 7], start: hm(r.startHour, r.startMin), end: hm(r.endHour, r.endMin) }];
  }
  const out: NonNullable<LayerSpec['restrictions']> = [];
  for (const r of tr.restrictions as Json[]) {
    const [s, e] = [DAYS.indexOf(r.startDay) + 1, DAYS.indexOf(r.endDay) + 1];
    if (s === e && r.endHour * 60 + r.endMin > r.startHour * 60 + r.startMin) {
      out.push({ days: [s], start: hm(r.startHour, r.startMin), end: hm(r.endHour, r.endMin) });
      continue;
    }
    // Across days: the first day to midnight, whole days between, the last day from midnight.
    out.push({ days: [s], start: hm(r.startHour, r.startMin), end: '00:00' });
    for (let d = (s % 7) + 1; d !== e; d = (d % 7) + 1) out.push({ days: [d], start: '00:00', end: '00:00' });
    if (r.endHour || r.endMin) out.push({ days: [e], start: '00:00', end: hm(r.endHour, r.endMin) });
  }
  return out;
}

/** A rotation as a layer: its start instant as wall time in the schedule's zone; hourly rotations become custom ones. */
export function layerOf(rotation: Json, tz: string, emailOf: Map<string, string>): LayerSpec | null {
  const members = (rotation.participants as Json[])
    .map((p) => emailOf.get(p.id) ?? p.username)
    .filter((e): e is string => typeof e === 'string' && e.includes('@'));
  if (!members.length) return null;
  const wall = (iso: string) => {
    const w = wallOf(new Date(iso).getTime(), tz);
    return `${w.y}-${String(w.m).padStart(2, '0')}-${String(w.d).padStart(2, '0')}T${hm(w.h, w.mi)}`;
  };
  return {
    name: rotation.name,
    start: wall(rotation.startDate),
    rotation: rotation.type === 'hourly' ? 'custom' : rotation.type,
    length: rotation.length ?? 1,
    members,
    restrictions: restrictionsOf(rotation.timeRestriction),
    end: rotation.endDate ? wall(rotation.endDate) : null,
  };
}

/** Rules fire `delay` minutes after the alert; steps wait `timeout` after themselves: rules at one delay become one step. */
export function stepsOf(rules: Json[], target: (r: Json) => StepTarget | null, lastWait: number): PolicyStep[] {
  const minutes = (d: Json) => (d?.timeUnit === 'hours' ? d.timeAmount * 60 : d?.timeUnit === 'days' ? d.timeAmount * 1440 : (d?.timeAmount ?? 0));
  const byDelay = new Map<number, StepTarget[]>();
  for (const r of rules) {
    const t = target(r.recipient);
    if (t) byDelay.set(minutes(r.delay), [...(byDelay.get(minutes(r.delay)) ?? []), t]);
  }
  const delays = [...byDelay.keys()].sort((a, b) => a - b);
  return delays.map((d, i) => ({ timeout_minutes: Math.max(1, (delays[i + 1] ?? d + lastWait) - d), targets: byDelay.get(d)! }));
}
