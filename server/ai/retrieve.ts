import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Executor, type Tx } from '../core/db/client.js';
import type { ChunkPlace, SensitivityLevel } from './tables.js';
import type { Role } from '../core/db/tables.js';
import { containing } from '../engine/filters.js';

/** Who is asking, which decides the sensitivity levels they may retrieve. */
export type Access =
  | { kind: 'user'; userId: number; role: Role }
  | { kind: 'apikey' }
  | { kind: 'anonymous'; sessionId: number };

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

/** SQL condition on chunk alias `c` for what the caller may see. */
export function accessCondition(access: Access, orgId: number): SQL {
  const levels = allowedLevels(access);
  const base = sql`c.sensitivity_level in (${sql.join(levels.map((l) => sql`${l}`), sql`, `)})`;
  if (access.kind === 'anonymous') {
    // The organization as a constant, so the subquery is computed once (hashed), not per chunk.
    return sql`(${base} or c.submission_id in (select s.id from submissions s where s.organization_id = ${orgId} and s.anonymous_session_id = ${access.sessionId}))`;
  }
  if (access.kind === 'user' && !levels.includes('restricted')) {
    return sql`(${base} or c.submission_id in (select s.id from submissions s where s.organization_id = ${orgId} and s.created_by = ${access.userId}))`;
  }
  return base;
}

/**
 * Codes and host names ("ERR-4521", "db-01.prod.internal", "10.0.3.7") that the English parser
 * splits or stems; they are also matched literally through the trigram index.
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
}

/**
 * Best passages for a question, ranked like BM25 without term frequency: each question word found in
 * a passage adds its inverse document frequency (from the project's lexeme counts), and cover
 * density (where heading words weigh more) breaks ties. Only the rarest words select
 * candidates (see BUDGET), so questions full of common words stay fast on millions of chunks. Codes
 * and host names also match literally through the trigram index. Quoted phrases and -exclusions
 * (web search syntax) filter.
 */
export async function retrieve(tx: Executor, opts: RetrieveOptions): Promise<Passage[]> {
  const limit = opts.limit ?? 8;
  const query = opts.query.trim().slice(0, 1000);
  if (!query) return [];
  const project = opts.projectId ? sql`and c.project_id = ${opts.projectId}` : sql``;
  const [stats] = rowsOf<{ terms: TermStat[] | string | null; n: number | string }>(
    await tx.execute(sql`
      with t as (select distinct lex from unnest(tsvector_to_array(to_tsvector('english', ${query}))) lex limit 16)
      select (select coalesce(sum(s.chunk_count), 0) from submissions s where s.organization_id = ${opts.orgId} ${opts.projectId ? sql`and s.project_id = ${opts.projectId}` : sql``} and s.status = 'indexed') as n,
        (select json_agg(json_build_object('lex', t.lex, 'df',
          (select coalesce(sum(l.ndoc), 0) from chunk_lexemes l where l.organization_id = ${opts.orgId} ${opts.projectId ? sql`and l.project_id = ${opts.projectId}` : sql``} and l.lexeme = t.lex)))
         from t) as terms`),
  );
  const rawTerms = typeof stats?.terms === 'string' ? (JSON.parse(stats.terms) as TermStat[]) : (stats?.terms ?? []);
  const n = Math.max(Number(stats?.n ?? 0), 1);
  const terms = rawTerms
    .map((t) => ({ lex: t.lex, df: Number(t.df) }))
    .filter((t) => t.df > 0)
    .map((t) => ({ ...t, idf: Math.log(1 + (n - t.df + 0.5) / (t.df + 0.5)) }))
    .sort((a, b) => a.df - b.df);
  const codes = codeTokens(query);
  const passages: Passage[] = [];
  if (terms.length || codes.length) {
    const base = sql`c.organization_id = ${opts.orgId} ${project} and ${accessCondition(opts.access, opts.orgId)}`;
    const branches: SQL[] = [];
    const chosen: typeof terms = [];
    let total = 0;
    for (const t of terms) {
      if (total + t.df > BUDGET) break;
      chosen.push(t);
      total += t.df;
    }
    const indexed = terms.filter((t) => t.df <= INDEXED_DF_MAX).slice(0, 2);
    if (chosen.length) branches.push(sql`(select c.id from chunks c where ${base} and c.tsv @@ ${chosen.map((t) => lexemeQuery(t.lex)).join(' | ')}::tsquery)`);
    else if (indexed.length) {
      // Over budget but not everywhere: a sample of the chunks holding the rarest words, found through the index.
      branches.push(sql`(select c.id from chunks c where ${base} and c.tsv @@ ${indexed.map((t) => lexemeQuery(t.lex)).join(' | ')}::tsquery limit ${COMMON_CAP})`);
    } else if (terms.length) {
      // Every word is common. The full-text index would first collect every match of such words
      // (hundreds of thousands of rows); walking the organization's chunks in index order with the
      // match as a filter (the concatenation keeps the planner off the GIN index) finds a sample in
      // about as many reads as it keeps, since most chunks hold one of the words.
      branches.push(
        sql`(select c.id from chunks c where ${base} and (c.tsv || ''::tsvector) @@ ${terms.map((t) => lexemeQuery(t.lex)).join(' | ')}::tsquery order by c.organization_id, c.submission_id, c.ordinal limit ${COMMON_CAP})`,
      );
    }
    // The parser keeps host names whole and codes as rare lexemes, so the literal (trigram) match
    // selects candidates only when the words found nothing; it always adds to the score.
    if (!branches.length) for (const c of codes) branches.push(sql`(select c.id from chunks c where ${base} and c.text ilike ${containing(c)} limit 200)`);

    const maxIdf = Math.max(1, ...terms.map((t) => t.idf));
    const score = sql.join(
      [
        ...terms.map((t) => sql`${t.idf}::float8 * (c.tsv @@ ${lexemeQuery(t.lex)}::tsquery)::int`),
        ...codes.map((c) => sql`${maxIdf}::float8 * (c.text ilike ${containing(c)})::int`),
        terms.length ? sql`ts_rank_cd(c.tsv, ${terms.map((t) => lexemeQuery(t.lex)).join(' | ')}::tsquery, 1)` : sql`0`,
      ],
      sql` + `,
    );
    // Quoted phrases and -exclusions narrow the results as in a web search box.
    const strict = /"|(^|\s)-\w/.test(query) ? sql`and c.tsv @@ websearch_to_tsquery('english', ${query})` : sql``;
    const highlight = terms.length ? terms.map((t) => lexemeQuery(t.lex)).join(' | ') : '';
    const rows = await tx.execute(sql`
      with cand as (${sql.join(branches, sql` union `)}),
      ranked as (
        select c.id, c.submission_id, c.text, c.place, (${score}) as score
        from chunks c join cand on cand.id = c.id
        where c.organization_id = ${opts.orgId} ${strict}
        order by score desc, c.id
        limit ${limit}
      )
      select r.id, r.submission_id, r.text, r.place, r.score, s.title, s.source_url, s.kind,
        case when ${highlight} = '' then left(r.text, 240)
          else ts_headline('english', r.text, ${highlight}::tsquery, 'StartSel=«, StopSel=», MaxWords=30, MinWords=12, MaxFragments=2') end as headline
      from ranked r
      join submissions s on s.organization_id = ${opts.orgId} and s.id = r.submission_id
      order by r.score desc, r.id
    `);
    const list = rowsOf<Row>(rows);
    passages.push(
      ...list.map((r) => ({
        object_type: 'chunk',
        object_id: Number(r.id),
        submission_id: r.submission_id,
        title: r.title,
        text: r.text,
        place: r.place,
        headline: r.headline,
        score: Number(r.score),
        url: r.source_url,
      })),
    );
  }
  if (opts.access.kind === 'user' && sources.length) {
    const extra: Passage[] = [];
    for (const source of sources) {
      try {
        // A savepoint, so a failing search leaves the surrounding transaction usable.
        extra.push(...(await (tx as Tx).transaction((sp) => source.search(sp, { ...opts, limit }))));
      } catch {
        // Another domain's search failing must not take the chat down with it.
      }
    }
    // Up to two places among the results are kept for the organization's own records.
    extra.sort((a, b) => b.score - a.score);
    const kept = extra.slice(0, Math.min(2, limit));
    return [...passages.slice(0, limit - kept.length), ...kept];
  }
  return passages.slice(0, limit);
}

interface Row {
  id: number | string;
  submission_id: number;
  text: string;
  place: ChunkPlace;
  title: string;
  source_url: string | null;
  kind: string;
  headline: string;
  score: number | string;
}

