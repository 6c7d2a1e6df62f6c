/**
 * Issue 2: a page of 25 tags out of 100,000 per organization (1,000,000 in all, 10 organizations),
 * plain, sorted, filtered with filter JSON and searched with `q`, through the real app (JWT bearer,
 * tenancy, row level security, the generic CRUD list route) beside a bare Fastify route that runs the
 * same SQL by hand with postgres.js (the floor).
 */
import Fastify from 'fastify';
import type postgres from 'postgres';
import { countCap, oneListPlan } from '../../server/engine/list-query.js';
import { tagResource } from '../../server/tags/resources.js';
import { startSession } from '../../server/core/sessions.js';
import { benchDatabaseUrl, connect, ensureDatabase, SHARED_ORG_SLUGS, SHARED_ORGS } from '../lib/database.js';
import { appVsFloor, inTenantFloor, printFloorTable } from '../lib/floor.js';
import { defaultLoad, type BenchRequest } from '../lib/load.js';
import { listen, startApp } from '../lib/server.js';
import type { Suite } from '../lib/suite.js';

const ORGS = 10;
const TAGS_PER_ORG = 100_000;
const PAGE = 25;
const SEED_KEY = 'bench.tags.seed';
const SEED_VERSION = `v2:${ORGS}x${TAGS_PER_ORG}`;
/** Targets for a list of 25 over a million rows, on PostgreSQL. */
const TARGET_P99_MS = 50;
const TARGET_FLOOR_RATIO = 0.7;

const FIRST = [
  'api',
  'auth',
  'billing',
  'cache',
  'cdn',
  'checkout',
  'cluster',
  'cron',
  'database',
  'dns',
  'edge',
  'email',
  'etl',
  'gateway',
  'identity',
  'ingress',
  'kafka',
  'kube',
  'ledger',
  'login',
  'mobile',
  'network',
  'oauth',
  'payments',
  'queue',
  'redis',
  'search',
  'storage',
  'sync',
  'web',
];
const SECOND = [
  'latency',
  'outage',
  'timeout',
  'leak',
  'error',
  'spike',
  'drift',
  'breach',
  'phishing',
  'ransomware',
  'config',
  'deploy',
  'rollback',
  'certificate',
  'quota',
  'throttle',
  'replica',
  'failover',
  'backlog',
  'crash',
];
/** What people type in a tag search box: a whole word (broad, ~3-5% of tags) or the start of a name (narrow). */
const Q_TERMS = ['latency', 'kafka', 'redis-fail', 'timeout', 'payments', 'oauth-cert', 'rollback', 'dns-q'];
const SOURCES = ['product', 'github', 'jira', 'slack', 'pagerduty'];
const TAG_TYPES = ['Team', 'Service', 'Technique', 'Region', 'Product', 'Customer', 'Severity hint', 'Threat actor', 'Vendor', 'Component'];

const sqlArray = (words: string[]) => `array[${words.map((w) => `'${w}'`).join(',')}]`;

/**
 * Set-based seed, one transaction (so a crash leaves no half seed), marked in `settings` so re-runs
 * skip it. Names, sources, counts and dates come from hashes of the row number, so they are varied,
 * repeatable, independent of each other and uncorrelated with insertion order (index scans hit the
 * heap as they would on real data).
 */
async function seed(sql: postgres.Sql) {
  const [done] = await sql`select value from settings where key = ${SEED_KEY}`;
  if (done?.value === SEED_VERSION) return false;
  if (done) throw new Error(`The bench database holds a different seed (${done.value}); drop it or point BENCH_DATABASE_URL elsewhere.`);
  const started = Date.now();
  process.stdout.write(`seeding ${ORGS} organizations x ${TAGS_PER_ORG.toLocaleString('en-US')} tags... `);
  await sql.begin(async (tx) => {
    await tx.unsafe(`set local maintenance_work_mem = '256MB'`);
    await tx.unsafe(`
      insert into organizations (name, description, slug, plan)
      select 'Bench ' || n, 'Benchmark organization ' || n, 'bench-' || lpad(n::text, 2, '0'), 'team_pro'
      from generate_series(1, ${ORGS}) n on conflict (slug) do nothing`);
    await tx.unsafe(`
      insert into users (email, display_name)
      select 'owner@' || o.slug || '.bench', 'Bench owner ' || o.slug from organizations o where ${SHARED_ORGS}
      on conflict (email) do nothing`);
    await tx.unsafe(`
      insert into memberships (organization_id, user_id, role)
      select o.id, u.id, 'Owner' from organizations o join users u on u.email = 'owner@' || o.slug || '.bench'
      on conflict do nothing`);
    await tx.unsafe(`
      insert into tag_types (organization_id, name, description, "default", exclusive)
      select o.id, t.name, t.name || ' tags', t.ord = 1, t.ord in (4, 7)
      from organizations o cross join unnest(${sqlArray(TAG_TYPES)}) with ordinality t(name, ord)
      where ${SHARED_ORGS}`);
    await tx.unsafe(`
      insert into tags (organization_id, tag_type_id, name, source, uri, description, count, external_id, discoverable, created_at, updated_at)
      select o.id, tt.id,
        (${sqlArray(FIRST)})[1 + h1 % ${FIRST.length}] || '-' || (${sqlArray(SECOND)})[1 + (h1 / ${FIRST.length}) % ${SECOND.length}] || '-' || i,
        (${sqlArray(SOURCES)})[1 + h2 % ${SOURCES.length}],
        case when h3 % 3 = 0 then 'https://wiki.example.com/tags/' || i end,
        case when h3 % 4 = 0 then 'Generic tag' else 'Tag ' || i || ' seen in ' || (${sqlArray(SECOND)})[1 + h3 % ${SECOND.length}] || ' reports' end,
        -- long tail: most tags are rarely used, a few very often
        ((h4 % 1000)::float8 / 1000) ^ 6 * 5000,
        case when h5 % 5 = 0 then 'EXT-' || h5 % 1000000 end,
        h5 % 10 <> 0,
        now() - make_interval(secs => h6 % (730 * 86400)),
        now() - make_interval(secs => h6 % (30 * 86400))
      from organizations o
      cross join lateral generate_series(1, ${TAGS_PER_ORG}) i
      -- independent, well-mixed values per attribute (hashint8extended is PostgreSQL's own 64-bit hash)
      cross join lateral (select ${[1, 2, 3, 4, 5, 6, 7].map((k) => `abs(hashint8extended(i::bigint * 100 + o.id, ${k}) % 1000000007) as h${k}`).join(', ')}) x
      join tag_types tt on tt.organization_id = o.id and tt.name = (${sqlArray(TAG_TYPES)})[1 + h7 % ${TAG_TYPES.length}]
      where ${SHARED_ORGS}`);
    await tx`insert into settings (key, value) values (${SEED_KEY}, ${SEED_VERSION})`;
  });
  await sql.unsafe('vacuum analyze organizations, users, memberships, tag_types, tags, search_words, search_vocabulary');
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return true;
}

interface Org {
  id: number;
  slug: string;
  userId: number;
  email: string;
}

// Every column the app's list sends (the Tag resource's readable fields).
// The terms as the app answers them: `[{id, text}]` in the order kept.
const TAG_COLUMNS = `id, organization_id, project_id, tag_type_id, name, source, uri, description, count, external_id, discoverable,
  (select coalesce(json_agg(json_strip_nulls(json_build_object('id', e.id, 'text', t.text)) order by e.n), '[]'::json)
    from (select (x.v)::int as id, x.n from json_array_elements_text(tags.terms::json) with ordinality x(v, n)) e
    left join terms t on t.id = e.id and t.organization_id = tags.organization_id) as terms,
  created_at, updated_at,
  (select t.name from tag_types t where t.id = tags.tag_type_id and t.organization_id = tags.organization_id) as tag_type,
  (select p.name from projects p where p.id = tags.project_id and p.organization_id = tags.organization_id) as project`;
/** The nested references the app answers with (`tag_type: {id, name}` beside `tag_type_id`), made as the app makes them. */
const nest = (row: postgres.Row) => ({
  ...row,
  tag_type: row.tag_type_id === null ? null : { id: row.tag_type_id, name: row.tag_type },
  project: row.project_id === null ? null : { id: row.project_id, name: row.project },
});

/**
 * What each scenario asks, as the app's query string and as the floor's hand-written SQL: `$1` is the
 * organization id, `params` turns the scenario's value into the rest; `window` selects a page's ids
 * and `counted` the rows its capped count counts (after `with`, if any).
 */
interface Scenario {
  name: string;
  query: (k: number) => string;
  value: (k: number) => string;
  params: (value: string) => string[];
  /** A common table expression the statement starts with, if any. */
  with?: string;
  window: (offset: number) => string;
  counted: (offset: number) => string;
  order: string;
}

// The app's sort for text columns (textSortKey in server/engine/list-query.ts) and its id tie-break.
const NAME_ORDER = 'lower(name) collate "C" asc, id asc';

/** A scenario read from the tags table with a WHERE (`$2` the value, if any) in an ORDER. */
function fromTags(s: Pick<Scenario, 'name' | 'query' | 'value' | 'order'> & { where: string }): Scenario {
  const where = `organization_id = $1 and ${s.where}`;
  return {
    ...s,
    params: (value) => (s.where.includes('$2') ? [value] : []),
    window: (offset) => `select id from tags where ${where} order by ${s.order} limit ${PAGE} offset ${offset}`,
    counted: () => `select 1 from tags where ${where}`,
  };
}

// What the app runs for a tag search in name order (indexedSearch in server/engine/list-query.ts): the
// text parsed and the vocabulary's words containing its longest (for pairs, first) word, once
// (`search`); then one of three branches: one word's rows in list order from the index, several
// words' rows each once and sorted, or word pairs for a search with separators; when the search is
// more than one word, only rows whose sort key (lower case) matches the whole pattern. `$2` is the
// text, `$3` the ILIKE pattern.
const SEARCH = `search as (select parsed.*, array(select v.word from search_vocabulary v where v.organization_id = $1 and v.resource = 'tags'
  and v.word like parsed.containing) as words from search_parse($2::text) parsed)`;
const SEARCH_ROWS = `w.organization_id = $1 and w.resource = 'tags' and ((select whole from search) or w.sort_key like (select lower($3::text)))`;
const SEARCH_BRANCHES = [
  `w.word = (select words[1] from search) and (select not pair and cardinality(words) = 1 from search)`,
  `w.word = any((select words from search)::text[]) and (select not pair and cardinality(words) > 1 from search)`,
  `w.word = any((select words from search)::text[]) and (select pair from search)
   and w.next_word >= (select pieces[2] from search) and w.next_word < (select pieces[2] || chr(1114111) from search)`,
].map((words) => `select distinct w.sort_key as k, w.id from search_words w where ${SEARCH_ROWS} and ${words}`);
const searchUpTo = (n: number) => SEARCH_BRANCHES.map((branch) => `(${branch} order by k, id limit ${n})`).join(' union all ');

const scenarios: Scenario[] = [
  fromTags({ name: 'plain', query: () => '', value: () => '', where: 'true', order: NAME_ORDER }),
  fromTags({ name: 'sorted (count desc)', query: () => '&sortBy=count&descending=true', value: () => '', where: 'true', order: 'count desc, id asc' }),
  fromTags({
    name: 'filter JSON (source, discoverable)',
    query: (k) =>
      `&filter=${encodeURIComponent(
        JSON.stringify({
          and: [
            { field: 'source', op: '==', value: SOURCES[k % SOURCES.length] },
            { field: 'discoverable', op: '==', value: true },
          ],
        }),
      )}`,
    value: (k) => SOURCES[k % SOURCES.length]!,
    where: 'source = $2 and discoverable = true',
    order: NAME_ORDER,
  }),
  {
    name: 'q search (word index)',
    query: (k) => `&q=${Q_TERMS[k % Q_TERMS.length]}`,
    value: (k) => Q_TERMS[k % Q_TERMS.length]!,
    params: (term) => [term, `%${term}%`],
    with: SEARCH,
    window: (offset) => `select id from (${searchUpTo(offset + PAGE)}) matched order by k, id limit ${PAGE} offset ${offset}`,
    counted: (offset) => `select id from (${searchUpTo(countCap(offset, PAGE) + 1)}) matched`,
    order: NAME_ORDER,
  },
];

/** Whether the app runs a scenario's list on generic plans (the scope's plan mode; oneListPlan decides). */
const genericPlans = scenarios.map((s) => {
  const query = new URLSearchParams(s.query(0));
  return oneListPlan(tagResource, { page: 1, itemsPerPage: PAGE, q: query.get('q') ?? undefined, filter: query.get('filter') ?? undefined });
});

/**
 * The floor: bare Fastify and postgres.js running by hand the SQL the app sends for a page, with no
 * auth, no validation and no generic CRUD. `/floor` sends it as the app does: BEGIN READ ONLY, the
 * tenant scope (the app's own SCOPE_SQL: role, organization, membership check, plan mode), the page
 * joined to its capped count, and COMMIT, in one write on one connection, so row level security and
 * the plans are the app's. `/bare` sends the page statement alone, as the connecting superuser: it
 * shows what the tenant transaction itself costs.
 */
async function startFloor(url: string) {
  const sql = connect(url, 10);
  const app = Fastify({ logger: false });
  app.get<{ Params: { side: string; scenario: string }; Querystring: { org: string; user: string; page: string; v: string } }>(
    '/:side/:scenario',
    async (req) => {
      const s = scenarios[Number(req.params.scenario)]!;
      const page = Number(req.query.page);
      const params = [Number(req.query.org), ...s.params(req.query.v)];
      const offset = (page - 1) * PAGE;
      // The app's shape (compileList in server/engine/list-query.ts): the page's id window, then its rows,
      // joined to the capped count's single row, in one statement.
      const pageSql = `${s.with ? `with ${s.with} ` : ''}select ${TAG_COLUMNS}, counted.total from (${countSql(s.counted(offset), offset)}) counted
       left join tags on id = any(array(${s.window(offset)}))
       order by ${s.order}`;
      const rows =
        req.params.side === 'bare'
          ? await sql.unsafe(pageSql, params, { prepare: true })
          : await inTenantFloor(
              sql,
              { org: Number(req.query.org), user: Number(req.query.user), role: 'Owner', genericPlans: genericPlans[Number(req.params.scenario)]! },
              pageSql,
              params,
            );
      const items = rows[0]!.id === null ? [] : rows.map(({ total: _, ...item }) => nest(item));
      return { items, itemsPerPage: PAGE, page, total: rows[0]!.total };
    },
  );
  const baseUrl = await listen(app);
  return { baseUrl, close: async () => (await app.close(), await sql.end()) };
}

/** The count the app runs (compileList in server/engine/list-query.ts): exact up to the cap, then the cap. */
const countSql = (counted: string, offset: number) => {
  const cap = countCap(offset, PAGE);
  return `select least(count(*)::int, ${cap}) as total from (${counted} limit ${cap + 1}) capped`;
};

const suite: Suite = {
  name: 'tags',
  description: `a page of ${PAGE} tags, ${ORGS} organizations x ${TAGS_PER_ORG.toLocaleString('en-US')} tags; app vs a floor running its SQL by hand`,
  async run() {
    const url = benchDatabaseUrl();
    await ensureDatabase(url);
    const { app, baseUrl } = await startApp(url); // applies the migrations
    const sql = connect(url, 2);
    const floor = await (async () => {
      await seed(sql);
      return startFloor(url);
    })();
    try {
      const orgs: Org[] = (await sql`
        select o.id, o.slug, u.id as "userId", u.email from organizations o
        join users u on u.email = 'owner@' || o.slug || '.bench'
        where o.slug ~ ${SHARED_ORG_SLUGS} order by o.slug`) as unknown as Org[];
      if (orgs.length !== ORGS) throw new Error(`Expected ${ORGS} bench organizations, found ${orgs.length}.`);
      // A real sign-in token per organization's owner, signed by the app's own JWT key.
      const tokens = await Promise.all(orgs.map((o) => startSession(app, { id: o.userId, email: o.email }, '1h')));
      const opts = defaultLoad();
      const targets = { p99Ms: TARGET_P99_MS, floorRatio: TARGET_FLOOR_RATIO };
      const rows: (string | number)[][] = [];
      let passed = true;
      const check = (body: unknown) => {
        const b = body as { items?: unknown[]; total?: number };
        return Array.isArray(b.items) && b.items.length === PAGE && typeof b.total === 'number' && b.total >= PAGE ? null : 'expected a full page and a total';
      };
      // The same rows with the same fields: a floor that skipped columns would do less work.
      const key = (b: Record<string, unknown>) => {
        const items = b.items as { id: number }[];
        return `ids ${items.map((i) => i.id).join(',')}, fields ${Object.keys(items[0]!).sort().join(',')}, total ${b.total}`;
      };

      // BENCH_ONLY=plain,sorted runs the scenarios whose names start with one of the given words.
      const only = process.env.BENCH_ONLY?.split(',').filter(Boolean);
      for (const [index, s] of scenarios.entries()) {
        if (only && !only.some((o) => s.name.startsWith(o))) continue;
        // 40 distinct requests: every organization, a few pages and values, cycled by each connection.
        const app: BenchRequest[] = [];
        const floorRequests: BenchRequest[] = [];
        for (let k = 0; k < 40; k++) {
          const org = orgs[k % ORGS]!;
          const page = 1 + (k % 4);
          app.push({
            path: `/api/v1/${org.slug}/tags?page=${page}&itemsPerPage=${PAGE}${s.query(k)}`,
            headers: { authorization: `Bearer ${tokens[k % ORGS]}` },
          });
          floorRequests.push({ path: `/floor/${index}?org=${org.id}&user=${org.userId}&page=${page}&v=${encodeURIComponent(s.value(k))}` });
        }
        const bare = floorRequests.map((r) => ({ path: r.path.replace(/^\/floor\//, '/bare/') }));
        const result = await appVsFloor(
          baseUrl,
          floor.baseUrl,
          { name: s.name, app, floor: floorRequests, more: [{ server: 'bare', requests: bare }], check, key },
          opts,
          targets,
        );
        rows.push(...result.rows);
        passed &&= result.passed;
      }
      printFloorTable(opts, `targets: app p99 <= ${TARGET_P99_MS} ms, app req/s >= ${TARGET_FLOOR_RATIO * 100}% of floor`, rows);
      return { passed };
    } finally {
      await app.close();
      await floor.close();
      await sql.end();
    }
  },
};

export default suite;
