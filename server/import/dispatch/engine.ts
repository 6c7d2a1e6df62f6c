import { and, eq, getTableColumns, getTableName, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type postgres from 'postgres';
import { relaxed, rowsOf, type Db, type Executor } from '../../core/db/client.js';
import { importMap } from '../tables.js';
import type { Report } from './report.js';

export const SOURCE = 'dispatch';
/** Rows a transaction and a multi-row INSERT (a few hundred: fewer round trips, well under the 65,535 parameters). */
export const CHUNK = 500;

type Values = Record<string, unknown>;
export type Target = PgTable & { id: PgColumn; organization_id: PgColumn };
/** A row that cannot be carried, with the reason the report gives. */
export interface Unmapped {
  skip: string;
}
export const unmapped = (skip: string): Unmapped => ({ skip });
export const isUnmapped = (v: object): v is Unmapped => 'skip' in v && Object.keys(v).length === 1;

export interface Progress {
  tick(organization: string, kind: string, done: number, total: number): void;
}

export interface ImportOptions {
  dryRun: boolean;
  signalsDays: number;
  dispatchKey?: string;
  trialDays: number;
  /**
   * Commits need not wait for the disk: on PostgreSQL only, whose server flushes them within a moment
   * and outlives the importer. Embedded, the importer is the database and nothing flushes a relaxed
   * commit later: a killed run had kept none of its 500 committed incidents.
   */
  relaxedCommits?: boolean;
}

/** One organization's import: the source schema, the target organization, and what was mapped so far. */
export class Ctx {
  /** kind -> source id -> Firewatch id (negative: a row a dry run would create). */
  private readonly maps = new Map<string, Map<string, number>>();
  private planned = 0;

  constructor(
    readonly db: Db,
    readonly src: postgres.Sql,
    readonly schema: string,
    readonly orgId: number,
    readonly org: string,
    readonly report: Report,
    readonly options: ImportOptions,
    readonly progress?: Progress,
  ) {}

  get dryRun() {
    return this.options.dryRun;
  }

  async loadMap() {
    if (this.orgId < 0) return;
    const rows = await this.db
      .select()
      .from(importMap)
      .where(and(eq(importMap.organization_id, this.orgId), eq(importMap.source, SOURCE)));
    for (const r of rows) this.mapOf(r.kind).set(r.source_id, r.target_id);
  }

  mapOf(kind: string) {
    return this.maps.get(kind) ?? this.maps.set(kind, new Map()).get(kind)!;
  }

  /** The Firewatch id of an imported source row, or null (none given, or not imported). */
  ref(kind: string, sourceId: unknown): number | null {
    if (sourceId === null || sourceId === undefined) return null;
    return this.mapOf(kind).get(String(sourceId)) ?? null;
  }

  placeholder() {
    return -++this.planned;
  }

  /** Rows of the tenant schema: `q` is SQL with {s} standing for the schema-qualified prefix. */
  rows<T>(q: string, ...params: postgres.ParameterOrJSON<never>[]): Promise<T[]> {
    return this.src.unsafe(q.replaceAll('{s}', `"${this.schema}".`), params as never) as unknown as Promise<T[]>;
  }
}

export interface KindSpec<Row extends { id: unknown }> {
  kind: string;
  table: Target;
  rows: (ctx: Ctx) => Promise<Row[]>;
  map: (row: Row, ctx: Ctx) => Values | Unmapped;
  /**
   * The columns of an existing Firewatch row the new one is (adopted instead of duplicated): a natural
   * key, e.g. an incident's name. `caseless`: compared without case (Firewatch's "Default" project is Dispatch's "default").
   */
  natural?: readonly string[];
  caseless?: boolean;
  /** Columns written on insert only (a generated key that a re-run must not replace). */
  onInsert?: (row: Row, ctx: Ctx) => Values;
  /** Per column, whether a stored value already stands for the wanted one (when equality cannot tell). */
  same?: Record<string, (stored: unknown, wanted: unknown, ctx: Ctx) => boolean>;
}

const stable = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(stable).join(',')}]`
    : v && typeof v === 'object'
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${k}:${stable((v as Values)[k])}`)
          .join(',')}}`
      : JSON.stringify(v);
const norm = (v: unknown) => (v === undefined || v === null ? 'null' : v instanceof Date ? JSON.stringify(v.toISOString()) : stable(v));

function changedColumns(stored: Values, wanted: Values, same: KindSpec<never>['same'], ctx: Ctx): Values {
  const changes: Values = {};
  for (const [key, value] of Object.entries(wanted)) {
    const equal = same?.[key] ? same[key](stored[key], value, ctx) : norm(stored[key]) === norm(value);
    if (!equal) changes[key] = value;
  }
  return changes;
}

const naturalKey = (spec: KindSpec<never>, values: Values) => {
  const key = spec.natural!.map((column) => norm(values[column])).join('\u0000');
  return spec.caseless ? key.toLowerCase() : key;
};

/**
 * The kind's existing Firewatch rows by natural key, read once for the whole kind (only when some row
 * is new to the import map: a re-run reads nothing).
 */
async function naturalIds(ctx: Ctx, spec: KindSpec<never>): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  if (ctx.orgId < 0) return ids;
  const columns = Object.fromEntries(spec.natural!.map((c) => [c, (spec.table as unknown as Record<string, PgColumn>)[c]!]));
  const rows = (await ctx.db
    .select({ id: spec.table.id, ...columns })
    .from(spec.table)
    .where(eq(spec.table.organization_id, ctx.orgId))) as Values[];
  for (const r of rows) ids.set(naturalKey(spec, r), r.id as number);
  return ids;
}

interface Mapped<Row> {
  row: Row;
  id: string;
  values: Values;
}

/**
 * Imports one kind, a chunk of rows a transaction: maps each source row, then per chunk one SELECT of
 * the rows already imported (updated where they changed), one statement inserting the new ones and
 * their import-map entries. A chunk is committed with its map entries, so a run stopped midway
 * resumes after the last committed chunk.
 */
async function importKind<Row extends { id: unknown }>(ctx: Ctx, spec: KindSpec<Row>, rows: Row[]) {
  const counts = ctx.report.of(ctx.org, spec.kind);
  counts.source += rows.length;
  const map = ctx.mapOf(spec.kind);
  let natural: Map<string, number> | undefined;
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk: Mapped<Row>[] = [];
    for (const row of rows.slice(i, i + CHUNK)) {
      const id = String(row.id);
      const mapped = spec.map(row, ctx);
      if (isUnmapped(mapped)) ctx.report.skip(ctx.org, spec.kind, id, mapped.skip);
      else chunk.push({ row, id, values: { ...mapped, organization_id: ctx.orgId } });
    }
    if (spec.natural && !natural && chunk.some((m) => !map.has(m.id))) natural = await naturalIds(ctx, spec as never);
    await committed(ctx, (tx) => importChunk(tx, ctx, spec, chunk, natural));
    ctx.progress?.tick(ctx.org, spec.kind, Math.min(i + CHUNK, rows.length), rows.length);
  }
}

/**
 * Imports `specs` in order, each kind's Dispatch rows read (on the source's connection) while the kind
 * before is written: at 2,000 incidents reading the events took about 0.45 s. A kind's rows are
 * Dispatch's alone, so reading them early changes nothing.
 */
export async function importKinds<Row extends { id: unknown }>(ctx: Ctx, specs: KindSpec<Row>[]) {
  const read = (spec: KindSpec<Row> | undefined) => {
    const rows = spec?.rows(ctx);
    // Awaited at its turn; a failure before then must not count as unhandled.
    rows?.catch(() => {});
    return rows;
  };
  let next = read(specs[0]);
  for (const [i, spec] of specs.entries()) {
    const rows = await next!;
    next = read(specs[i + 1]);
    await importKind(ctx, spec, rows);
  }
}

/**
 * `write` in a transaction of its own (a dry run: on the database, which it only reads). With
 * `relaxedCommits` its COMMIT does not wait for the disk: the import can run again, and a chunk's rows
 * and their map entries commit together, so a crash of the server loses at most the last chunks whole,
 * which a re-run writes again. (A synchronous commit took about 4 ms here: 300 small ones from psql in
 * 1.2 s.)
 */
const committed = <T>(ctx: Ctx, write: (tx: Executor) => Promise<T>) =>
  ctx.dryRun
    ? write(ctx.db)
    : ctx.db.transaction(async (tx) => {
        if (!ctx.options.relaxedCommits) return write(tx);
        // Sent together with the first statement of `write`: no round trip of its own.
        const [, result] = await Promise.all([relaxed(tx), write(tx)]);
        return result;
      });

async function importChunk<Row extends { id: unknown }>(tx: Executor, ctx: Ctx, spec: KindSpec<Row>, chunk: Mapped<Row>[], natural?: Map<string, number>) {
  const map = ctx.mapOf(spec.kind);
  const known: (Mapped<Row> & { target: number })[] = [];
  const adopted: [string, number][] = [];
  const fresh: Mapped<Row>[] = [];
  /** A second source row with the natural key of a row new in this chunk: it becomes that row. */
  const twins: [Mapped<Row>, Mapped<Row>][] = [];
  const pending = new Map<string, Mapped<Row>>();
  for (const m of chunk) {
    const target = map.get(m.id);
    if (target !== undefined) {
      known.push({ ...m, target });
      continue;
    }
    const key = natural && naturalKey(spec as never, m.values);
    const existing = key === undefined ? undefined : natural!.get(key);
    const twin = key === undefined ? undefined : pending.get(key);
    if (existing !== undefined) {
      map.set(m.id, existing);
      adopted.push([m.id, existing]);
      known.push({ ...m, target: existing });
    } else if (twin) twins.push([m, twin]);
    else {
      if (key !== undefined) pending.set(key, m);
      fresh.push(m);
    }
  }
  const stored = await storedRows(
    tx,
    ctx,
    spec.table,
    known.map((k) => k.target),
  );
  for (const k of known) {
    const row = stored.get(k.target);
    if (row) await reconcile(tx, ctx, spec, k.target, row, k.values);
    // Imported once, deleted in Firewatch since: written again.
    else fresh.push(k);
  }
  await insertRows(tx, ctx, spec, fresh);
  for (const [m, first] of twins) {
    const target = map.get(first.id)!;
    map.set(m.id, target);
    adopted.push([m.id, target]);
    await reconcile(tx, ctx, spec, target, { ...first.values, id: target }, m.values);
  }
  if (natural) for (const m of fresh) natural.set(naturalKey(spec as never, m.values), map.get(m.id)!);
  if (!ctx.dryRun) await remember(tx, ctx, spec.kind, adopted);
}

async function storedRows(tx: Executor, ctx: Ctx, table: Target, ids: number[]) {
  const real = ids.filter((id) => id > 0);
  if (!real.length) return new Map<number, Values>();
  const rows = (await tx
    .select()
    .from(table)
    .where(and(eq(table.organization_id, ctx.orgId), inArray(table.id, real)))) as Values[];
  return new Map(rows.map((r) => [r.id as number, r]));
}

async function reconcile<Row extends { id: unknown }>(tx: Executor, ctx: Ctx, spec: KindSpec<Row>, target: number, stored: Values, wanted: Values) {
  const counts = ctx.report.of(ctx.org, spec.kind);
  const changes = changedColumns(stored, wanted, spec.same as never, ctx);
  if (!Object.keys(changes).length) return void counts.unchanged++;
  counts.updated++;
  if (ctx.dryRun || target < 0) return;
  // One UPDATE per changed row: a re-run changes few; an unchanged row costs no statement.
  await tx
    .update(spec.table)
    .set(changes as never)
    .where(and(eq(spec.table.organization_id, ctx.orgId), eq(spec.table.id, target)));
}

/** The new rows in one multi-row INSERT, with their import-map entries in the same statement. */
async function insertRows<Row extends { id: unknown }>(tx: Executor, ctx: Ctx, spec: KindSpec<Row>, rows: Mapped<Row>[]) {
  if (!rows.length) return;
  ctx.report.of(ctx.org, spec.kind).created += rows.length;
  const map = ctx.mapOf(spec.kind);
  if (ctx.dryRun) return void rows.forEach((r) => map.set(r.id, ctx.placeholder()));
  const values = spec.onInsert ? rows.map((r) => ({ ...spec.onInsert!(r.row, ctx), ...r.values })) : rows.map((r) => r.values);
  const { ids } = await insertJson(tx, spec.table, values, 'returning id', (indexes) =>
    // RETURNING answers in the order of the array (see insertJson): the n-th id is the n-th row's.
    remembering(
      ctx,
      spec.kind,
      sql`select s.source_id, c.id as target_id from (select id, row_number() over () as n from inserted) c
        join json_array_elements_text(${JSON.stringify(indexes.map((i) => rows[i]!.id))}::json) with ordinality s(source_id, n) using (n)`,
    ),
  );
  rows.forEach((r, i) => map.set(r.id, ids[i]!));
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * `rows` in multi-row INSERTs whose values travel as one JSON parameter (json_populate_recordset):
 * one statement per set of columns given (a column left out keeps its default), without binding a
 * parameter per value: drizzle's builder spent about half the importer's CPU on 14 columns x 500 rows.
 * Answers the ids RETURNING gives, in the order of `rows`, and how many rows it returned (PostgreSQL inserts and returns the rows of
 * INSERT ... SELECT in the order the SELECT yields them, here the array's). `also(indexes)`: a
 * statement run with each INSERT, in the same round trip, over its rows (`inserted`; `indexes` in `rows`).
 */
async function insertJson(tx: Executor, table: PgTable, rows: Values[], tail: string, also?: (indexes: number[]) => SQL) {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const groups = new Map<string, number[]>();
  rows.forEach((row, i) => {
    const keys = Object.keys(row)
      .filter((k) => row[k] !== undefined)
      .sort()
      .join(',');
    (groups.get(keys) ?? groups.set(keys, []).get(keys)!).push(i);
  });
  const ids: number[] = new Array(rows.length);
  let returned = 0;
  for (const [keys, indexes] of groups) {
    const names = keys.split(',').map((k) => quote(columns[k]!.name));
    // Renamed only where a property is not its column's name; otherwise each row is sent as it is, not copied.
    const renamed = keys.split(',').some((k) => columns[k]!.name !== k);
    const objects = indexes.map((i) => (renamed ? Object.fromEntries(Object.entries(rows[i]!).map(([k, v]) => [columns[k]!.name, v])) : rows[i]!));
    const target = quote(getTableName(table));
    const insert = sql`insert into ${sql.raw(`${target} (${names.join(', ')})`)} select ${sql.raw(names.join(', '))} from json_populate_recordset(null::${sql.raw(target)}, ${JSON.stringify(objects)}::json) ${sql.raw(tail)}`;
    const result = await tx.execute(also ? sql`with inserted as (${insert}), extra as (${also(indexes)}) select * from inserted` : insert);
    const answered = rowsOf<{ id: number }>(result);
    answered.forEach((r, k) => (ids[indexes[k]!] = r.id));
    returned += answered.length;
  }
  return { ids, returned };
}

/** The import-map entries (`source_id`, `target_id`) that `pairs` selects, added or pointed at their new row. */
const remembering = (ctx: Ctx, kind: string, pairs: SQL) =>
  sql`insert into ${importMap} (organization_id, source, kind, source_id, target_id)
    select ${ctx.orgId}::int, ${SOURCE}::text, ${kind}::text, p.source_id, p.target_id from (${pairs}) p
    on conflict (organization_id, source, kind, source_id) do update set target_id = excluded.target_id, imported_at = now()`;

async function remember(tx: Executor, ctx: Ctx, kind: string, pairs: [string, number][]) {
  if (!pairs.length) return;
  const json = JSON.stringify(pairs.map(([source_id, target_id]) => ({ source_id, target_id })));
  await tx.execute(remembering(ctx, kind, sql`select * from json_to_recordset(${json}::json) as x(source_id text, target_id int)`));
}

/**
 * Association rows (an incident's tags, a case's people): keyed by their own columns, so inserted when
 * missing and otherwise left alone. `rows` are already mapped; unmapped ones are reported by the caller.
 */
export async function importLinks(ctx: Ctx, kind: string, table: PgTable, rows: Values[]) {
  const counts = ctx.report.of(ctx.org, kind);
  counts.source += rows.length;
  if (ctx.dryRun || ctx.orgId < 0) return void (counts.created += rows.length);
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    const { returned } = await committed(ctx, (tx) =>
      insertJson(
        tx,
        table,
        chunk.map((r) => ({ ...r, organization_id: ctx.orgId })),
        'on conflict do nothing returning organization_id as id',
      ),
    );
    counts.created += returned;
    counts.unchanged += chunk.length - returned;
    ctx.progress?.tick(ctx.org, kind, Math.min(i + CHUNK, rows.length), rows.length);
  }
}
