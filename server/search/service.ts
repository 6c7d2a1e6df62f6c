import { sql, type SQL } from 'drizzle-orm';
import { rowsOf } from '../core/db/client.js';
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

/**
 * Rows the caller may not see, as SQL on search_entries `e`: those of restricted incidents and cases
 * they are not part of (the rule of incidents/common.ts, the one lists and reads use), submissions
 * above their sensitivity level (unless they uploaded them), and other people's chats. The hidden
 * incidents and cases are few: read once per search and handed to its statements as arrays.
 */
async function visible(ctx: RequestContext): Promise<SQL> {
  const parts: SQL[] = [];
  if (!atLeast(ctx.role, 'Admin')) {
    const [hidden] = rowsOf<{ incidents: string; cases: string }>(
      await ctx.tx.execute(sql`select
        array(select ${incidents.id} from ${incidents} where ${incidents.organization_id} = ${ctx.orgId} and not coalesce(${incidentScope(ctx)}, false))::text as incidents,
        array(select ${cases.id} from ${cases} where ${cases.organization_id} = ${ctx.orgId} and not coalesce(${caseScope(ctx)}, false))::text as cases`),
    );
    if (hidden!.incidents !== '{}') parts.push(sql`(e.incident_id is null or e.incident_id <> all(${hidden!.incidents}::int[]))`);
    if (hidden!.cases !== '{}') parts.push(sql`(e.case_id is null or e.case_id <> all(${hidden!.cases}::int[]))`);
  }
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

/** One search over every type, in the caller's organization and rights. */
export async function search(ctx: RequestContext, query: string, types: SearchType[], page: number): Promise<SearchAnswer> {
  const tsq = tsqueryOf(parseSearch(query));
  const key = query.trim().toLowerCase();
  if (!tsq && !key) return empty(query, page);
  const where = sql`e.organization_id = ${ctx.orgId} and ${await visible(ctx)}`;
  const ofTypes = types.length
    ? sql` and e.type in (${sql.join(
        types.map((t) => sql`${t}`),
        sql`, `,
      )})`
    : sql``;
  const matching = tsq ? sql`e.tsv @@ (${tsq})` : sql`false`;

  // No JIT: compiling took 50 to 100 ms of a search that runs in a few; no parallel workers either
  // (starting them costs more than the little each search reads).
  await ctx.tx.execute(sql`select set_config('jit', 'off', true), set_config('max_parallel_workers_per_gather', '0', true)`);
  // A broad search (a common word, a short prefix: more matches than BROAD_ESTIMATE by the planner's
  // estimate) would cost hundreds of milliseconds to gather from the word index, and its matches would
  // come in storage order, the oldest first. It reads the newest WINDOW rows instead, walking the
  // recency index; its counts are those of that window (at least that many), its page ranks their
  // matches. Any other search counts and ranks its matches from the word index. The plans are set
  // here, not left to the planner: a recency walk taken for a rare word would read every row.
  const broad = tsq !== undefined && (await estimatedMatches(ctx, tsq)) > BROAD_ESTIMATE;
  await ctx.tx.execute(
    broad
      ? sql`select set_config('enable_indexscan', 'on', true), set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true)`
      : sql`select set_config('enable_indexscan', 'off', true), set_config('enable_seqscan', 'off', true)`,
  );
  const counted = rowsOf<{ type: SearchType; n: number }>(
    await ctx.tx.execute(
      broad
        ? sql`
          select w.type, count(*)::int as n from (select e.type, e.tsv from search_entries e where ${where} order by e.updated_at desc nulls last limit ${WINDOW}) w
          where w.tsv @@ (${tsq}) group by w.type`
        : sql`
          select m.type, count(*)::int as n from (
            select e.type from search_entries e where ${where} and (${matching} or (e.key = ${key} and e.key <> '')) limit ${COUNT_CAP + 1}
          ) m group by m.type`,
    ),
  );
  const total = counted.reduce((s, c) => s + c.n, 0);
  const order = Object.keys(SEARCH_TYPES) as SearchType[];
  const groups = counted
    .sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type))
    .map((c) => ({ type: c.type, label: SEARCH_TYPES[c.type] ?? c.type, count: c.n }));
  const answer: SearchAnswer = { ...empty(query, page), total: broad ? total : Math.min(total, COUNT_CAP), total_capped: broad || total > COUNT_CAP, groups };
  if (!total) return answer;

  // The passage: from the body where the words are in it, else the title (a tag's name, a term).
  const passage = sql`left(case when ${tsq ? sql`to_tsvector('simple', regexp_replace(lower(r.body), '[^[:alnum:]]+', ' ', 'g')) @@ (${tsq})` : sql`false`} then r.body else r.title end, 5000)`;
  // Incidents and cases, what people search for most, weigh half again as much as the rest.
  // Exact names first, found through their own index whatever the text search thinks of them; then the
  // text matches (CANDIDATES at most, see there), ranked by relevance (title words weigh more) with a recency boost
  // that halves a row's score bonus after about a month.
  const rows = rowsOf<SearchResult & { body: string }>(
    await ctx.tx.execute(sql`
      with candidates as (
        (select e.* from search_entries e where ${where}${ofTypes} and e.key = ${key} and e.key <> '' limit ${PAGE_SIZE})
        union
        ${
          broad
            ? sql`(select w.* from (select e.* from search_entries e where ${where}${ofTypes} order by e.updated_at desc nulls last limit ${WINDOW}) w where w.tsv @@ (${tsq}) limit ${CANDIDATES})`
            : sql`(select e.* from search_entries e where ${where}${ofTypes} and ${matching} limit ${CANDIDATES})`
        }
      ),
      ranked as (
        select c.*, c.key = ${key} as exact,
          ${tsq ? sql`ts_rank_cd(c.tsv, ${tsq})` : sql`0`} * (1 + 1 / (1 + extract(epoch from now() - c.updated_at) / 2592000))
            * case when c.type in ('Incident', 'Case') then 1.5 else 1 end as score
        from candidates c
        order by exact desc, score desc, c.updated_at desc, c.source, c.source_id
        limit ${PAGE_SIZE} offset ${(page - 1) * PAGE_SIZE}
      )
      select r.type, r.source_id as id, r.title, r.link, r.updated_at, r.exact, r.score::float8 as score,
        ${tsq ? sql`ts_headline('simple', ${passage}, ${tsq}, 'StartSel=«, StopSel=», MaxWords=30, MinWords=12, MaxFragments=2')` : sql`left(${passage}, 200)`} as headline
      from ranked r
      order by r.exact desc, r.score desc, r.updated_at desc, r.source, r.source_id`),
  );
  answer.results = rows.map((r) => ({ ...r, updated_at: new Date(r.updated_at).toISOString() }));
  return answer;
}
