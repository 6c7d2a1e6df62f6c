import { sql, type SQL } from 'drizzle-orm';
import { rowsOf } from '../core/db/client.js';
import { settle } from '../core/db/tenant.js';
import { atLeast, type RequestContext } from '../core/context.js';
import { allowedLevels } from '../ai/retrieve.js';
import { caseScope } from '../cases/scope.js';
import { incidentScope } from '../incidents/scope.js';
import { cases } from '../cases/tables.js';
import { incidents } from '../incidents/tables.js';
import { chunkTsqueryOf, parseSearch, tsqueryOf } from './query.js';

/** The types results come in, in the order their groups show, with what people call them. */
export const SEARCH_TYPES = {
  Incident: 'Incidents',
  Case: 'Cases',
  Task: 'Tasks',
  Document: 'Documents and runbooks',
  Tag: 'Tags',
  Source: 'Sources',
  Query: 'Queries',
  Command: 'Commands',
  Weblink: 'Weblinks',
  SignalInstance: 'Signal instances',
  Commit: 'Commits',
  // Spec §2 names these two; Firewatch crawls no web pages and keeps no ECCS projects, so they find nothing yet.
  WebCrawl: 'Web pages',
  Conversation: 'Conversations',
  Conference: 'Conferences',
  Ticket: 'Tickets',
  ECCSProject: 'ECCS projects',
  TextSubmission: 'Text submissions',
  FileSubmission: 'File submissions',
  YouTubeTranscriptSubmission: 'Video submissions',
  Term: 'Terms',
  Definition: 'Definitions',
  Service: 'Services',
  TeamContact: 'Teams',
  IndividualContact: 'Individuals',
} as const;
export type SearchType = keyof typeof SEARCH_TYPES;
/**
 * The spec's spelling where the stored one differs (search_entries keeps `FileSubmission`): answers use
 * it, and queries may use either.
 */
const SPEC_NAMES: Partial<Record<SearchType, string>> = { FileSubmission: 'FileSubmissions' };
export const specName = (type: SearchType) => SPEC_NAMES[type] ?? type;
export const storedName = (name: string) => (Object.entries(SPEC_NAMES).find(([, spec]) => spec === name)?.[0] ?? name) as SearchType;
/** The names a query's `type` accepts: the spec's and the stored ones. */
export const SEARCH_TYPE_NAMES = [...new Set([...Object.keys(SEARCH_TYPES), ...Object.values(SPEC_NAMES)])] as [string, ...string[]];

/** Spec §9: the search table shows 25 a page. */
export const PAGE_SIZE = 25;
/**
 * A search ranks at most this many matches. A broad one (see search()) ranks the matches among the
 * newest WINDOW rows, walked in recency order: ranking all 65,000 matches of a common word would cost
 * half a second, and each row walked costs a visit to the table.
 */
export const CANDIDATES = 1000;
export const WINDOW = 2000;
/** Counts stop here ("1000+"). */
export const COUNT_CAP = CANDIDATES;
/** More matches than this, by the planner's estimate, make a search broad (see search()). */
export const BROAD_ESTIMATE = 5000;
/**
 * The same for a search with a phrase (`"disk full"`, or a typed `IAO-42`, `db-1.prod`: words joined
 * by <->). The word index cannot tell word order: it hands over every row holding all the words (which
 * is what the planner's estimate counts), and each is read to check the order. A row read costs about
 * the same as in a recency walk; past WINDOW / 2 of them, the walk is the cheaper plan.
 */
export const PHRASE_BROAD_ESTIMATE = WINDOW / 2;

/** Whether a term is a phrase to the word index: more than one word (search_split cuts at what is not a letter or digit). */
const phrased = (text: string) => text.split(/[^\p{L}\p{N}]+/u).filter(Boolean).length > 1;

/** The planner's estimate of the rows of the organization that match (from the column's statistics). */
async function estimatedMatches(ctx: RequestContext, table: 'search_entries' | 'chunks', tsq: SQL): Promise<number> {
  const [row] = rowsOf<{ 'QUERY PLAN': unknown }>(
    await ctx.tx.execute(sql`explain (format json) select 1 from ${sql.identifier(table)} e where e.organization_id = ${ctx.orgId} and e.tsv @@ (${tsq})`),
  );
  const plan = row?.['QUERY PLAN'];
  const parsed = (typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan: { 'Plan Rows': number } }[];
  return parsed[0]?.Plan['Plan Rows'] ?? 0;
}

export interface SearchResult {
  type: SearchType;
  id: string;
  title: string;
  link: string;
  /** The passage with the matching words between «» (ts_headline). */
  headline: string;
  updated_at: string;
  /** Its name or id is exactly what was typed. */
  exact: boolean;
  score: number;
}

export interface SearchAnswer {
  query: string;
  page: number;
  items_per_page: number;
  /**
   * Matches of every type: at most COUNT_CAP, with `total_capped` when there are more. For a broad
   * search, the matches among the newest WINDOW rows, with `total_capped` (there are at least that many).
   */
  total: number;
  total_capped: boolean;
  groups: { type: SearchType; label: string; count: number }[];
  results: SearchResult[];
}

/** The restricted incidents and cases the caller is not part of (none for admins), as SQL array literals. */
interface Hidden {
  incidents: string;
  cases: string;
}
async function hiddenOf(ctx: RequestContext): Promise<Hidden | null> {
  if (atLeast(ctx.role, 'Admin')) return null;
  // `visibility <> 'Open'` only narrows what the scope reads (an open one is never hidden), from an index.
  const [hidden] = rowsOf<Hidden>(
    await ctx.tx.execute(sql`select
      array(select ${incidents.id} from ${incidents} where ${incidents.organization_id} = ${ctx.orgId} and ${incidents.visibility} <> 'Open' and not coalesce(${incidentScope(ctx)}, false))::text as incidents,
      array(select ${cases.id} from ${cases} where ${cases.organization_id} = ${ctx.orgId} and ${cases.visibility} <> 'Open' and not coalesce(${caseScope(ctx)}, false))::text as cases`),
  );
  return hidden!;
}

/** Who may read a submission's text (its entry's or its passages'): by level, or as its uploader. */
function readableUpload(ctx: RequestContext, level: SQL, createdBy: SQL): SQL {
  const levels = allowedLevels(ctx.userId === null ? { kind: 'apikey' } : { kind: 'user', userId: ctx.userId, role: ctx.role });
  return sql`(${level} in (${sql.join(
    levels.map((l) => sql`${l}`),
    sql`, `,
  )})${ctx.userId === null ? sql`` : sql` or ${createdBy} = ${ctx.userId}`})`;
}

/**
 * Rows the caller may not see, as SQL on search_entries `e`: those of restricted incidents and cases
 * they are not part of (the rule of incidents/common.ts, the one lists and reads use), submissions
 * above their sensitivity level (unless they uploaded them), and other people's chats. The hidden
 * incidents and cases are few: read once per search (hiddenOf) and handed to its statement as arrays.
 */
function visible(ctx: RequestContext, hidden: Hidden | null): SQL {
  const parts: SQL[] = [];
  if (hidden?.incidents && hidden.incidents !== '{}') parts.push(sql`(e.incident_id is null or e.incident_id <> all(${hidden.incidents}::int[]))`);
  if (hidden?.cases && hidden.cases !== '{}') parts.push(sql`(e.case_id is null or e.case_id <> all(${hidden.cases}::int[]))`);
  parts.push(sql`(e.sensitivity_level is null or ${readableUpload(ctx, sql`e.sensitivity_level`, sql`e.created_by`)})`);
  parts.push(ctx.userId === null ? sql`e.owner_id is null` : sql`(e.owner_id is null or e.owner_id = ${ctx.userId})`);
  return sql.join(parts, sql` and `);
}

const empty = (query: string, page: number): SearchAnswer => ({
  query,
  page,
  items_per_page: PAGE_SIZE,
  total: 0,
  total_capped: false,
  groups: [],
  results: [],
});

/** Starts a drizzle query now (they are lazy), so queries sent one after another are pipelined in that order. */
const send = <T>(query: PromiseLike<T>): Promise<T> => Promise.resolve(query.then((r) => r));

const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;

/** The result types of uploads (submissions), whose passages are read from `chunks`. */
const UPLOAD_TYPES: SearchType[] = ['TextSubmission', 'FileSubmission', 'YouTubeTranscriptSubmission'];

/** The columns a result is made of, as search_entries `e` has them; uploadRows gives passages the same shape. */
const columns = sql`e.source, e.source_id, e.type, e.key, e.title, e.link, e.body, e.updated_at, e.tsv`;

/**
 * Uploaded passages the caller may read, shaped as search entries (source 'chunks', the chunk's id,
 * its submission's type, title and time). They are not copied into search_entries: an upload writes
 * each passage once, and global search reads the passages' own (English) full-text index. `filter`
 * and `tail` are SQL on `c` (chunks) and `u.type` (the result type).
 */
function uploadRows(ctx: RequestContext, filter: SQL, tail: SQL = sql``): SQL {
  return sql`select 'chunks'::text as source, c.id::text as source_id, u.type, ''::text as key, s.title, '/chat?project_id=' || c.project_id as link,
      c.text as body, s.updated_at, c.tsv
    from chunks c join submissions s on s.organization_id = c.organization_id and s.id = c.submission_id
    cross join lateral (select case s.kind when 'text' then 'TextSubmission' when 'file' then 'FileSubmission' when 'video_transcript' then 'YouTubeTranscriptSubmission' end as type) u
    where c.organization_id = ${ctx.orgId} and ${readableUpload(ctx, sql`c.sensitivity_level`, sql`s.created_by`)} and ${filter} ${tail}`;
}

/**
 * How a result is shown and ranked: its headline (the words marked in its passage) and its text score,
 * on the candidates `r` and `c`. `tsq` is the words' query, `ctsq` the uploaded passages' (English) one.
 */
function resultExpressions(tsq: SQL | undefined, ctsq: SQL) {
  // The passage: from the body where the words are in it, else the title (a tag's name, a term); an
  // uploaded passage is found by its words and marked by the English query.
  const passage = sql`left(case when ${tsq ? sql`to_tsvector('simple', regexp_replace(lower(r.body), '[^[:alnum:]]+', ' ', 'g')) @@ (${tsq})` : sql`false`} then r.body else r.title end, 5000)`;
  const marks = 'StartSel=«, StopSel=», MaxWords=30, MinWords=12, MaxFragments=2';
  const headline = tsq
    ? sql`case when r.source = 'chunks' then ts_headline('english', left(r.body, 5000), ${ctsq}, ${marks}) else ts_headline('simple', ${passage}, ${tsq}, ${marks}) end`
    : sql`left(${passage}, 200)`;
  // A passage weighs like a record's text, its headings as much (chunks.tsv: headings B, text D).
  const score = tsq
    ? sql`case when c.source = 'chunks' then ts_rank_cd('{0.4, 0.2, 0.4, 1.0}'::float4[], c.tsv, ${ctsq}) else ts_rank_cd(c.tsv, ${tsq}) end`
    : sql`0`;
  return { headline, score };
}

/** The answer from the statement's row: the counts per type in their groups' order, and the page. */
function searchAnswer(row: { counts: unknown; results: unknown }, query: string, page: number, broad: boolean): SearchAnswer {
  const counted = json<{ type: SearchType; n: number }[]>(row.counts);
  const total = counted.reduce((s, c) => s + c.n, 0);
  const order = Object.keys(SEARCH_TYPES) as SearchType[];
  const groups = counted
    .sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type))
    .map((c) => ({ type: specName(c.type) as SearchType, label: SEARCH_TYPES[c.type] ?? c.type, count: c.n }));
  const results = json<(SearchResult & { pos: number })[]>(row.results).map(({ pos: _pos, ...r }) => ({
    ...r,
    type: specName(r.type) as SearchType,
    updated_at: new Date(r.updated_at).toISOString(),
  }));
  return {
    ...empty(query, page),
    total: broad ? total : Math.min(total, COUNT_CAP),
    total_capped: broad || total > COUNT_CAP,
    groups,
    results: total ? results : [],
  };
}

/**
 * One search over every type, in the caller's organization and rights. Two round trips on PostgreSQL
 * (statements sent together are pipelined; each wait costs a request dearly on a loaded machine): the
 * settings, the planner's estimates and the hidden incidents and cases; then the plan's settings and
 * one statement that counts per type and ranks the page with its passages. Records come from
 * search_entries, uploaded passages from chunks (see uploadRows).
 */
export async function search(ctx: RequestContext, query: string, types: SearchType[], page: number): Promise<SearchAnswer> {
  const parsed = parseSearch(query);
  const tsq = tsqueryOf(parsed);
  // Both are undefined exactly when no word is wanted.
  const ctsq = chunkTsqueryOf(parsed) ?? sql`null::tsquery`;
  const key = query.trim().toLowerCase();
  if (!tsq && !key) return empty(query, page);
  // No JIT: compiling took 50 to 100 ms of a search that runs in a few; no parallel workers either
  // (starting them costs more than the little each search reads).
  const [, estimate, uploadEstimate, hidden] = await settle([
    send(
      ctx.tx.execute(
        sql`select set_config('jit', 'off', true), set_config('max_parallel_workers_per_gather', '0', true), set_config('enable_seqscan', 'off', true)`,
      ),
    ),
    tsq ? estimatedMatches(ctx, 'search_entries', tsq) : Promise.resolve(0),
    tsq ? estimatedMatches(ctx, 'chunks', ctsq) : Promise.resolve(0),
    hiddenOf(ctx),
  ] as const);
  const where = sql`e.organization_id = ${ctx.orgId} and ${visible(ctx, hidden)}`;
  const inTypes = (column: SQL) =>
    sql`${column} in (${sql.join(
      types.map((t) => sql`${t}`),
      sql`, `,
    )})`;
  const ofTypes = types.length ? sql` and ${inTypes(sql`e.type`)}` : sql``;
  const matching = tsq ? sql`e.tsv @@ (${tsq})` : sql`false`;
  const uploadMatching = sql`c.tsv @@ (${ctsq})`;
  const byKey = sql`(select ${columns} from search_entries e where ${where}${ofTypes} and e.key = ${key} and e.key <> '' limit ${PAGE_SIZE})`;

  // A broad search (a common word, a short prefix: more matches than BROAD_ESTIMATE by the planner's
  // estimates, records and passages together) would cost hundreds of milliseconds to gather from the
  // word indexes, and its matches would come in storage order, the oldest first. It reads the newest
  // WINDOW records and the newest WINDOW passages (of the latest uploads) instead, walking an index
  // of each in order; its counts are those of these windows (at least that many) and the exact
  // names, its page ranks them. Any other search counts and ranks its matches (COUNT_CAP + 1 at most
  // of each) from the word indexes.
  // The plans are set here, not left to the planner: a recency walk taken for a rare word would read
  // every row.
  const broad = tsq !== undefined && estimate + uploadEstimate > (parsed.groups.flat().some((t) => phrased(t.text)) ? PHRASE_BROAD_ESTIMATE : BROAD_ESTIMATE);
  const uploadMatches = !tsq
    ? sql``
    : broad
      ? sql` union all (select w.* from (${uploadRows(ctx, sql`true`, sql`order by c.submission_id desc, c.ordinal desc limit ${WINDOW}`)}) w where w.tsv @@ (${ctsq}))`
      : sql` union all (${uploadRows(ctx, uploadMatching, sql`limit ${COUNT_CAP + 1}`)})`;
  const matches = broad
    ? sql`(select w.* from (select ${columns} from search_entries e where ${where} order by e.updated_at desc nulls last limit ${WINDOW}) w where w.tsv @@ (${tsq}))
        union (select ${columns} from search_entries e where ${where} and e.key = ${key} and e.key <> '' limit ${PAGE_SIZE})${uploadMatches}`
    : sql`(select ${columns} from search_entries e where ${where} and (${matching} or (e.key = ${key} and e.key <> '')) limit ${COUNT_CAP + 1})${uploadMatches}`;
  // With types asked for, a capped search's sample may hold few of them: those are read on their own.
  const uploadCandidates =
    tsq && types.some((t) => UPLOAD_TYPES.includes(t))
      ? sql` union all (${uploadRows(ctx, sql`${uploadMatching} and ${inTypes(sql`u.type`)}`, sql`limit ${CANDIDATES}`)})`
      : sql``;
  const textCandidates =
    types.length && !broad
      ? sql`(select ${columns} from search_entries e where ${where}${ofTypes} and ${matching} limit ${CANDIDATES})${uploadCandidates}`
      : sql`(select e.* from matches e where true${ofTypes} limit ${CANDIDATES + 1})`;
  const { headline, score } = resultExpressions(tsq, ctsq);
  // Incidents and cases, what people search for most, weigh half again as much as the rest.
  // Exact names first, found through their own index whatever the text search thinks of them; then the
  // text matches (CANDIDATES at most, see there), ranked by relevance (title words weigh more) with a recency boost
  // that halves a row's score bonus after about a month. An upload found by its title opens at its
  // first passage (the id a passage result has), and is left out when one of its passages is found too.
  const [, result] = await settle([
    send(
      ctx.tx.execute(
        broad
          ? sql`select set_config('enable_indexscan', 'on', true), set_config('enable_bitmapscan', 'off', true)`
          : sql`select set_config('enable_indexscan', 'off', true), set_config('enable_bitmapscan', 'on', true)`,
      ),
    ),
    send(
      ctx.tx.execute(sql`
      with matches as materialized (${matches}),
      counts as (select m.type, count(*)::int as n from matches m group by m.type),
      candidates as (${byKey} union ${textCandidates}),
      resolved as materialized (
        select c.*, case when c.source = 'submissions' then (
            select k.id::text from chunks k where k.organization_id = ${ctx.orgId} and k.submission_id = c.source_id::int order by k.ordinal limit 1)
          else c.source_id end as rid
        from candidates c
      ),
      ranked as (
        select c.*, c.key = ${key} as exact,
          ${score} * (1 + 1 / (1 + extract(epoch from now() - c.updated_at) / 2592000))
            * case when c.type in ('Incident', 'Case') then 1.5 else 1 end as score
        from resolved c
        where c.rid is not null and not (c.source = 'submissions' and exists (select 1 from resolved x where x.source = 'chunks' and x.source_id = c.rid))
        order by exact desc, score desc, c.updated_at desc, c.source, c.source_id
        limit ${PAGE_SIZE} offset ${(page - 1) * PAGE_SIZE}
      ),
      page as (
        select row_number() over (order by r.exact desc, r.score desc, r.updated_at desc, r.source, r.source_id) as pos,
          r.type, r.rid as id, r.title, r.link, r.updated_at, r.exact, r.score::float8 as score, ${headline} as headline
        from ranked r
      )
      select (select coalesce(json_agg(json_build_object('type', c.type, 'n', c.n)), '[]') from counts c) as counts,
        (select coalesce(json_agg(p order by p.pos), '[]') from page p) as results`),
    ),
  ] as const);
  const [row] = rowsOf<{ counts: unknown; results: unknown }>(result);
  return searchAnswer(row!, query, page, broad);
}
