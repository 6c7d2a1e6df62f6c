import { systemActor } from '../core/context.js';
import { createHash } from 'node:crypto';
import { channel } from 'node:diagnostics_channel';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Config } from '../core/config.js';
import { rowsOf, type Db } from '../core/db/client.js';
import { runInTenant } from '../core/tenancy.js';
import type { RequestContext } from '../core/context.js';
import { cases } from '../incidents/tables.js';
import { addEvent } from '../incidents/common.js';
import { createCases, updateCase } from '../cases/service.js';
import { entityTypes, signalFilters, signalInstances, signals } from './tables.js';
import { extract, type Extracted } from './extract.js';
import { matches } from './filters.js';
import { afterCasesFromSignals, type FoundEntity } from './follow-up.js';

/** Instances one transaction processes: large enough to amortize the round trips, small enough to reach cases quickly. */
export const PROCESS_BATCH = 500;

/**
 * An organization's pending instances are split into this many partitions by their alert series
 * (dedup_key; an instance without one by its signal definition, whose dedup filters group by entity),
 * and each partition has one processor at a time across every app process (a transaction-level
 * advisory lock). Two processors therefore never touch the same open group, and a series' events are
 * processed in arrival order, so the first of them opens the case. The unique key on the open group
 * still decides every race (a filter's entity group shared by keyed and unkeyed instances can reach
 * two partitions, and a caller may process without a partition).
 */
export const PARTITIONS = 2;

/** The partition an instance falls in, as SQL over signal_instances (for the claim). */
const partitionOf = (partitions: number) =>
  sql`mod(case when ${signalInstances.dedup_key} is null then ${signalInstances.signal_id}::bigint else hashtext(${signalInstances.dedup_key})::bigint + 2147483648 end, ${partitions})`;

/** Taken by a partition's processor for its transaction; false when another process holds it. */
async function lockPartition(ctx: RequestContext, partition: number, partitions: number): Promise<boolean> {
  const key = `firewatch.signals:${ctx.orgId}:${partition}/${partitions}`;
  const [row] = rowsOf<{ locked: boolean }>(await ctx.tx.execute(sql`select pg_try_advisory_xact_lock(hashtextextended(${key}, 0)) as locked`));
  return row!.locked;
}

type Instance = typeof signalInstances.$inferSelect;
type Signal = typeof signals.$inferSelect;
type Filter = typeof signalFilters.$inferSelect;

interface Plan {
  instance: Instance;
  signal: Signal;
  found: Extracted[];
  filter_action: 'none' | 'snooze' | 'deduplicate';
  filter_id: number | null;
  /** The open group this event joins or opens; null for a snoozed event or one of a disabled signal. */
  group: { key: string; window: number | null } | null;
}

/** A short, stable key for a list of values (the entities a dedup filter groups on). */
const digest = (parts: string[]) => createHash('sha256').update(parts.join('\u0001')).digest('hex').slice(0, 32);

const truncate = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The title a case from this event gets: the source's own summary where its format has one. */
export function summaryOf(instance: Pick<Instance, 'raw' | 'source'>, fallback: string): string {
  const raw = instance.raw as {
    payload?: { summary?: unknown };
    summary?: unknown;
    annotations?: { summary?: unknown };
    title?: unknown;
    labels?: { alertname?: unknown };
    name?: unknown;
  };
  const candidates = [raw.payload?.summary, raw.summary, raw.annotations?.summary, raw.title, raw.labels?.alertname, raw.name];
  const found = candidates.find((c) => typeof c === 'string' && c.trim());
  return truncate((found as string | undefined)?.trim() ?? fallback, 500);
}

function plan(instance: Instance, signal: Signal, types: (typeof entityTypes.$inferSelect)[], filters: Filter[], typeNames: Map<number, string>): Plan {
  const own = types.filter((t) => t.enabled && (t.scope === 'all' || signal.entity_type_ids.includes(t.id)));
  let found: Extracted[];
  try {
    found = extract(instance.raw, own);
  } catch {
    // A type whose path fails on this payload extracts nothing from it; the event still counts.
    found = [];
  }
  const base = { instance, signal, found, filter_id: null };
  if (!signal.enabled || instance.event_action !== 'trigger') {
    return { ...base, filter_action: 'none', group: instance.dedup_key ? { key: `k:${instance.dedup_key}`, window: null } : null };
  }
  const subject = {
    source: instance.source,
    dedup_key: instance.dedup_key,
    event_action: instance.event_action,
    entities: found.map((e) => ({
      id: 0,
      value: e.value,
      normalized: e.normalized,
      entity_type_id: e.entity_type_id,
      type_name: typeNames.get(e.entity_type_id) ?? '',
    })),
  };
  const now = Date.now();
  const live = filters.filter((f) => signal.filter_ids.includes(f.id) && f.mode === 'active' && (!f.expiration || f.expiration.getTime() > now));
  const snooze = live.find((f) => f.action === 'snooze' && matches(f.expression, subject));
  if (snooze) return { ...base, filter_action: 'snooze', filter_id: snooze.id, group: null };
  if (instance.dedup_key) return { ...base, filter_action: 'none', group: { key: `k:${instance.dedup_key}`, window: null } };
  const dedup = live.find((f) => f.action === 'deduplicate' && matches(f.expression, subject));
  if (dedup) {
    // Grouped on the entities the expression picks out (a Host condition: the host), else on all of them.
    const picked = subject.entities.filter((e) => matches(dedup.expression, { ...subject, entities: [e] }));
    const values = (picked.length ? picked : subject.entities).map((e) => `${e.entity_type_id}:${e.normalized}`).sort();
    return { ...base, filter_action: 'none', filter_id: dedup.id, group: { key: `f:${dedup.id}:${digest(values)}`, window: dedup.window } };
  }
  return { ...base, filter_action: 'none', group: { key: `i:${instance.id}`, window: null } };
}

/** Entity rows for every extracted value, created once per (type, normalized value). */
async function upsertEntities(ctx: RequestContext, plans: Plan[]) {
  const wanted = new Map<string, Extracted & { project_id: number | null }>();
  for (const p of plans) for (const e of p.found) wanted.set(`${e.entity_type_id}\u0000${e.normalized}`, { ...e, project_id: p.signal.project_id });
  const ids = new Map<string, number>();
  if (!wanted.size) return ids;
  // Sorted, so two batches inserting the same values take their locks in one order (no deadlock). One
  // JSON parameter however many values (a VALUES list took six parameters a value to build and plan).
  const rows = JSON.stringify(
    [...wanted.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, e]) => ({
        project_id: e.project_id,
        entity_type_id: e.entity_type_id,
        value: e.value,
        normalized: e.normalized,
      })),
  );
  await ctx.tx.execute(sql`insert into entities (organization_id, project_id, entity_type_id, value, normalized, source)
    select ${ctx.orgId}, r.project_id, r.entity_type_id, r.value, r.normalized, 'signal'
    from rows from (jsonb_to_recordset(${rows}::jsonb) as (project_id int, entity_type_id int, value text, normalized text))
      with ordinality as r(project_id, entity_type_id, value, normalized, o)
    order by r.o
    on conflict do nothing`);
  // A statement of its own: it sees the rows a concurrent batch committed while the insert waited on them.
  const found = rowsOf<{ id: number; entity_type_id: number; normalized: string }>(
    await ctx.tx.execute(sql`select e.id, e.entity_type_id, e.normalized
      from jsonb_to_recordset(${rows}::jsonb) as r(entity_type_id int, normalized text)
      join entities e on e.organization_id = ${ctx.orgId} and e.entity_type_id = r.entity_type_id and e.normalized = r.normalized`),
  );
  for (const e of found) ids.set(`${e.entity_type_id}\u0000${e.normalized}`, e.id);
  return ids;
}

interface Outcome {
  id: number;
  filter_action: 'none' | 'snooze' | 'deduplicate';
  filter_id: number | null;
  group_id: number | null;
  case_id: number | null;
}

interface GroupRow {
  id: number;
  case_id: number | null;
  inserted: boolean;
}

/**
 * Joins the open group of `key` or opens it. The partial unique index on the open group makes this
 * race-free: a concurrent transaction opening the same group waits for the first one to commit and
 * then joins it (with the case the first one created).
 */
async function joinGroup(ctx: RequestContext, signalId: number, key: string, window: number | null): Promise<GroupRow> {
  if (window !== null) {
    await ctx.tx.execute(sql`update signal_groups set status = 'expired', updated_at = now()
      where organization_id = ${ctx.orgId} and signal_id = ${signalId} and group_key = ${key} and status in ('triggered', 'acknowledged')
        and "window" is not null and last_seen < now() - make_interval(secs => "window")`);
  }
  const [row] = rowsOf<GroupRow>(
    await ctx.tx.execute(sql`insert into signal_groups (organization_id, signal_id, group_key, "window") values (${ctx.orgId}, ${signalId}, ${key}, ${window})
      on conflict (organization_id, signal_id, group_key) where status in ('triggered', 'acknowledged')
      do update set count = signal_groups.count + 1, last_seen = now(), updated_at = now()
      returning id, case_id, (xmax = 0) as inserted`),
  );
  return row!;
}

/** The open group of `key`, moved to `status` (acknowledge, resolve); null when none is open. */
async function moveGroup(
  ctx: RequestContext,
  signalId: number,
  key: string,
  status: 'acknowledged' | 'resolved',
): Promise<{ id: number; case_id: number | null } | null> {
  const [row] = rowsOf<{ id: number; case_id: number | null }>(
    await ctx.tx.execute(sql`update signal_groups set status = ${status}, last_seen = now(), updated_at = now(), count = count + 1
      where organization_id = ${ctx.orgId} and signal_id = ${signalId} and group_key = ${key} and status in ('triggered', 'acknowledged')
      returning id, case_id`),
  );
  return row ?? null;
}

async function caseStatus(ctx: RequestContext, caseId: number) {
  const [row] = await ctx.tx
    .select({ status: cases.status })
    .from(cases)
    .where(and(eq(cases.organization_id, ctx.orgId), eq(cases.id, caseId)));
  return row?.status ?? null;
}

/** How a case opened from this event says where it came from (its second timeline entry). */
const originOf = (signal: Signal, instance: Instance, found: FoundEntity[]) => ({
  source: 'Signal',
  description: `Created from signal '${signal.name}' (${instance.source})`,
  details: { signal_id: signal.id, signal_instance_id: instance.id, entity_ids: [...new Set(found.map((f) => f.entity_id))], raw: instance.raw },
});

/**
 * The cases of groups just opened, created together (createCases): the definition's type and
 * priority, the raw event on the timeline, the group pointed at its case, then each case's follow-ups.
 */
/** A group just opened, whose case is still to be created. */
interface Opened {
  plan: Plan;
  groupId: number;
  found: FoundEntity[];
}

async function openCases(ctx: RequestContext, opened: Opened[]): Promise<number[]> {
  if (!opened.length) return [];
  const ids = await createCases(
    ctx,
    opened.map(({ plan: { signal, instance }, found }) => ({
      project_id: signal.project_id,
      title: summaryOf(instance, signal.name),
      description: signal.description,
      case_type_id: signal.case_type_id,
      case_priority_id: signal.case_priority_id,
      timeline: [originOf(signal, instance, found)],
    })),
  );
  await ctx.tx.execute(sql`update signal_groups g set case_id = r.case_id
    from jsonb_to_recordset(${JSON.stringify(opened.map((o, i) => ({ id: o.groupId, case_id: ids[i] })))}::jsonb) as r(id int, case_id int)
    where g.organization_id = ${ctx.orgId} and g.id = r.id`);
  await afterCasesFromSignals(
    ctx,
    opened.map((o, i) => ({ signal: o.plan.signal, caseId: ids[i]!, instanceId: o.plan.instance.id, found: o.found })),
  );
  return ids;
}

async function apply(ctx: RequestContext, p: Plan, found: FoundEntity[]): Promise<Outcome> {
  const { instance, signal } = p;
  let groupId: number | null = null;
  let caseId: number | null = null;
  let filterAction = p.filter_action;
  if (p.group && instance.event_action === 'trigger' && signal.enabled) {
    const group = await joinGroup(ctx, signal.id, p.group.key, p.group.window);
    groupId = group.id;
    caseId = group.case_id;
    if (!group.inserted) filterAction = 'deduplicate';
    else if (signal.create_case) caseId = (await openCases(ctx, [{ plan: p, groupId: group.id, found }]))[0]!;
  } else if (p.group && instance.event_action !== 'trigger') {
    const status = instance.event_action === 'resolve' ? 'resolved' : 'acknowledged';
    const group = await moveGroup(ctx, signal.id, p.group.key, status);
    groupId = group?.id ?? null;
    caseId = group?.case_id ?? null;
    if (caseId) {
      const current = await caseStatus(ctx, caseId);
      const next = status === 'resolved' ? 'Closed' : 'Triage';
      if (current && current !== 'Closed' && current !== next && (status === 'resolved' || current === 'New')) {
        await updateCase(ctx, caseId, { status: next });
        await addEvent(ctx, {
          case_id: caseId,
          type: 'Other',
          source: 'Signal',
          description: `${status === 'resolved' ? 'Resolved' : 'Acknowledged'} by ${instance.source}`,
          details: { signal_instance_id: instance.id, raw: instance.raw },
        });
      }
    }
  }
  return { id: instance.id, filter_action: filterAction, filter_id: p.filter_id, group_id: groupId, case_id: caseId };
}

/**
 * Every trigger of the batch whose group sees no acknowledge or resolve in the same batch, set-based:
 * windows expired in one statement, then every group joined or opened in one insert (events of one
 * key counted together, keys in one order so concurrent batches lock alike). The partial unique index
 * on the open group still decides: a batch that loses the race to open a group waits for the winner's
 * commit and joins it. Cases are created only for the groups this statement opened.
 */
async function applyTriggers(ctx: RequestContext, plans: Plan[], entityOf: (p: Plan) => FoundEntity[]): Promise<{ outcomes: Outcome[]; opened: Opened[] }> {
  const outcomes: Outcome[] = [];
  const byKey = new Map<string, Plan[]>();
  for (const p of plans) {
    if (!p.group) {
      outcomes.push({ id: p.instance.id, filter_action: p.filter_action, filter_id: p.filter_id, group_id: null, case_id: null });
      continue;
    }
    const k = `${p.signal.id}\u0000${p.group.key}`;
    byKey.set(k, [...(byKey.get(k) ?? []), p]);
  }
  if (!byKey.size) return { outcomes, opened: [] };
  const keys = [...byKey.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const rows = keys.map((k) => {
    const ps = byKey.get(k)!;
    return { signal_id: ps[0]!.signal.id, group_key: ps[0]!.group!.key, window: ps[0]!.group!.window, n: ps.length };
  });
  const windowed = rows.filter((r) => r.window !== null);
  if (windowed.length) {
    await ctx.tx.execute(sql`update signal_groups g set status = 'expired', updated_at = now()
      from jsonb_to_recordset(${JSON.stringify(windowed)}::jsonb) as r(signal_id int, group_key text)
      where g.organization_id = ${ctx.orgId} and g.signal_id = r.signal_id and g.group_key = r.group_key and g.status in ('triggered', 'acknowledged')
        and g."window" is not null and g.last_seen < now() - make_interval(secs => g."window")`);
  }
  const groups = rowsOf<{ signal_id: number; group_key: string; id: number; case_id: number | null; inserted: boolean }>(
    await ctx.tx.execute(sql`insert into signal_groups (organization_id, signal_id, group_key, "window", count)
      select ${ctx.orgId}, r.signal_id, r.group_key, r."window", r.n
      from rows from (jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as (signal_id int, group_key text, "window" int, n int)) with ordinality as r(signal_id, group_key, "window", n, o)
      order by r.o
      on conflict (organization_id, signal_id, group_key) where status in ('triggered', 'acknowledged')
      do update set count = signal_groups.count + excluded.count, last_seen = now(), updated_at = now()
      returning signal_id, group_key, id, case_id, (xmax = 0) as inserted`),
  );
  const found = new Map(groups.map((g) => [`${g.signal_id}\u0000${g.group_key}`, g]));
  // The groups this statement opened, whose cases the caller creates together, last.
  const opened = keys.flatMap((k) => {
    const g = found.get(k)!;
    const first = byKey.get(k)!.reduce((a, b) => (b.instance.id < a.instance.id ? b : a));
    return g.inserted && first.signal.create_case ? [{ plan: first, groupId: g.id, found: entityOf(first) }] : [];
  });
  for (const k of keys) {
    const ps = byKey.get(k)!.sort((a, b) => a.instance.id - b.instance.id);
    const g = found.get(k)!;
    ps.forEach((p, i) =>
      outcomes.push({
        id: p.instance.id,
        filter_action: g.inserted && i === 0 ? p.filter_action : 'deduplicate',
        filter_id: p.filter_id,
        group_id: g.id,
        case_id: g.case_id,
      }),
    );
  }
  return { outcomes, opened };
}

/** Which instances a processor takes: one partition of PARTITIONS (holding its lock), or any (no lock; tests). */
export interface Share {
  partition: number;
  partitions: number;
}

/**
 * One batch of the organization's unprocessed instances (of `share`'s partition only, when given);
 * returns how many it processed, or -1 when another processor holds the partition.
 */
export async function processBatch(ctx: RequestContext, limit = PROCESS_BATCH, share?: Share): Promise<number> {
  if (share && !(await lockPartition(ctx, share.partition, share.partitions))) return -1;
  const batch = await ctx.tx
    .select()
    .from(signalInstances)
    .where(
      and(
        eq(signalInstances.organization_id, ctx.orgId),
        sql`${signalInstances.processed_at} is null`,
        share ? sql`${partitionOf(share.partitions)} = ${share.partition}` : undefined,
      ),
    )
    .orderBy(signalInstances.id)
    .limit(limit)
    .for('update', { skipLocked: true });
  if (!batch.length) return 0;
  const signalIds = [...new Set(batch.map((i) => i.signal_id))];
  const defs = await ctx.tx
    .select()
    .from(signals)
    .where(and(eq(signals.organization_id, ctx.orgId), inArray(signals.id, signalIds)));
  const byId = new Map(defs.map((s) => [s.id, s]));
  const types = await ctx.tx.select().from(entityTypes).where(eq(entityTypes.organization_id, ctx.orgId));
  const filterIds = [...new Set(defs.flatMap((s) => s.filter_ids))];
  const filters = filterIds.length
    ? await ctx.tx
        .select()
        .from(signalFilters)
        .where(and(eq(signalFilters.organization_id, ctx.orgId), inArray(signalFilters.id, filterIds)))
    : [];
  const typeNames = new Map(types.map((t) => [t.id, t.name]));
  const plans = batch.map((i) => plan(i, byId.get(i.signal_id)!, types, filters, typeNames));
  const entityIds = await upsertEntities(ctx, plans);
  const links = plans.flatMap((p) =>
    [...new Set(p.found.map((e) => entityIds.get(`${e.entity_type_id}\u0000${e.normalized}`)!))].map((entity_id) => ({ i: p.instance.id, e: entity_id })),
  );
  if (links.length)
    await ctx.tx.execute(sql`insert into signal_instance_entities (organization_id, signal_instance_id, entity_id)
      select ${ctx.orgId}, r.i, r.e from jsonb_to_recordset(${JSON.stringify(links)}::jsonb) as r(i int, e int)
      on conflict do nothing`);
  const entityOf = (p: Plan): FoundEntity[] =>
    p.found.map((e) => ({
      entity_id: entityIds.get(`${e.entity_type_id}\u0000${e.normalized}`)!,
      entity_type_id: e.entity_type_id,
      type_name: typeNames.get(e.entity_type_id) ?? '',
      value: e.value,
    }));
  // A key acknowledged or resolved within this batch keeps the one-by-one path, in arrival order (a
  // trigger after a resolve opens a new group); every other trigger goes through the set-based one.
  const moved = new Set(plans.filter((p) => p.group && p.instance.event_action !== 'trigger').map((p) => `${p.signal.id}\u0000${p.group!.key}`));
  const isTrigger = (p: Plan) => p.instance.event_action === 'trigger' && p.signal.enabled && !(p.group && moved.has(`${p.signal.id}\u0000${p.group.key}`));
  const { outcomes, opened } = await applyTriggers(ctx, plans.filter(isTrigger), entityOf);
  const openedGroups = new Set(opened.map((o) => o.groupId));
  // Groups in one order across batches (no deadlock); a key's events keep their arrival order.
  const ordered = plans
    .filter((p) => !isTrigger(p))
    .sort((a, b) => {
      const ka = `${a.signal.id}\u0000${a.group?.key ?? ''}`;
      const kb = `${b.signal.id}\u0000${b.group?.key ?? ''}`;
      return ka < kb ? -1 : ka > kb ? 1 : a.instance.id - b.instance.id;
    });
  for (const p of ordered) outcomes.push(await apply(ctx, p, entityOf(p)));
  // Every instance of the batch marked processed in one statement, at the time its work ended (not
  // when the transaction began: accept → processed is what the bench reports).
  await ctx.tx
    .execute(sql`update signal_instances s set filter_action = o.filter_action, filter_id = o.filter_id, group_id = o.group_id, case_id = o.case_id, processed_at = clock_timestamp(), updated_at = now()
    from jsonb_to_recordset(${JSON.stringify(outcomes)}::jsonb) as o(id int, filter_action text, filter_id int, group_id int, case_id int)
    where s.organization_id = ${ctx.orgId} and s.id = o.id`);
  // The new groups' cases last: creating them takes the organization's case-number counter row, held
  // until the commit, so the other partition's processor (and a case created through the API) waits
  // on it only for this tail, not for the whole batch. Their instances then point at their case (and
  // count as processed from now: accept → case is what the bench reports).
  if (opened.length) {
    await openCases(ctx, opened);
    await ctx.tx.execute(sql`update signal_instances s set case_id = g.case_id, processed_at = clock_timestamp()
      from signal_groups g
      where s.organization_id = ${ctx.orgId} and s.id in (${sql.join(
        outcomes.filter((o) => o.case_id === null && o.group_id !== null && openedGroups.has(o.group_id)).map((o) => sql`${o.id}`),
        sql`, `,
      )}) and g.organization_id = s.organization_id and g.id = s.group_id`);
  }
  return batch.length;
}

/** Each processing transaction's timings, for the bench (bench/suites/signals.ts); published only while subscribed. */
export const batchTimings = channel('firewatch.signals.batch');
export interface BatchTiming {
  start: number;
  end: number;
  instances: number;
}

const RETRYABLE = new Set(['40P01', '40001']);
const codeOf = (err: unknown): string | undefined => (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;

/**
 * Processes the organization's pending instances (of one partition when `share` is given), batch
 * after batch (`pauseMs` apart after a batch that was not full), until none is left, another process
 * holds the partition, or `stop()` says so.
 */
export async function processPending(
  db: Db,
  config: Config,
  org: { orgId: number; orgSlug: string },
  batchSize = PROCESS_BATCH,
  share?: Share,
  stop: () => boolean = () => false,
  pauseMs = 0,
): Promise<number> {
  let total = 0;
  while (!stop()) {
    let done: number;
    const start = performance.now();
    for (let attempt = 1; ; attempt++) {
      try {
        done = await runInTenant(db, config, systemActor(org), (ctx) => processBatch(ctx, batchSize, share));
        break;
      } catch (err) {
        // Another batch holding the same groups in the other order: PostgreSQL aborted this one; again.
        if (!RETRYABLE.has(codeOf(err) ?? '') || attempt === 5) throw err;
      }
    }
    if (batchTimings.hasSubscribers) batchTimings.publish({ start, end: performance.now(), instances: done } satisfies BatchTiming);
    if (done <= 0) return total;
    total += done;
    // A batch that was not full took the whole backlog: wait for more before the next one, so a steady
    // stream is processed in transactions of what several commits brought, not a commit's worth each.
    if (pauseMs && done < batchSize) await new Promise((r) => setTimeout(r, pauseMs));
  }
  return total;
}
