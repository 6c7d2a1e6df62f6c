import { Stream } from 'node:stream';
import { z } from 'zod';
import { HttpError } from './errors.js';

/**
 * Dates the API accepts: years 1 to 9999. PostgreSQL reads a timestamp back from the ISO text the
 * driver sends, and a JavaScript Date outside four-digit years prints as `+275760-…` or `-271821-…`,
 * which PostgreSQL refuses (22009, 22008) after the request has already started writing.
 */
const MIN_DATE = Date.UTC(1, 0, 1) - 14 * 3600_000;
const MAX_DATE = Date.UTC(9999, 11, 31, 23, 59, 59, 999) + 14 * 3600_000;
export const DATE_RANGE_MESSAGE = 'Must be a date between the years 1 and 9999';
export const inDateRange = (d: Date) => {
  const t = d.getTime();
  return t >= MIN_DATE && t <= MAX_DATE;
};

/** A date (ISO text or epoch milliseconds) within inDateRange. */
export const coercedDate = (error = 'Must be a date') => z.coerce.date({ error }).refine(inDateRange, DATE_RANGE_MESSAGE);

/**
 * Where `value` (parsed JSON, a query or path parameters) holds a NUL character, in a string or a
 * key: PostgreSQL text cannot hold one (22021, and 22P05 inside JSON), so it is refused up front.
 * The walk keeps its own stack, each entry linked to its parent, and builds the path only for the
 * NUL it finds, so it costs one visit per value however deep the nesting. A streamed body (an HTTP
 * request's socket stream) is not walked: it is not data, and its references lead back to itself.
 */
export function nulPath(value: unknown, loc: (string | number)[] = []): (string | number)[] | undefined {
  interface Entry {
    v: unknown;
    key?: string | number;
    up?: Entry;
  }
  const pathOf = (e: Entry, ...tail: (string | number)[]) => {
    const path: (string | number)[] = [];
    for (let at: Entry | undefined = e; at?.up; at = at.up) path.push(at.key!);
    return [...loc, ...path.reverse(), ...tail];
  };
  const pending: Entry[] = [{ v: value }];
  while (pending.length) {
    const e = pending.pop()!;
    const v = e.v;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return pathOf(e);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) pending.push({ v: v[i], key: i, up: e });
    } else if (v && typeof v === 'object' && !(v instanceof Stream)) {
      const entries = Object.entries(v);
      for (const [key] of entries) if (key.includes('\u0000')) return pathOf(e, key);
      for (let i = entries.length - 1; i >= 0; i--) pending.push({ v: entries[i]![1], key: entries[i]![0], up: e });
    }
  }
  return undefined;
}

export const NUL_MESSAGE = 'Text may not contain the NUL character (\\u0000).';

/** Throws a 422 naming the first field of `parts` that holds a NUL character. */
export function refuseNul(parts: Record<string, unknown>) {
  for (const [where, value] of Object.entries(parts)) {
    const loc = nulPath(value, [where]);
    if (loc) throw new HttpError(422, [{ msg: NUL_MESSAGE, loc, type: 'string_nul' }]);
  }
}
