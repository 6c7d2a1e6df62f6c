import type { Shift } from './schedule-math.js';

// Loaded on first use: only a calendar feed's request needs ical.js.
let icalModule: Promise<typeof import('ical.js')> | undefined;

/** Shifts as an iCalendar feed (RFC 5545) that calendar apps subscribe to; times in UTC. */
export async function shiftsToIcal(name: string, shifts: (Shift & { schedule?: string })[], uidPrefix: string): Promise<string> {
  const { default: ICAL } = await (icalModule ??= import('ical.js'));
  const cal = new ICAL.Component(['vcalendar', [], []]);
  cal.updatePropertyWithValue('prodid', '-//Firewatch//On-call//EN');
  cal.updatePropertyWithValue('version', '2.0');
  cal.updatePropertyWithValue('x-wr-calname', name);
  const stamp = ICAL.Time.fromJSDate(new Date(), true);
  for (const s of shifts) {
    const ev = new ICAL.Component('vevent');
    // Stable across fetches, so an app updates an event instead of adding another.
    ev.updatePropertyWithValue('uid', `${uidPrefix}-${s.schedule ? `${encodeURIComponent(s.schedule)}-` : ''}${s.start.getTime()}-${s.email}@firewatch`);
    ev.updatePropertyWithValue('dtstamp', stamp);
    ev.updatePropertyWithValue('dtstart', ICAL.Time.fromJSDate(s.start, true));
    ev.updatePropertyWithValue('dtend', ICAL.Time.fromJSDate(s.end, true));
    ev.updatePropertyWithValue('summary', `On call: ${s.email}${s.schedule ? ` (${s.schedule})` : ''}`);
    ev.updatePropertyWithValue('x-firewatch-email', s.email);
    cal.addSubcomponent(ev);
  }
  return cal.toString();
}
