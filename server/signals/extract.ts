import { LRUCache } from 'lru-cache';
import { query } from 'jsonpath-rfc9535';
import parse, { type JsonPathQuery } from 'jsonpath-rfc9535/parser';
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

type Selector = { type: 'NameSelector' | 'MemberNameShorthand'; value: string } | { type: 'WildcardSelector' } | { type: 'IndexSelector'; value: number };
/** A path over names, wildcards and indices, evaluated without parsing it again; null for one with filters or slices. */
type Plain = { descendant: boolean; selectors: Selector[] }[] | null;

function plain(path: JsonPathQuery): Plain {
  const out: NonNullable<Plain> = [];
  for (const segment of path.segments) {
    const selectors = segment.node.type === 'BracketedSelection' ? segment.node.selectors : [segment.node];
    if (!selectors.every((s): s is Selector => ['NameSelector', 'MemberNameShorthand', 'WildcardSelector', 'IndexSelector'].includes(s.type))) return null;
    out.push({ descendant: segment.type === 'DescendantSegment', selectors });
  }
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The library's evaluation (a queue, breadth first: each node's selections, then its children for a
 * descendant segment), so the values come in the same order as query() gives them.
 */
function run(segments: NonNullable<Plain>, input: unknown): unknown[] {
  const out: unknown[] = [];
  const queue: { value: unknown; index: number }[] = [{ value: input, index: 0 }];
  for (let head = 0; head < queue.length; head++) {
    const { value, index } = queue[head]!;
    if (index === segments.length) {
      out.push(value);
      continue;
    }
    const segment = segments[index]!;
    for (const s of segment.selectors) {
      if (s.type === 'WildcardSelector') {
        if (Array.isArray(value)) for (const v of value) queue.push({ value: v, index: index + 1 });
        else if (isObject(value)) for (const k of Object.keys(value)) queue.push({ value: value[k], index: index + 1 });
      } else if (s.type === 'IndexSelector') {
        if (!Array.isArray(value)) continue;
        const i = s.value < 0 ? value.length + s.value : s.value;
        if (i >= 0 && i < value.length) queue.push({ value: value[i], index: index + 1 });
      } else if (isObject(value) && Object.hasOwn(value, s.value)) {
        queue.push({ value: value[s.value], index: index + 1 });
      }
    }
    if (segment.descendant) {
      if (Array.isArray(value)) for (const v of value) queue.push({ value: v, index });
      else if (isObject(value)) for (const k of Object.keys(value)) queue.push({ value: value[k], index });
    }
  }
  return out;
}

// Parsing a path took two thirds of a query (10 of 15 µs for `$..['instance']`); a type's path is parsed once.
const paths = new LRUCache<string, { plain: Plain }>({ max: 1000 });
/** The values a JSONPath selects, as query() gives them (a path is parsed once per process). */
export function select(raw: unknown, path: string): unknown[] {
  let compiledPath = paths.get(path);
  if (!compiledPath) paths.set(path, (compiledPath = { plain: plain(parse(path)) }));
  return compiledPath.plain ? run(compiledPath.plain, raw) : query(raw as never, path);
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
    const candidates = type.jpath ? leaves(select(raw, type.jpath)) : leaves(raw);
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
