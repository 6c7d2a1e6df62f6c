import { sql, type SQL } from 'drizzle-orm';
import { rowsOf } from '../core/db/client.js';
import { settle } from '../core/db/tenant.js';
import { atLeast, type RequestContext } from '../core/context.js';
import { allowedLevels } from '../ai/retrieve.js';
import { caseScope, incidentScope } from '../incidents/common.js';
import { cases, incidents } from '../incidents/tables.js';
import { parseSearch, tsqueryOf } from './query.js';

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
  Conversation: 'Conversations',
  Conference: 'Conferences',
  Ticket: 'Tickets',
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
async function estimatedMatches(ctx: RequestContext, tsq: SQL): Promise<number> {
  const [row] = rowsOf<{ 'QUERY PLAN': unknown }>(
    await ctx.tx.execute(sql`explain (format json) select 1 from search_entries e where e.organization_id = ${ctx.orgId} and e.tsv @@ (${tsq})`),
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
  const levels = allowedLevels(ctx.userId === null ? { kind: 'apikey' } : { kind: 'user', userId: ctx.userId, role: ctx.role });
  parts.push(
    sql`(e.sensitivity_level is null or e.sensitivity_level in (${sql.join(
      levels.map((l) => sql`${l}`),
      sql`, `,
    )})${ctx.userId === null ? sql`` : sql` or e.created_by = ${ctx.userId}`})`,
  );
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

/**
 * One search over every type, in the caller's organization and rights. Two round trips on PostgreSQL
 * (statements sent together are pipelined; each wait costs a request dearly on a loaded machine): the
 * settings, the planner's estimate and the hidden incidents and cases; then the plan's settings and
 * one statement that counts per type and ranks the page with its passages.
 */
export async function search(ctx: RequestContext, query: string, types: SearchType[], page: number): Promise<SearchAnswer> {
  const parsed = parseSearch(query);
  const tsq = tsqueryOf(parsed);
  const key = query.trim().toLowerCase();
  if (!tsq && !key) return empty(query, page);
  // No JIT: compiling took 50 to 100 ms of a search that runs in a few; no parallel workers either
  // (starting them costs more than the little each search reads).
  const [, estimate, hidden] = await settle([
    send(
      ctx.tx.execute(
        sql`select set_config('jit', 'off', true), set_config('max_parallel_workers_per_gather', '0', true), set_config('enable_seqscan', 'off', true)`,
      ),
    ),
    tsq ? estimatedMatches(ctx, tsq) : Promise.resolve(0),
    hiddenOf(ctx),
  ] as const);
  const where = sql`e.organization_id = ${ctx.orgId} and ${visible(ctx, hidden)}`;
  const ofTypes = types.length
    ? sql` and e.type in (${sql.join(
        types.map((t) => sql`${t}`),
        sql`, `,
      )})`
    : sql``;
  const matching = tsq ? sql`e.tsv @@ (${tsq})` : sql`false`;
  const byKey = sql`(select e.* from search_entries e where ${where}${ofTypes} and e.key = ${key} and e.key <> '' limit ${PAGE_SIZE})`;

  // A broad search (a common word, a short prefix: more matches than BROAD_ESTIMATE by the planner's
  // estimate) would cost hundreds of milliseconds to gather from the word index, and its matches would
  // come in storage order, the oldest first. It reads the newest WINDOW rows instead, walking the
  // recency index once; its counts are those of that window (at least that many) and the exact names,
  // its page ranks them. Any other search counts and ranks its matches (COUNT_CAP + 1 at most) from the word index.
  // The plans are set here, not left to the planner: a recency walk taken for a rare word would read
  // every row.
  const broad = tsq !== undefined && estimate > (parsed.groups.flat().some((t) => phrased(t.text)) ? PHRASE_BROAD_ESTIMATE : BROAD_ESTIMATE);
  const matches = broad
    ? sql`(select w.* from (select e.* from search_entries e where ${where} order by e.updated_at desc nulls last limit ${WINDOW}) w where w.tsv @@ (${tsq}))
        union (select e.* from search_entries e where ${where} and e.key = ${key} and e.key <> '' limit ${PAGE_SIZE})`
    : sql`select e.* from search_entries e where ${where} and (${matching} or (e.key = ${key} and e.key <> '')) limit ${COUNT_CAP + 1}`;
  // With types asked for, a capped search's sample may hold few of them: those are read on their own.
  const textCandidates =
    types.length && !broad
      ? sql`(select e.* from search_entries e where ${where}${ofTypes} and ${matching} limit ${CANDIDATES})`
      : sql`(select e.* from matches e where true${ofTypes} limit ${CANDIDATES + 1})`;
  // The passage: from the body where the words are in it, else the title (a tag's name, a term).
  const passage = sql`left(case when ${tsq ? sql`to_tsvector('simple', regexp_replace(lower(r.body), '[^[:alnum:]]+', ' ', 'g')) @@ (${tsq})` : sql`false`} then r.body else r.title end, 5000)`;
  // Incidents and cases, what people search for most, weigh half again as much as the rest.
  // Exact names first, found through their own index whatever the text search thinks of them; then the
  // text matches (CANDIDATES at most, see there), ranked by relevance (title words weigh more) with a recency boost
  // that halves a row's score bonus after about a month.
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
      ranked as (
        select c.*, c.key = ${key} as exact,
          ${tsq ? sql`ts_rank_cd(c.tsv, ${tsq})` : sql`0`} * (1 + 1 / (1 + extract(epoch from now() - c.updated_at) / 2592000))
            * case when c.type in ('Incident', 'Case') then 1.5 else 1 end as score
        from candidates c
        order by exact desc, score desc, c.updated_at desc, c.source, c.source_id
        limit ${PAGE_SIZE} offset ${(page - 1) * PAGE_SIZE}
      ),
      page as (
        select row_number() over (order by r.exact desc, r.score desc, r.updated_at desc, r.source, r.source_id) as pos,
          r.type, r.source_id as id, r.title, r.link, r.updated_at, r.exact, r.score::float8 as score,
          ${tsq ? sql`ts_headline('simple', ${passage}, ${tsq}, 'StartSel=«, StopSel=», MaxWords=30, MinWords=12, MaxFragments=2')` : sql`left(${passage}, 200)`} as headline
        from ranked r
      )
      select (select coalesce(json_agg(json_build_object('type', c.type, 'n', c.n)), '[]') from counts c) as counts,
        (select coalesce(json_agg(p order by p.pos), '[]') from page p) as results`),
    ),
  ] as const);
  const [row] = rowsOf<{ counts: unknown; results: unknown }>(result);
  const counted = json<{ type: SearchType; n: number }[]>(row!.counts);
  const total = counted.reduce((s, c) => s + c.n, 0);
  const order = Object.keys(SEARCH_TYPES) as SearchType[];
  const groups = counted
    .sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type))
    .map((c) => ({ type: c.type, label: SEARCH_TYPES[c.type] ?? c.type, count: c.n }));
  const results = json<(SearchResult & { pos: number })[]>(row!.results).map(({ pos: _pos, ...r }) => ({
    ...r,
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
