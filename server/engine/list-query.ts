import { and, asc, desc, getTableColumns, ilike, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import { compileSelect, runCompiledRows, type CompiledSelect } from './compiled-select.js';
import { itemsWriter } from './serialize.js';
import type { Tx } from '../core/db/client.js';
import { z } from 'zod';
import { invalid } from '../core/errors.js';
import { searchVocabulary, searchWords } from './search-index.js';
import type { ResourceDefinition } from './define.js';
import type { RequestContext } from '../core/context.js';
import { visibleRelations, type AnsweredReference } from './nested.js';
import { columnType, compileFilter, containing, filterFieldNames, type FilterField } from './filters.js';

/** The most rows one page may hold; `itemsPerPage=-1` ("all") is capped here too. */
export const MAX_PAGE_SIZE = 10000;
export const MAX_PAGE = 1_000_000_000;

const stringOrList = z.union([z.string(), z.array(z.string())]).optional();

export const listQuerySchema = (pageSize: number) =>
  z.strictObject({
    // Pages beyond this hold nothing anyone can reach, and keep offset and count cap plain integers.
    page: z.coerce.number().int().min(1).max(MAX_PAGE).default(1),
    itemsPerPage: z.coerce
      .number()
      .int()
      .min(-1)
      .max(MAX_PAGE_SIZE)
      .refine((n) => n !== 0, 'itemsPerPage must be -1 or at least 1')
      .default(pageSize),
    sortBy: stringOrList,
    'sortBy[]': stringOrList,
    descending: stringOrList,
    'descending[]': stringOrList,
    q: z.string().max(200).optional(),
    filter: z.string().max(20000).optional(),
  });
export type ListQuery = z.infer<ReturnType<typeof listQuerySchema>>;

const asList = (...v: (string | string[] | undefined)[]) => v.flatMap((x) => (x === undefined ? [] : Array.isArray(x) ? x : [x]));

/** Columns and computed values a definition exposes, by name. */
export function readableFields(def: ResourceDefinition, ctx: RequestContext) {
  const columns = getTableColumns(def.table) as Record<string, PgColumn>;
  const hidden = new Set(def.hidden ?? []);
  const selection: Record<string, PgColumn | SQL.Aliased> = {};
  for (const [name, column] of Object.entries(columns)) if (!hidden.has(name)) selection[name] = column;
  const computed = def.computed?.(ctx) ?? {};
  for (const [name, expr] of Object.entries(computed)) selection[name] = expr.as(name);
  // Each reference's name, read with the row (a correlated lookup by primary key), unless a computed
  // value already holds it (`incident_type_name`); nestRecord makes `{id, name}` of it.
  // Names of rows the caller may not see are not read (visibleRelations).
  const relations = visibleRelations(def, ctx);
  const nested: AnsweredReference[] = [];
  for (const a of relations.answered) {
    // A computed value under the nested key answers it itself (a workflow's plugin_instance with its slug).
    if (hidden.has(a.field) || !(a.field in selection) || Object.hasOwn(computed, a.key)) continue;
    const from = Object.hasOwn(computed, `${a.key}_name`) && a.nameKey === 'name' ? `${a.key}_name` : a.key;
    if (from === a.key) selection[a.key] = a.name.as(a.key);
    nested.push({ key: a.key, field: a.field, nameKey: a.nameKey, from });
  }
  // Lists of ids come with their objects, made by the statement (a JSON array per row), unless a
  // computed value under the key answers them itself (a source's incidents with their titles).
  for (const a of relations.answeredLists)
    if (!hidden.has(a.field) && a.field in selection && !Object.hasOwn(computed, a.key)) selection[a.key] = a.list.as(a.key);
  // People by e-mail answer `{"email"}` beside their field.
  for (const p of relations.people) if (p.answer && !hidden.has(p.field) && !Object.hasOwn(computed, p.key)) selection[p.key] = p.answer.as(p.key);
  const filterable: Record<string, FilterField> = {};
  for (const name of ['id', ...def.fields]) {
    const column = columns[name];
    if (column) filterable[name] = { column, type: columnType(column) };
    else if (computed[name]) filterable[name] = { column: computed[name]!, type: 'string' };
  }
  return { columns, selection, filterable, nested, relations };
}

/**
 * Whether one generic plan serves every run of a list's statement (TenantOptions.genericPlans), as it
 * does when only the organization and offset vary. An ILIKE search pattern can change which plan is
 * best, and so can a filter on a column that leads an index of its own: a rare value is best read from
 * that index, a common one along the sort's. A filter on any other column is read along the sort's
 * index (or the whole organization) whatever its value, so its lists keep one plan too.
 */
export function oneListPlan(def: ResourceDefinition, query: ListQuery): boolean {
  // A search from the word index reads its values in steps of their own (InitPlans: the vocabulary's
  // trigram index takes the pattern when it runs), so one plan serves every search text.
  if (usesSearchIndex(def, query)) return true;
  if (query.q?.trim()) return false;
  if (!query.filter?.trim()) return true;
  const names = filterFieldNames(query.filter, def.model);
  const columns = getTableColumns(def.table) as Record<string, PgColumn>;
  const leaders = indexLeaders(def.table);
  return names !== undefined && names.every((name) => Object.hasOwn(columns, name) && !leaders.has(columns[name]!.name));
}

const leadersByTable = new WeakMap<PgTable, Set<string>>();

/** Columns that lead an index of `table` (after organization_id, which leads every tenant index). */
function indexLeaders(table: PgTable): Set<string> {
  let leaders = leadersByTable.get(table);
  if (!leaders) {
    const { indexes, uniqueConstraints, columns } = getTableConfig(table);
    const keys: { name?: string }[][] = [
      ...indexes.map((i) => i.config.columns as { name?: string }[]),
      ...uniqueConstraints.map((u) => u.columns),
      ...columns.filter((c) => c.primary).map((c) => [c]),
    ];
    // An expression (no name) leads nothing a filter names.
    leaders = new Set(keys.map((k) => (k[0]?.name === 'organization_id' ? k[1] : k[0])?.name).filter((n): n is string => n !== undefined));
    leadersByTable.set(table, leaders);
  }
  return leaders;
}

/** The fields a list is ordered by, each with whether it is descending: sortBy, else the definition's sort. */
function listOrder(def: ResourceDefinition, query: ListQuery): [string, boolean][] {
  const sortBy = asList(query.sortBy, query['sortBy[]']);
  const descending = asList(query.descending, query['descending[]']).map((d) => d === 'true' || d === '1');
  return sortBy.length ? sortBy.map((field, i) => [field, descending[i] ?? false]) : def.sort.map(([field, dir]) => [field, dir === 'desc']);
}

const hasIndexedWord = (query: ListQuery) => /[a-z0-9]{3}/i.test(query.q ?? '');

/**
 * Whether a list's `q` is answered from `search_words` (indexedSearch) rather than by ILIKE over the
 * table: the definition has a search index, the list is in its default order with no filter, and the
 * search holds a run of three ASCII letters or digits (a word the vocabulary's trigram index can look
 * up; a shorter search walks the sort's index with ILIKE, which finds its matches close together).
 */
export function usesSearchIndex(def: ResourceDefinition, query: ListQuery): boolean {
  if (!def.searchIndex || query.filter?.trim() || !hasIndexedWord(query)) return false;
  const order = listOrder(def, query);
  return order.length === def.sort.length && order.every(([field, desc_], i) => field === def.sort[i]![0] && desc_ === (def.sort[i]![1] === 'desc'));
}

/** Turns list parameters into the WHERE and ORDER BY of a definition's list query (`fields`: readableFields of it). */
export function listClauses(def: ResourceDefinition, { columns, filterable, relations }: ReturnType<typeof readableFields>, query: ListQuery) {
  const conditions: (SQL | undefined)[] = [];
  if (query.q?.trim() && def.search.length && !usesSearchIndex(def, query))
    conditions.push(or(...def.search.map((name) => ilike(columns[name]!, sql.placeholder('q')))));
  if (query.filter?.trim()) conditions.push(compileFilter(query.filter, def.model, filterable, { ...relations.filters, ...def.customFilters }));

  const order = listOrder(def, query);
  const orderBy: SQL[] = order.map(([field, desc_], i) => {
    // A reference's nested key alone (`project`) sorts by the name it answers (`project.name`).
    const named = relations.answered.find((a) => a.key === field);
    const sortName = named && !Object.hasOwn(filterable, field) ? `${field}.${named.nameKey}` : field;
    const target = Object.hasOwn(filterable, field) ? filterable[field] : Object.hasOwn(relations.sorts, sortName) ? relations.sorts[sortName] : undefined;
    if (!target) throw invalid(`Cannot sort by unknown field '${field}'.`, ['query', 'sortBy', i], 'sort_error');
    const key = target.type === 'string' ? textSortKey(target.column) : target.column;
    return desc_ ? desc(key) : asc(key);
  });
  // Ascending id breaks ties so pages stay stable; sort indexes end with id (ascending) to match.
  if (!order.some(([field]) => field === 'id')) orderBy.push(asc(columns.id!));
  return { conditions, orderBy };
}

/**
 * A search answered from `search_words` (usesSearchIndex), as the CTE it needs, the page's id window
 * and the rows to count. The CTE `search` (computed once) parses the text (`search_parse`) and holds
 * the organization's vocabulary words containing its longest word (for pairs, its first). A search
 * with no separators (`latency`) occurs in a text exactly when it occurs in one of the text's words;
 * with separators (`redis-fail`) the row's sort key, the lower-cased field (see
 * ResourceDefinition.searchIndex), must match the whole pattern too. Of the three branches one runs:
 * - one vocabulary word (the usual case, a whole word typed): the index hands its rows over in list
 *   order, so the window and the capped count stop early;
 * - several words: each row once, sorted;
 * - word pairs, for a search with separators: rows with a word containing the first word followed
 *   by a word starting with the second (a range of the pair index), sorted.
 */
function indexedSearch(def: ResourceDefinition, db: Tx, org: number | Placeholder) {
  const resource = getTableConfig(def.table).name;
  const text = sql`${sql.placeholder('words')}::text`;
  const v = searchVocabulary;
  const search = db.$with('search', {})
    .as(sql`select parsed.*, array(select ${v.word} from ${v} where ${v.organization_id} = ${org} and ${v.resource} = ${resource}
      and ${v.word} like parsed.containing) as words from search_parse(${text}) parsed`);
  const w = searchWords;
  const { id, sort_key: k, word, next_word: next } = w;
  // The sort key is already lower case: LIKE on its bytes is ILIKE's answer without lower-casing each row.
  const rows = sql`${w.organization_id} = ${org} and ${w.resource} = ${resource} and ((select whole from search) or ${k} like (select lower(${sql.placeholder('q')}::text)))`;
  const branches = [
    sql`select distinct ${k} as k, ${id} as id from ${w} where ${rows}
      and ${word} = (select words[1] from search) and (select not pair and cardinality(words) = 1 from search)`,
    sql`select distinct ${k} as k, ${id} as id from ${w} where ${rows}
      and ${word} = any((select words from search)::text[]) and (select not pair and cardinality(words) > 1 from search)`,
    sql`select distinct ${k} as k, ${id} as id from ${w} where ${rows}
      and ${word} = any((select words from search)::text[]) and (select pair from search)
      and ${next} >= (select pieces[2] from search) and ${next} < (select pieces[2] || chr(1114111) from search)`,
  ];
  const { offset, limit, count } = LIST_PLACEHOLDERS;
  // Each branch is ordered and limited on its own, so the one-word branch stops after the page.
  const upTo = (n: SQL) =>
    sql.join(
      branches.map((branch) => sql`(${branch} order by k, id limit ${n})`),
      sql` union all `,
    );
  const window = sql`select id from (${upTo(sql`${offset}::bigint + ${limit}::bigint`)}) matched order by k, id limit ${limit} offset ${offset}`;
  return { search, window, matched: sql`(${upTo(sql`${count}`)}) matched` };
}

/** The rows a list page asks for (`limit` from `offset`), and how far its count goes (countCap). */
export function pageWindow(query: ListQuery) {
  const limit = query.itemsPerPage === -1 ? MAX_PAGE_SIZE : query.itemsPerPage;
  const offset = (query.page - 1) * limit;
  return { limit, offset, cap: countCap(offset, limit) };
}

/**
 * The page's size, its offset and how many rows its count reads (the cap plus one) are bind
 * parameters, never written into the statement's text (review F9): each distinct text is one more
 * prepared statement, and its plan, on every pooled connection for the connection's life, so page
 * sizes written out let any caller grow the database's memory with the sizes they send. PostgreSQL
 * plans a list the same way either way: the offset was always a parameter, and with any parameter
 * in LIMIT or OFFSET the planner assumes a tenth of the rows are wanted when it picks the paths.
 */
const LIST_PLACEHOLDERS = { offset: sql.placeholder('offset'), limit: sql.placeholder('limit'), count: sql.placeholder('count') };

/**
 * A list page's statement: its rows, each followed by the capped count and the row's id, or one row
 * with the count and a null id when the page is empty. It takes the `q` pattern (and text), the
 * page's size and offset and the count's limit as placeholders (listValues), and the organization
 * too where `scope` is `eq(organization_id, sql.placeholder('org'))`, so one compiled statement
 * serves every page, page size and organization of the same shape (listShape).
 */
export interface ListStatement {
  page: CompiledSelect;
  /** The page's records as JSON text, from its rows (serialize.ts). */
  write: (rows: unknown[][], count: number) => string;
}

export function compileList(
  def: ResourceDefinition,
  fields: ReturnType<typeof readableFields>,
  query: ListQuery,
  scope: SQL,
  db: Tx,
  org: number | Placeholder,
): ListStatement {
  const { conditions, orderBy } = listClauses(def, fields, query);
  const where = and(scope, ...conditions);
  const id = fields.columns.id!;
  const { offset, limit, count } = LIST_PLACEHOLDERS;
  let counted,
    window,
    base: Pick<Tx, 'select'> = db;
  if (usesSearchIndex(def, query)) {
    const search = indexedSearch(def, db, org);
    base = db.with(search.search);
    counted = db
      .select({ one: sql`1`.as('one') })
      .from(search.matched)
      .limit(count)
      .as('counted');
    window = search.window;
  } else {
    // `count(*) from (select 1 ... where <where> limit cap + 1)`: exact below the cap, cheap above it.
    counted = db
      .select({ one: sql`1`.as('one') })
      .from(def.table)
      .where(where)
      .limit(count)
      .as('counted');
    // The page's ids first, then its rows: the id window can come from an index alone (sort indexes
    // carry the columns lists filter on most), so skipped and filtered-out rows cost no table reads;
    // only the page's own rows are fetched, with their computed fields.
    window = db
      .select({ id })
      .from(def.table)
      .where(where)
      .orderBy(...orderBy)
      .limit(limit)
      .offset(offset);
  }
  const total = db
    .select({ n: countAll.as('n') })
    .from(counted)
    .as('list_total');
  // The page's rows are joined to the count's single row, so count and page take one statement, and
  // an empty page still brings the count.
  const page = base
    .select({ ...fields.selection, [TOTAL_COLUMN]: total.n, [ROW_COLUMN]: id })
    .from(total)
    .leftJoin(def.table, sql`${id} = any(array(${window}))`)
    .orderBy(...orderBy);
  const compiled = compileSelect(page, fields.selection, fields.nested);
  return { page: compiled, write: itemsWriter(compiled) };
}

// Trailing columns of a list statement's rows (after the record's own), named apart from any field.
const TOTAL_COLUMN = '(list total)';
const ROW_COLUMN = '(list row)';

/** Everything a list request's statement depends on besides the caller and the placeholders' values (not the page or its size). */
export function listShape(query: ListQuery) {
  return JSON.stringify([
    query.sortBy,
    query['sortBy[]'],
    query.descending,
    query['descending[]'],
    !!query.q?.trim(),
    hasIndexedWord(query),
    query.filter?.trim() ?? '',
  ]);
}

/** The placeholders' values of a list request (see ListStatement). */
export function listValues(query: ListQuery, orgId: number) {
  const q = query.q?.trim() ?? '';
  const { limit, offset, cap } = pageWindow(query);
  return { org: orgId, offset, limit, count: cap + 1, q: containing(q), words: q };
}

/**
 * Runs a list page's statement with its values (listValues) and answers the page as JSON text: its
 * records (at most `limit`), the total (exact up to the cap, see COUNT_CAP), whether it was capped,
 * and the page asked for; the text JSON.stringify would write of that object.
 */
export async function runListPage(tx: Tx, statement: ListStatement, values: ReturnType<typeof listValues>, query: ListQuery): Promise<string> {
  const rows = await runCompiledRows(tx, statement.page, values);
  const width = statement.page.keys.length;
  const n = rows[0]![width] as number;
  const cap = values.count - 1;
  const items = rows[0]![width + 1] === null ? '[]' : statement.write(rows, values.limit);
  return `{"items":${items},"total":${Math.min(n, cap)},"totalCapped":${n > cap},"itemsPerPage":${query.itemsPerPage},"page":${query.page}}`;
}

/**
 * Text sorts ignore case and use byte order, so PGlite (C collation) and a PostgreSQL server (often
 * en_US) list rows in the same order. Indexes that serve a sort use the same expression.
 */
export const textSortKey = (column: PgColumn | SQL) => sql`lower(${column}) collate "C"`;

export const countAll = sql<number>`count(*)::int`;

/**
 * A LIMIT written into a statement's text (drizzle binds a number as a parameter). Lists do not use
 * it (each distinct value would be one more prepared statement: see LIST_PLACEHOLDERS); a statement
 * with one fixed limit may. `n` must be a whole number.
 */
export const literalLimit = (n: number) => sql.raw(String(Math.trunc(n))) as unknown as number;

/**
 * Lists count at most this many rows past the start of the window the page sits in, so a count never
 * walks a whole organization's table: `total` is exact up to the cap; beyond it `total` is the cap
 * and `totalCapped` is true ("more than total"). The window doubles as the caller pages on, and
 * `total` always shows whether a next page exists.
 */
export const COUNT_CAP = 1000;

/** How far the count of a page at `offset` with `limit` rows may go: COUNT_CAP times a power of two, past the page. */
export const countCap = (offset: number, limit: number) => {
  let cap = COUNT_CAP;
  while (cap < offset + limit + 1) cap *= 2;
  return cap;
};
