import { sql, type SQL } from 'drizzle-orm';

/**
 * What people type into a search box, read the way web search engines read it (PostgreSQL's
 * websearch_to_tsquery) but with every plain word as a prefix, since results show as they type:
 * `redis time` finds "Redis timeout"; `"disk full"` is a phrase; `-staging` excludes; `a or b` either.
 */
export interface Term {
  text: string;
  /** A quoted phrase matches whole words; a typed word also matches longer words it starts. */
  phrase: boolean;
}
export interface ParsedSearch {
  /** Every group must match; a group matches when one of its terms does (`a or b`). */
  groups: Term[][];
  excluded: Term[];
}

/** A word PostgreSQL's search_split() keeps: one letter or digit at least. */
const hasWord = (s: string) => /[\p{L}\p{N}]/u.test(s);

export function parseSearch(q: string): ParsedSearch {
  const groups: Term[][] = [];
  const excluded: Term[] = [];
  // A quoted phrase (the closing quote may not be typed yet), or a run of non-space characters.
  const tokens = q.matchAll(/(-?)"([^"]*)"?|(\S+)/g);
  let joinNext = false;
  for (const [, minus, quoted, bare] of tokens) {
    const negated = quoted !== undefined ? minus === '-' : bare!.startsWith('-') && bare!.length > 1;
    const text = quoted ?? (negated ? bare!.slice(1) : bare!);
    if (quoted === undefined && text.toLowerCase() === 'or' && groups.length) {
      joinNext = true;
      continue;
    }
    if (!hasWord(text)) continue;
    const term = { text, phrase: quoted !== undefined };
    if (negated) excluded.push(term);
    else if (joinNext) groups[groups.length - 1]!.push(term);
    else groups.push([term]);
    joinNext = false;
  }
  return { groups, excluded };
}

const termQuery = (t: Term) => sql`search_term_query(${t.text}::text, ${!t.phrase})`;

/** The tsquery of a parsed search (migration search_entries: search_term_query); undefined when it finds nothing. */
export function tsqueryOf(parsed: ParsedSearch): SQL | undefined {
  if (!parsed.groups.length) return undefined; // only exclusions: nothing to look up
  const parts = parsed.groups.map((g) => (g.length === 1 ? termQuery(g[0]!) : sql`(${sql.join(g.map(termQuery), sql` || `)})`));
  for (const t of parsed.excluded) parts.push(sql`(!!${termQuery(t)})`);
  return sql.join(parts, sql` && `);
}

const chunkTermQuery = (t: Term) => sql`search_chunk_term_query(${t.text}::text, ${!t.phrase})`;
const and = (a: SQL, b: SQL) => sql`search_tsquery_and(${a}, ${b})`;

/**
 * The same search as a tsquery over uploaded passages (chunks.tsv, English: stemmed, without stop
 * words; migration search_reads_chunks). A term of stop words only is left out; a search of nothing
 * else is NULL, which finds no passage.
 */
export function chunkTsqueryOf(parsed: ParsedSearch): SQL | undefined {
  if (!parsed.groups.length) return undefined;
  const wanted = parsed.groups.map((g) => g.map(chunkTermQuery).reduce((a, b) => sql`search_tsquery_or(${a}, ${b})`)).reduce(and);
  if (!parsed.excluded.length) return wanted;
  const unwanted = parsed.excluded.map((t) => sql`(!!${chunkTermQuery(t)})`).reduce(and);
  // `&&` keeps NULL when no wanted word is left (exclusions alone would match nearly every passage).
  return sql`(${wanted} && coalesce(${unwanted}, ${wanted}))`;
}
