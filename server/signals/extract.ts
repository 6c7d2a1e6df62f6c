import { LRUCache } from 'lru-cache';
import { query } from 'jsonpath-rfc9535';
import { RE2JS } from 're2js';

/**
 * Entity extraction: a type's JSONPath (RFC 9535) selects candidate values from the raw payload, and
 * its regular expression, when set, keeps the matches inside them (group 1 if the pattern has one).
 * Patterns run on RE2 (re2js), which matches in linear time, so a pattern saved by a user cannot
 * backtrack catastrophically on a payload it does not control.
 */
export interface ExtractableType {
  id: number;
  jpath: string | null;
  regular_expression: string | null;
  scope: 'single' | 'multiple' | 'all';
}

export interface Extracted {
  entity_type_id: number;
  value: string;
  normalized: string;
}

/** Longest text a pattern is run on; longer candidates are cut (payloads are at most BODY_LIMIT anyway). */
const MAX_CANDIDATE = 64 * 1024;
/** At most this many values per type and instance: a payload listing 10,000 hosts is not 10,000 entities. */
const MAX_PER_TYPE = 100;

const compiled = new LRUCache<string, RE2JS>({ max: 1000 });
function pattern(source: string): RE2JS {
  let re = compiled.get(source);
  if (!re) compiled.set(source, (re = RE2JS.compile(source)));
  return re;
}

/** Why a regular expression cannot be saved (RE2 syntax: no backreferences or lookaround), or null. */
export function patternError(source: string): string | null {
  try {
    RE2JS.compile(source);
    return null;
  } catch (err) {
    return `Not a valid RE2 regular expression: ${(err as Error).message}`;
  }
}

/** Why a JSONPath cannot be saved, or null. */
export function jpathError(path: string): string | null {
  try {
    query({}, path);
    return null;
  } catch (err) {
    return `Not a valid JSONPath (RFC 9535): ${(err as Error).message}`;
  }
}

/** Every string and number leaf of a value (what a type without a JSONPath searches). */
function leaves(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number' || typeof value === 'boolean') out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) leaves(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) leaves(v, out);
  return out;
}

/** The form two sightings of one value share: trimmed, Unicode-normalized, lower case. */
export const normalize = (value: string) => value.trim().normalize('NFKC').toLowerCase();

export function extract(raw: unknown, types: ExtractableType[]): Extracted[] {
  const found = new Map<string, Extracted>();
  for (const type of types) {
    if (!type.jpath && !type.regular_expression) continue;
    const candidates = type.jpath ? leaves(query(raw as never, type.jpath)) : leaves(raw);
    let values: string[] = [];
    if (type.regular_expression) {
      const re = pattern(type.regular_expression);
      const group = re.groupCount() > 0 ? 1 : 0;
      for (const candidate of candidates) {
        const m = re.matcher(candidate.length > MAX_CANDIDATE ? candidate.slice(0, MAX_CANDIDATE) : candidate);
        while (values.length < MAX_PER_TYPE && m.find()) {
          const v = m.group(group);
          if (v) values.push(v);
        }
      }
    } else {
      values = candidates.slice(0, MAX_PER_TYPE);
    }
    if (type.scope === 'single') values = values.slice(0, 1);
    for (const value of values) {
      const normalized = normalize(value);
      if (!normalized || normalized.length > 1000) continue;
      const key = `${type.id}\u0000${normalized}`;
      // The first spelling seen is the one shown.
      if (!found.has(key)) found.set(key, { entity_type_id: type.id, value: value.trim(), normalized });
    }
  }
  return [...found.values()];
}
