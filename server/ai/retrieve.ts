import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Executor, type Tx } from '../core/db/client.js';
import type { ChunkPlace, SensitivityLevel } from './tables.js';
import type { Role } from '../core/db/tables.js';
import { containing } from '../engine/filters.js';
import { configuredEmbedder, fuseWithVectors, type Embedder } from './embeddings.js';
import { expansions } from './retrieve-expand.js';

/** Who is asking, which decides the sensitivity levels they may retrieve. */
export type Access = { kind: 'user'; userId: number; role: Role } | { kind: 'apikey' } | { kind: 'anonymous'; sessionId: number };

export interface Passage {
  /** What a citation opens: 'chunk' for submissions; other sources name their own type. */
  object_type: string;
  object_id: number | string;
  submission_id?: number;
  title: string;
  text: string;
  place: ChunkPlace;
  /** Matching words marked with «» (ts_headline). */
  headline: string;
  score: number;
  url?: string | null;
}

export interface RetrieveOptions {
  orgId: number;
  /** Restricts to one project; anonymous callers without one see the organization's public material. */
  projectId?: number | null;
  query: string;
  access: Access;
  limit?: number;
  /** Fuses a vector ranking in (hybrid retrieval); defaults to the configured one, null for none. */
  embedder?: Embedder | null;
}

/** Another searchable domain (incidents, cases, runbooks) registered by its owner. */
export interface RetrievalSource {
  name: string;
  /** Only signed-in users get these (anonymous visitors and API keys do not). */
  search(tx: Executor, opts: RetrieveOptions & { limit: number }): Promise<Passage[]>;
}
const sources: RetrievalSource[] = [];
export function registerRetrievalSource(source: RetrievalSource) {
  if (!sources.some((s) => s.name === source.name)) sources.push(source);
}

/** Levels each caller may read; restricted material is also readable by its uploader (see below). */
export function allowedLevels(access: Access): SensitivityLevel[] {
  if (access.kind === 'anonymous') return ['public'];
  if (access.kind === 'user' && (access.role === 'Admin' || access.role === 'Manager' || access.role === 'Owner')) return ['public', 'internal', 'restricted'];
  return ['public', 'internal'];
}

/**
 * What the caller may see, on chunk alias `c`, as alternatives that exclude each other. Each can be
 * searched on its own (a disjunction keeps the planner off the public chunks' partial indexes):
 * anonymous callers read public chunks, or their session's own uploads.
 */
export function accessScopes(access: Access, orgId: number): SQL[] {
  if (access.kind === 'anonymous') {
    // A literal, not a parameter, so the planner proves the partial indexes' predicate (see chunks).
    // The organization as a constant, so the subquery is computed once (hashed), not per chunk.
    return [
      sql`c.sensitivity_level = 'public'`,
      sql`(c.sensitivity_level <> 'public' and c.submission_id in (select s.id from submissions s where s.organization_id = ${orgId} and s.anonymous_session_id = ${access.sessionId}))`,
    ];
  }
  const levels = allowedLevels(access);
  const base = sql`c.sensitivity_level in (${sql.join(
    levels.map((l) => sql`${l}`),
    sql`, `,
  )})`;
  if (access.kind === 'user' && !levels.includes('restricted')) {
    return [sql`(${base} or c.submission_id in (select s.id from submissions s where s.organization_id = ${orgId} and s.created_by = ${access.userId}))`];
  }
  return [base];
}

/** SQL condition on chunk alias `c` for what the caller may see. */
export function accessCondition(access: Access, orgId: number): SQL {
  const scopes = accessScopes(access, orgId);
  return scopes.length === 1 ? scopes[0]! : sql`(${sql.join(scopes, sql` or `)})`;
}

/**
 * Codes and host names ("ERR-4521", "db-01.prod.internal", "10.0.3.7") that the English parser
 * splits or stems; they are also matched literally, by ILIKE on the text (there is no trigram index: see chunks).
 */
export function codeTokens(query: string): string[] {
  const found = query.match(/[A-Za-z0-9][A-Za-z0-9_.:/-]*[A-Za-z0-9]/g) ?? [];
  return [...new Set(found.filter((t) => t.length >= 4 && (/\d/.test(t) || /[a-z0-9]\.[a-z0-9]/i.test(t))))].slice(0, 5);
}

/**
 * Candidate budget: the rarest question words select candidates until their chunk counts add up to
 * this; the other words only score. Keeps ranking work bounded on millions of chunks.
 */
const BUDGET = 800;
/** A project of up to this many chunks ranks more candidates (SMALL_BUDGET): its common words still select. */
const SMALL_PROJECT = 50_000;
const SMALL_BUDGET = 800;
/** When every word is too common for the budget, this many chunks holding one of them are ranked. */
const COMMON_CAP = 1000;
/**
 * Up to this many chunks per word, the full-text index finds COMMON_CAP of them faster than a walk
 * through the organization's chunks does (a word in 0.4% of a million chunks made the walk read a
 * quarter of them); beyond it, most chunks hold the word and the walk finds them at once.
 */
const INDEXED_DF_MAX = 50_000;
/** A lexeme as a tsquery literal (quoted, so "basalt-mail" stays one lexeme). */
const lexemeQuery = (lex: string) => `'${lex.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

interface TermStat {
  lex: string;
  df: number | string;
  weight: number | string;
}
/** Distinct lexemes a question is ranked on (its own words first, then its expansions'). */
const MAX_TERMS = 24;

/** Title and heading matches weigh this much more than a match in the body (times the word's IDF; a title's by the share it covers). */
const TITLE_WEIGHT = 0.7;
const HEADING_WEIGHT = 0.5;
/** Body words within this many positions of each other count fully; the rest of the body counts PROXIMITY_REST. */
const WINDOW = 12;
const PROXIMITY_REST = 0.3;
/**
 * Evidence from the rest of the source: the question words found in the passages of the same source
 * up to NEAR passages before or after, times this, are added to each passage (a section about the
 * subject holds the other words nearby; a long manual holds every word somewhere, which says little).
 */
const PAGE_WEIGHT = 0.5;
const NEAR = 3;
/**
 * The page's opening passage (a man page's NAME line, a chapter's introduction) says what the page
 * is about: a question word found there adds this share of its IDF to every passage of the page.
 */
const LEAD_WEIGHT = 0.6;
/** The opening passage is the first under a heading among the page's first few (a navigation bar may come before it). */
const LEAD_SEARCH = 4;
/** A source's second passage ranks at this share of its score, the third at its square, and so on. */
const SAME_SOURCE = 0.8;
const DISTINCT_FIRST = 3;
/** Chunks ranked in SQL and reranked here (proximity, distinct sources). */
const POOL = 60;
/** A question word no passage holds is read as the closest known word with at least this trigram similarity. */
const TYPO_SIMILARITY = 0.45;

interface Term {
  lex: string;
  df: number;
  weight: number;
  /** Inverse document frequency times the word's weight (1 for the question's own words; see retrieve-expand.ts). */
  idf: number;
}

/** Lexeme → positions (and whether any is a heading position, weight B) from a tsvector's text form. */
export function parseTsvector(text: string): Map<string, { positions: number[]; heading: boolean }> {
  const out = new Map<string, { positions: number[]; heading: boolean }>();
  for (const m of text.matchAll(/'((?:[^']|'')*)'(?::([0-9A-D,]+))?/g)) {
    const positions: number[] = [];
    let heading = false;
    for (const p of (m[2] ?? '').split(',').filter(Boolean)) {
      if (p.endsWith('B')) heading = true;
      positions.push(parseInt(p, 10));
    }
    out.set(m[1]!.replace(/''/g, "'"), { positions, heading });
  }
  return out;
}

/**
 * A passage's score for the question words: each word found adds its IDF, more in the title and
 * headings; body words count fully only when they stand close together (the best window of WINDOW
 * positions), so a list naming the words in unrelated lines ranks below a sentence that holds them.
 * `title` maps each word of the source's title to its IDF.
 */
export function passageScore(terms: Term[], tsv: Map<string, { positions: number[]; heading: boolean }>, title: Map<string, number>): number {
  // A title counts by the share of its IDF the question covers: "branch" names git-branch more than
  // git-filter-branch, and "git" or "sql", in nearly every title of a manual, say little of the page.
  const titleIdf = [...title.values()].reduce((a, w) => a + w, 0);
  const covered = terms.filter((u) => title.has(u.lex)).reduce((a, u) => a + title.get(u.lex)!, 0);
  const titleShare = titleIdf > 0 ? Math.min(1, covered / titleIdf) : 0;
  let score = 0;
  const body: { pos: number; t: number }[] = [];
  let bodyTotal = 0;
  terms.forEach((t, i) => {
    const hit = tsv.get(t.lex);
    if (title.has(t.lex)) score += TITLE_WEIGHT * t.idf * titleShare;
    if (!hit) return;
    if (hit.heading) score += (1 + HEADING_WEIGHT) * t.idf;
    else bodyTotal += t.idf;
    if (!hit.heading) for (const pos of hit.positions) body.push({ pos, t: i });
  });
  // Best window: the largest IDF sum of distinct words within WINDOW positions.
  body.sort((a, b) => a.pos - b.pos);
  let best = 0;
  const count = new Map<number, number>();
  let sum = 0;
  for (let lo = 0, hi = 0; hi < body.length; hi++) {
    const h = body[hi]!;
    count.set(h.t, (count.get(h.t) ?? 0) + 1);
    if (count.get(h.t) === 1) sum += terms[h.t]!.idf;
    while (h.pos - body[lo]!.pos > WINDOW) {
      const l = body[lo++]!;
      count.set(l.t, count.get(l.t)! - 1);
      if (count.get(l.t) === 0) sum -= terms[l.t]!.idf;
    }
    best = Math.max(best, sum);
  }
  return score + best + PROXIMITY_REST * (bodyTotal - best);
}

/**
 * Best passages for a question, ranked like BM25 without term frequency: each question word found in
 * a passage adds its inverse document frequency (from the project's lexeme counts), more in the
 * source's title and the passage's headings, and body words count fully when they stand together
 * (see passageScore); the words of the page's opening passage and of the passages around it count
 * too. Only the rarest words select candidates (see BUDGET), so questions full of common words stay
 * fast on millions of chunks. A word no passage holds is read as the closest known
 * word (typos), and the organization's terms that share a definition stand for each other
 * (synonyms), the definition's words counting less (retrieve-expand.ts). The first passages come from distinct sources. Codes and host names also match
 * literally (ILIKE, no index): that adds to a passage's score, and selects candidates (reading the
 * project's chunks) only when no question word is known. Quoted phrases and -exclusions filter.
 */
export async function retrieve(tx: Executor, opts: RetrieveOptions): Promise<Passage[]> {
  const limit = opts.limit ?? 8;
  const asked = opts.query.trim().slice(0, 1000);
  if (!asked) return [];
  const inProject = (alias: string) => (opts.projectId ? sql`and ${sql.raw(alias)}.project_id = ${opts.projectId}` : sql``);
  const { terms, n } = await questionTerms(tx, opts, asked, inProject);
  const codes = codeTokens(asked);
  const passages: Passage[] = [];
  if (terms.length || codes.length) {
    const pool = await rankedPool(tx, opts, { asked, limit, terms, n, codes, inProject });
    const ordered = distinctSourcesFirst(pool, limit);
    const headlines = await headlinesOf(tx, opts.orgId, ordered, terms);
    passages.push(
      ...ordered.map((r) => ({
        object_type: 'chunk',
        object_id: Number(r.id),
        submission_id: r.submission_id,
        title: r.title,
        text: r.text,
        place: r.place,
        headline: headlines.get(Number(r.id)) ?? r.text.slice(0, 240),
        score: r.rank,
        url: r.source_url,
      })),
    );
  }
  if (opts.access.kind === 'user' && sources.length) return withOtherSources(tx, opts, limit, passages);
  return passages.slice(0, limit);
}

/** `and <alias>.project_id = …` when the search is limited to a project. */
type InProject = (alias: string) => SQL;
/** What the ranking steps share: the question, the terms and codes it holds, the number of passages, the project filter. */
interface Question {
  asked: string;
  limit: number;
  terms: Term[];
  n: number;
  codes: string[];
  inProject: InProject;
}

/**
 * The question's lexemes and those of its expansions with their document frequency, rarest first, and
 * the number of indexed passages (n). Each lexeme keeps the largest weight of the texts it comes from.
 */
async function questionTerms(tx: Executor, opts: RetrieveOptions, asked: string, inProject: InProject) {
  const groups = [{ text: asked, weight: 1 }, ...(await expansions(tx, opts.orgId, opts.projectId ?? null, asked))];
  const [stats] = rowsOf<{ terms: TermStat[] | string | null; n: number | string }>(
    await tx.execute(sql`
      with q as (select q.text, q.weight / case when q.shared then greatest(1, length(to_tsvector('english', q.text))) else 1 end as weight
        from json_to_recordset(${JSON.stringify(groups)}::json) as q(text text, weight float8, shared boolean)),
      t as (select lex, max(q.weight) as weight from q, unnest(tsvector_to_array(to_tsvector('english', q.text))) lex
        group by lex order by max(q.weight) desc, lex limit ${MAX_TERMS})
      select (select coalesce(sum(s.chunk_count), 0) from submissions s where s.organization_id = ${opts.orgId} ${inProject('s')} and s.status = 'indexed') as n,
        (select json_agg(json_build_object('lex', t.lex, 'weight', t.weight, 'df',
          (select coalesce(sum(l.ndoc), 0) from chunk_lexemes l where l.organization_id = ${opts.orgId} ${inProject('l')} and l.lexeme = t.lex)))
         from t) as terms`),
  );
  const rawTerms = typeof stats?.terms === 'string' ? (JSON.parse(stats.terms) as TermStat[]) : (stats?.terms ?? []);
  const n = Math.max(Number(stats?.n ?? 0), 1);
  const known = rawTerms.map((t) => ({ lex: t.lex, df: Number(t.df), weight: Number(t.weight) }));
  known.push(...(await typoFixes(tx, opts.orgId, inProject, known)));
  // A typo's fix comes last, so it counts fully when it is also an expansion's word.
  const terms: Term[] = [...new Map(known.filter((t) => t.df > 0).map((t) => [t.lex, t])).values()]
    .map((t) => ({ lex: t.lex, df: t.df, weight: t.weight, idf: t.weight * idf(n, t.df) }))
    .sort((a, b) => a.df - b.df);
  return { terms, n };
}

/** Typos: a word of the question, four letters or more, that no passage holds becomes the closest word that some do. */
async function typoFixes(tx: Executor, orgId: number, inProject: InProject, known: { lex: string; df: number; weight: number }[]) {
  const unknown = known.filter((t) => t.df === 0 && t.weight === 1 && t.lex.length >= 4 && !/\d/.test(t.lex));
  if (!unknown.length) return [];
  const fixed = rowsOf<{ lex: string; df: number | string }>(
    await tx.execute(sql`
      select f.lexeme as lex, f.ndoc as df from unnest(${`{${unknown.map((t) => `"${t.lex.replace(/["\\]/g, '')}"`).join(',')}}`}::text[]) w(word)
      cross join lateral (select l.lexeme, sum(l.ndoc)::int as ndoc from chunk_lexemes l
        where l.organization_id = ${orgId} ${inProject('l')} and length(l.lexeme) between length(w.word) - 2 and length(w.word) + 2
          and similarity(l.lexeme, w.word) >= ${TYPO_SIMILARITY}
        group by l.lexeme order by similarity(l.lexeme, w.word) desc, sum(l.ndoc) desc limit 1) f`),
  );
  return fixed.map((f) => ({ lex: f.lex, df: Number(f.df), weight: 1 }));
}

/** The statements that select candidate passages: by the rarest words within BUDGET, a sample when all are common, or by codes. */
function candidateBranches(opts: RetrieveOptions, { terms, n, codes, inProject }: Question): SQL[] {
  const bases = accessScopes(opts.access, opts.orgId).map((a) => sql`c.organization_id = ${opts.orgId} ${inProject('c')} and ${a}`);
  // Each access scope is searched on its own, so each finds its index; `tail` limits (and orders) them together.
  const scoped = (select: (base: SQL) => SQL, tail: SQL) =>
    bases.length === 1
      ? sql`(${select(bases[0]!)})`
      : sql`(select x.id from (${sql.join(
          bases.map((b) => sql`(${select(b)})`),
          sql` union all `,
        )}) x ${tail})`;
  const branches: SQL[] = [];
  const chosen: typeof terms = [];
  let total = 0;
  const budget = n <= SMALL_PROJECT ? SMALL_BUDGET : BUDGET;
  // The question's own words select first; its expansions only with the budget they leave.
  const selecting = [...terms.filter((t) => t.weight === 1), ...terms.filter((t) => t.weight < 1)];
  for (const t of selecting) {
    if (total + t.df > budget) break;
    chosen.push(t);
    total += t.df;
  }
  const indexed = selecting.filter((t) => t.df <= INDEXED_DF_MAX).slice(0, 2);
  if (chosen.length) {
    const query = chosen.map((t) => lexemeQuery(t.lex)).join(' | ');
    branches.push(scoped((base) => sql`select c.id from chunks c where ${base} and c.tsv @@ ${query}::tsquery`, sql``));
  } else if (indexed.length) {
    // Over budget but not everywhere: a sample of the chunks holding the rarest words, found through the index.
    const query = indexed.map((t) => lexemeQuery(t.lex)).join(' | ');
    branches.push(scoped((base) => sql`select c.id from chunks c where ${base} and c.tsv @@ ${query}::tsquery limit ${COMMON_CAP}`, sql`limit ${COMMON_CAP}`));
  } else if (terms.length) {
    // Every word is common. The full-text index would first collect every match of such words
    // (hundreds of thousands of rows); walking the organization's chunks in index order with the
    // match as a filter (the concatenation keeps the planner off the GIN index) finds a sample in
    // about as many reads as it keeps, since most chunks hold one of the words.
    const query = terms.map((t) => lexemeQuery(t.lex)).join(' | ');
    branches.push(
      scoped(
        (base) =>
          sql`select c.id, c.submission_id, c.ordinal from chunks c where ${base} and (c.tsv || ''::tsvector) @@ ${query}::tsquery order by c.organization_id, c.submission_id, c.ordinal limit ${COMMON_CAP}`,
        sql`order by x.submission_id, x.ordinal limit ${COMMON_CAP}`,
      ),
    );
  }
  // The parser keeps host names whole and codes as rare lexemes, so the literal (ILIKE) match
  // selects candidates only when the words found nothing; it always adds to the score.
  if (!branches.length)
    for (const c of codes)
      branches.push(scoped((base) => sql`select c.id from chunks c where ${base} and c.text ilike ${containing(c)} limit 200`, sql`limit 200`));
  return branches;
}

/** The candidates scored in SQL (a word anywhere, in a heading, in the title, on the page, in its lead): the best POOL of them. */
async function scoredCandidates(tx: Executor, opts: RetrieveOptions, q: Question, maxIdf: number) {
  const { asked, limit, terms, codes } = q;
  const score = sql.join(
    [
      ...terms.map(
        (t) =>
          sql`${t.idf}::float8 * ((c.tsv @@ ${lexemeQuery(t.lex)}::tsquery)::int + ${HEADING_WEIGHT}::float8 * (c.tsv @@ ${`${lexemeQuery(t.lex)}:B`}::tsquery)::int + ${TITLE_WEIGHT}::float8 * (tt.tsv @@ ${lexemeQuery(t.lex)}::tsquery)::int)`,
      ),
      ...codes.map((c) => sql`${maxIdf}::float8 * (c.text ilike ${containing(c)})::int`),
    ],
    sql` + `,
  );
  // Quoted phrases and -exclusions narrow the results as in a web search box.
  const strict = /"|(^|\s)-\w/.test(asked) ? sql`and c.tsv @@ websearch_to_tsquery('english', ${asked})` : sql``;
  const pageScore = sql.join(
    terms.map((t) => sql`${t.idf}::float8 * max((c.tsv @@ ${lexemeQuery(t.lex)}::tsquery)::int) over near`),
    sql` + `,
  );
  const leadScore = sql.join(
    terms.map((t) => sql`${t.idf}::float8 * coalesce((lead.tsv @@ ${lexemeQuery(t.lex)}::tsquery)::int, 0)`),
    sql` + `,
  );
  const rows = await tx.execute(sql`
    with cand as (${sql.join(candidateBranches(opts, q), sql` union `)}),
    -- Materialized: inlined, the planner re-ran it for every candidate (ten times slower).
    leads as materialized (
      select p.submission_id, (
        select l.tsv from chunks l where l.organization_id = ${opts.orgId} and l.submission_id = p.submission_id and l.ordinal < ${LEAD_SEARCH}
        order by coalesce(l.place->>'heading', '') = '', l.ordinal limit 1) as tsv
      from (select distinct c.submission_id from chunks c join cand on cand.id = c.id where c.organization_id = ${opts.orgId}) p
    ),
    scored as (
      select c.id, c.submission_id, tt.tsv as title_tsv, (${score}) as score,
        ${terms.length ? pageScore : sql`0`} as page_score,
        ${terms.length ? leadScore : sql`0`} as lead_score
      from chunks c join cand on cand.id = c.id
      join submissions s on s.organization_id = ${opts.orgId} and s.id = c.submission_id
      cross join lateral (select to_tsvector('english', regexp_replace(regexp_replace(s.title, ${'\\.[a-zA-Z0-9]{1,5}$'}, ''), '[-_.]+', ' ', 'g')) as tsv) tt
      left join leads lead on lead.submission_id = c.submission_id
      where c.organization_id = ${opts.orgId} ${strict}
      window near as (partition by c.submission_id order by c.ordinal range between ${sql.raw(String(NEAR))} preceding and ${sql.raw(String(NEAR))} following)
    ),
    pool as (select * from scored order by score + ${PAGE_WEIGHT}::float8 * page_score + ${LEAD_WEIGHT}::float8 * lead_score desc, id limit ${Math.max(POOL, limit * 4)})
    select p.id, p.submission_id, c.text, c.place, c.tsv::text as tsv, p.title_tsv::text as title_tsv, s.title, s.source_url, p.score, p.page_score, p.lead_score
    from pool p join chunks c on c.organization_id = ${opts.orgId} and c.id = p.id
    join submissions s on s.organization_id = ${opts.orgId} and s.id = p.submission_id
  `);
  return rowsOf<Row>(rows);
}

/** The SQL pool reranked in code (proximity, the title's words, codes), then fused with vector similarity when an embedder is set. */
async function rankedPool(tx: Executor, opts: RetrieveOptions, q: Question) {
  const { terms, codes, n } = q;
  const maxIdf = Math.max(1, ...terms.map((t) => t.idf));
  const found = await scoredCandidates(tx, opts, q, maxIdf);
  const codeScore = (text: string) => codes.reduce((a, c) => a + (text.toLowerCase().includes(c.toLowerCase()) ? maxIdf : 0), 0);
  // A page's passages share its title: each title's words, and their IDF, are read once.
  const titleWords = new Map(found.map((r) => [r.title_tsv, [...parseTsvector(r.title_tsv).keys()]]));
  const wordIdf = await idfOf(tx, opts.orgId, opts.projectId ?? null, n, [...new Set([...titleWords.values()].flat())]);
  const titleIdf = new Map([...titleWords].map(([title, words]) => [title, new Map(words.map((w) => [w, wordIdf.get(w) ?? 0]))]));
  let pool = found.map((r) => ({
    ...r,
    rank:
      passageScore(terms, parseTsvector(r.tsv), titleIdf.get(r.title_tsv)!) +
      codeScore(r.text) +
      PAGE_WEIGHT * Number(r.page_score) +
      LEAD_WEIGHT * Number(r.lead_score),
  }));
  pool.sort((a, b) => b.rank - a.rank || Number(a.id) - Number(b.id));
  const embedder = opts.embedder === undefined ? configuredEmbedder() : opts.embedder;
  if (embedder && pool.length > 1) {
    try {
      pool = await fuseWithVectors(embedder, q.asked, pool);
    } catch {
      // An unreachable embeddings endpoint leaves the full-text ranking as it is.
    }
  }
  return pool;
}

/**
 * The first places (up to DISTINCT_FIRST, half the list) go to the best passages of distinct
 * sources; the rest in score order, each further passage of a source counting less (SAME_SOURCE
 * per passage before it), so a source's second passage that nearly ties its first (the answer
 * beside the page's summary) still makes the list.
 */
function distinctSourcesFirst<P extends { submission_id: number; rank: number }>(pool: P[], limit: number): P[] {
  const seen = new Set<number>();
  const firsts = pool.filter((r) => !seen.has(r.submission_id) && seen.add(r.submission_id)).slice(0, Math.min(DISTINCT_FIRST, Math.ceil(limit / 2)));
  const perSource = new Map<number, number>();
  for (const r of firsts) perSource.set(r.submission_id, 1);
  const rest = pool
    .filter((r) => !firsts.includes(r))
    .map((r, i) => {
      const before = perSource.get(r.submission_id) ?? 0;
      perSource.set(r.submission_id, before + 1);
      return { r, i, key: r.rank * SAME_SOURCE ** before };
    })
    .sort((a, b) => b.key - a.key || a.i - b.i)
    .map((x) => x.r);
  return [...firsts, ...rest].slice(0, limit);
}

/** Each passage's excerpt with the question's words marked, by chunk id (none when the question has no known word). */
async function headlinesOf(tx: Executor, orgId: number, ordered: { id: number | string }[], terms: Term[]) {
  const headlines = new Map<number, string>();
  if (!ordered.length || !terms.length) return headlines;
  const anyTerm = terms.map((t) => lexemeQuery(t.lex)).join(' | ');
  const marked = rowsOf<{ id: number | string; headline: string }>(
    await tx.execute(sql`
      select c.id, ts_headline('english', c.text, ${anyTerm}::tsquery, 'StartSel=«, StopSel=», MaxWords=30, MinWords=12, MaxFragments=2') as headline
      from chunks c where c.organization_id = ${orgId} and c.id in (${sql.join(
        ordered.map((r) => sql`${Number(r.id)}`),
        sql`, `,
      )})`),
  );
  for (const m of marked) headlines.set(Number(m.id), m.headline);
  return headlines;
}

/** A user's results with up to two places kept for the organization's own records (the other domains' sources). */
async function withOtherSources(tx: Executor, opts: RetrieveOptions, limit: number, passages: Passage[]) {
  const extra: Passage[] = [];
  for (const source of sources) {
    try {
      // A savepoint, so a failing search leaves the surrounding transaction usable.
      extra.push(...(await (tx as Tx).transaction((sp) => source.search(sp, { ...opts, limit }))));
    } catch {
      // Another domain's search failing must not take the chat down with it.
    }
  }
  extra.sort((a, b) => b.score - a.score);
  const kept = extra.slice(0, Math.min(2, limit));
  return [...passages.slice(0, limit - kept.length), ...kept];
}

const idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));

/**
 * The IDF of each lexeme in the project (or organization), in one statement: a lookup by key per
 * lexeme (a join with the list let the planner read every lexeme of the project, 90 ms).
 */
async function idfOf(tx: Executor, orgId: number, projectId: number | null, n: number, lexemes: string[]): Promise<Map<string, number>> {
  if (!lexemes.length) return new Map();
  const rows = rowsOf<{ lexeme: string; df: number | string }>(
    await tx.execute(sql`select w.lexeme, (select coalesce(sum(l.ndoc), 0) from chunk_lexemes l
        where l.organization_id = ${orgId} ${projectId ? sql`and l.project_id = ${projectId}` : sql``} and l.lexeme = w.lexeme) as df
      from json_array_elements_text(${JSON.stringify(lexemes)}::json) w(lexeme)`),
  );
  const df = new Map(rows.map((r) => [r.lexeme, Number(r.df)]));
  return new Map(lexemes.map((l) => [l, idf(n, df.get(l) ?? 0)]));
}

interface Row {
  id: number | string;
  submission_id: number;
  text: string;
  place: ChunkPlace;
  tsv: string;
  title_tsv: string;
  title: string;
  source_url: string | null;
  score: number | string;
  page_score: number | string;
  lead_score: number | string;
}
