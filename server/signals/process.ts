import { systemActor } from '../core/context.js';
import { channel } from 'node:diagnostics_channel';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Config } from '../core/config.js';
import { rowsOf, type Db } from '../core/db/client.js';
import { runInTenant } from '../core/tenancy.js';
import type { RequestContext } from '../core/context.js';
import { cases } from '../cases/tables.js';
import { addEvent } from '../timeline/events.js';
import { actingAs } from '../core/caller.js';
import { casePriorities } from '../cases/settings-tables.js';
import { caseIds, createCases, updateCase } from '../cases/service.js';
import { entityTypes, signalFilters, signalInstances, signals } from './tables.js';
import { extract, type Extracted } from './extract.js';
import { matches } from './filters.js';
import { afterCasesFromSignals, type FoundEntity } from './follow-up.js';
import { CASE_GROUP_PREFIX, caseGroupOf, digest, type GroupKey } from './grouping.js';
import { applyChange } from './changes.js';
import { publishMany } from '../core/events.js';

/** Instances one transaction processes: large enough to amortize the round trips, small enough to reach cases quickly. */
export const PROCESS_BATCH = 500;

/**
 * An organization's pending instances are split into this many partitions: by the sender's group
 * where its format has one (Alertmanager's and Grafana's groupKey), else by alert series (dedup_key),
 * else by signal definition (whose dedup filters group by entity). Each partition has one processor
 * at a time across every app process (a transaction-level advisory lock). A group's series therefore
 * meet in one processor, which opens its case without waiting on the other's commit (split by series,
 * a 40-group burst had each processor wait about a second on the other's case groups), and a series'
 * events are processed in arrival order, so the first of them opens the case. The unique key on the
 * open group still decides every race (a series sent in two groups, a filter's entity group shared by
 * keyed and unkeyed instances, a caller processing without a partition).
 */
export const PARTITIONS = 2;

/** The partition an instance falls in, as SQL over signal_instances (for the claim). */
const partitionOf = (partitions: number) => {
  const key = sql`coalesce(${signalInstances.raw}->>'groupKey', ${signalInstances.dedup_key})`;
  return sql`mod(case when ${key} is null then ${signalInstances.signal_id}::bigint else hashtext(${key})::bigint + 2147483648 end, ${partitions})`;
};

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
  /** The open group this event joins or opens (its alert series); null for a snoozed event, a change, or one of a disabled signal. */
  group: GroupKey | null;
  /** The case-level group its series belongs to (grouping, or a dedup filter); null: the series is a case of its own. */
  parent: GroupKey | null;
}

const truncate = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The title a case from this event gets: the source's own summary where its format has one. */
export function summaryOf(instance: Pick<Instance, 'raw' | 'source'>, fallback: string): string {
  const raw = instance.raw as {
    payload?: { summary?: unknown };
    summary?: unknown;
    annotations?: { summary?: unknown };
    title?: unknown;
    message?: unknown;
    labels?: { alertname?: unknown };
    name?: unknown;
  };
  const candidates = [raw.payload?.summary, raw.summary, raw.annotations?.summary, raw.message, raw.title, raw.labels?.alertname, raw.name];
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
  const base = { instance, signal, found, filter_id: null, parent: null };
  if (instance.event_action === 'change') return { ...base, filter_action: 'none', group: null };
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
  const dedup = live.find((f) => f.action === 'deduplicate' && matches(f.expression, subject));
  let parent = caseGroupOf(signal, instance.raw);
  let filterId: number | null = null;
  if (dedup) {
    // Grouped on the entities the expression picks out (a Host condition: the host), else on all of them.
    const picked = subject.entities.filter((e) => matches(dedup.expression, { ...subject, entities: [e] }));
    const values = (picked.length ? picked : subject.entities).map((e) => `${e.entity_type_id}:${e.normalized}`).sort();
    parent = { key: `${CASE_GROUP_PREFIX}f:${dedup.id}:${digest(values)}`, window: dedup.window };
    filterId = dedup.id;
  }
  // An alert series (the sender's key) is followed on its own, to its resolve, under its case's group;
  // an event without a key is its case's group itself.
  if (instance.dedup_key) return { ...base, filter_action: 'none', filter_id: filterId, group: { key: `k:${instance.dedup_key}`, window: null }, parent };
  return { ...base, filter_action: 'none', filter_id: filterId, group: parent ?? { key: `i:${instance.id}`, window: null } };
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

/** A group just opened, whose case is still to be created. */
interface Opened {
  plan: Plan;
  groupId: number;
  found: FoundEntity[];
}

/** Who the timeline says acted, for what a definition's signals do to a case. */
const actorName = (signal: Signal) => `signal definition '${signal.name}'`;

/** Opsgenie's P1–P5 onto the case priority of that name (the project's first, else the organization's), where there is one. */
async function prioritiesByName(ctx: RequestContext, opened: Opened[]) {
  const names = [
    ...new Set(opened.flatMap((o) => (o.plan.instance.source === 'opsgenie' ? [String((o.plan.instance.raw as { priority?: unknown }).priority ?? '')] : []))),
  ];
  const byName = new Map<string, number>();
  if (!names.filter(Boolean).length) return (_projectId: number, _name: unknown) => undefined;
  const rows = await ctx.tx
    .select({ id: casePriorities.id, name: casePriorities.name, project_id: casePriorities.project_id })
    .from(casePriorities)
    .where(and(eq(casePriorities.organization_id, ctx.orgId), inArray(casePriorities.name, names)))
    .orderBy(sql`${casePriorities.project_id} nulls last`, casePriorities.id);
  for (const r of rows) if (!byName.has(`${r.project_id}:${r.name}`)) byName.set(`${r.project_id}:${r.name}`, r.id);
  return (projectId: number, name: unknown) => byName.get(`${projectId}:${String(name)}`) ?? byName.get(`null:${String(name)}`);
}

/**
 * Ids for the cases of groups just opened, drawn ahead (caseIds), and the groups pointed at them: what
 * points at a new case is written before the case-number counter is taken (createSignalCases, last).
 */
async function newCaseIds(ctx: RequestContext, opened: Opened[]): Promise<number[]> {
  const ids = await caseIds(ctx, opened.length);
  if (ids.length)
    await ctx.tx.execute(sql`update signal_groups g set case_id = r.case_id
      from jsonb_to_recordset(${JSON.stringify(opened.map((o, i) => ({ id: o.groupId, case_id: ids[i] })))}::jsonb) as r(id int, case_id int)
      where g.organization_id = ${ctx.orgId} and g.id = r.id`);
  return ids;
}

/**
 * The cases of groups just opened, created together (createCases) with the ids newCaseIds drew: the
 * definition's type and priority, else the organization's defaults; the raw event on the timeline, the
 * definition named as who created it; then each case's follow-ups. Creating them takes the
 * organization's case-number counter row, held until the commit: the other partition's processor (and
 * a case created through the API) waits on it only for this tail.
 */
async function createSignalCases(ctx: RequestContext, opened: Opened[], ids: number[]) {
  if (!opened.length) return;
  const priorityNamed = await prioritiesByName(ctx, opened);
  await createCases(
    ctx,
    opened.map(({ plan: { signal, instance }, found }, i) => {
      const raw = instance.raw as { description?: unknown; priority?: unknown };
      return {
        id: ids[i]!,
        project_id: signal.project_id,
        title: summaryOf(instance, signal.name),
        description: instance.source === 'opsgenie' && typeof raw.description === 'string' ? raw.description : signal.description,
        // Left out (undefined) when the definition names none: createCases then takes the defaults.
        case_type_id: signal.case_type_id ?? undefined,
        case_priority_id: priorityNamed(signal.project_id, raw.priority) ?? signal.case_priority_id ?? undefined,
        created_by: actorName(signal),
        timeline: [originOf(signal, instance, found)],
      };
    }),
  );
  await afterCasesFromSignals(
    ctx,
    opened.map((o, i) => ({ signal: o.plan.signal, caseId: ids[i]!, instanceId: o.plan.instance.id, found: o.found })),
  );
}

async function openCases(ctx: RequestContext, opened: Opened[]): Promise<number[]> {
  const ids = await newCaseIds(ctx, opened);
  await createSignalCases(ctx, opened, ids);
  return ids;
}

/** Alert series pointed at the case of the case-level group they belong to. */
async function linkSeries(ctx: RequestContext, links: { child: number; parent: number }[]) {
  if (!links.length) return;
  await ctx.tx.execute(sql`update signal_groups c set case_id = p.case_id
    from jsonb_to_recordset(${JSON.stringify(links)}::jsonb) as r(child int, parent int)
    join signal_groups p on p.organization_id = ${ctx.orgId} and p.id = r.parent
    where c.organization_id = ${ctx.orgId} and c.id = r.child`);
}

/** A trigger taken one by one: its series joined or opened, and a new series its case group's case (or a new one). */
async function applyTrigger(ctx: RequestContext, p: Plan, found: FoundEntity[]): Promise<Outcome> {
  const { instance, signal } = p;
  const group = await joinGroup(ctx, signal.id, p.group!.key, p.group!.window);
  let caseId = group.case_id;
  let filterAction = p.filter_action;
  if (!group.inserted) filterAction = 'deduplicate';
  else if (p.parent) {
    const parent = await joinGroup(ctx, signal.id, p.parent.key, p.parent.window);
    caseId = parent.case_id;
    if (parent.inserted && signal.create_case) caseId = (await openCases(ctx, [{ plan: p, groupId: parent.id, found }]))[0]!;
    await linkSeries(ctx, [{ child: group.id, parent: parent.id }]);
  } else if (signal.create_case) caseId = (await openCases(ctx, [{ plan: p, groupId: group.id, found }]))[0]!;
  return { id: instance.id, filter_action: filterAction, filter_id: p.filter_id, group_id: group.id, case_id: caseId };
}

/** Alert series of this case still open (case-level groups aside): a grouped case resolves with its last alert. */
async function openSeries(ctx: RequestContext, caseId: number) {
  const [row] = rowsOf<{ n: number }>(
    await ctx.tx.execute(sql`select count(*)::int as n from signal_groups where organization_id = ${ctx.orgId} and case_id = ${caseId}
      and status in ('triggered', 'acknowledged') and group_key not like ${`${CASE_GROUP_PREFIX}%`}`),
  );
  return row!.n;
}

/** An acknowledge or resolve: its series moved; the case triaged, or closed once none of its alerts is open. */
async function applyMove(ctx: RequestContext, p: Plan): Promise<Outcome> {
  const { instance, signal } = p;
  const status = instance.event_action === 'resolve' ? 'resolved' : 'acknowledged';
  const group = await moveGroup(ctx, signal.id, p.group!.key, status);
  const caseId = group?.case_id ?? null;
  if (caseId) await moveCase(ctx, p, caseId, status);
  return { id: instance.id, filter_action: p.filter_action, filter_id: p.filter_id, group_id: group?.id ?? null, case_id: caseId };
}

/** The case of a series just acknowledged (triaged if New) or resolved (closed once none of its alerts is open), `p` the event that did it. */
async function moveCase(ctx: RequestContext, p: Plan, caseId: number, status: 'acknowledged' | 'resolved') {
  const { instance, signal } = p;
  // The case row locked first: two processors resolving a group's last alerts at once (its series in
  // both partitions) each wait for the other's commit here, so the later one sees no series left open.
  if (status === 'resolved') {
    await ctx.tx.execute(sql`select id from cases where organization_id = ${ctx.orgId} and id = ${caseId} for update`);
    if ((await openSeries(ctx, caseId)) > 0) return;
    await ctx.tx.execute(sql`update signal_groups set status = 'resolved', updated_at = now()
      where organization_id = ${ctx.orgId} and case_id = ${caseId} and status in ('triggered', 'acknowledged') and group_key like ${`${CASE_GROUP_PREFIX}%`}`);
  }
  const current = await caseStatus(ctx, caseId);
  const next = status === 'resolved' ? 'Closed' : 'Triage';
  if (current && current !== 'Closed' && current !== next && (status === 'resolved' || current === 'New')) {
    await actingAs(ctx, actorName(signal), () => updateCase(ctx, caseId, { status: next }));
    await addEvent(ctx, {
      case_id: caseId,
      type: 'Other',
      source: 'Signal',
      description: `${status === 'resolved' ? 'Resolved' : 'Acknowledged'} by ${instance.source} (${actorName(signal)})`,
      details: { signal_instance_id: instance.id, raw: instance.raw },
    });
  }
}

/**
 * Acknowledges and resolves of series whose events in the batch are all that one action, set-based:
 * every series moved in one statement, then each case they belong to once, in case order (acknowledged,
 * then resolved: closed when none of its alerts is left open). A group of 1,500 alerts resolving was
 * 1,500 rounds of four statements. As one by one, a series' second resolve finds it resolved already.
 */
async function applyMoves(ctx: RequestContext, plans: Plan[]): Promise<Outcome[]> {
  if (!plans.length) return [];
  const byKey = new Map<string, Plan[]>();
  for (const p of plans.sort((a, b) => a.instance.id - b.instance.id)) {
    const k = `${p.signal.id}\u0000${p.group!.key}`;
    if (!byKey.has(k)) byKey.set(k, []);
    byKey.get(k)!.push(p);
  }
  const keys = [...byKey.keys()].sort(byText);
  const statusOf = (p: Plan) => (p.instance.event_action === 'resolve' ? 'resolved' : 'acknowledged');
  // A resolve moves its series once (a repeated one finds it closed); each acknowledge counts.
  const takes = (ps: Plan[]) => (statusOf(ps[0]!) === 'resolved' ? ps.slice(0, 1) : ps);
  const rows = keys.map((k) => {
    const ps = byKey.get(k)!;
    return { signal_id: ps[0]!.signal.id, group_key: ps[0]!.group!.key, status: statusOf(ps[0]!), n: takes(ps).length };
  });
  const moved = new Map(
    rowsOf<{ signal_id: number; group_key: string; id: number; case_id: number | null }>(
      await ctx.tx.execute(sql`update signal_groups g set status = r.status, last_seen = now(), updated_at = now(), count = g.count + r.n
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(signal_id int, group_key text, status text, n int)
        where g.organization_id = ${ctx.orgId} and g.signal_id = r.signal_id and g.group_key = r.group_key and g.status in ('triggered', 'acknowledged')
        returning g.signal_id, g.group_key, g.id, g.case_id`),
    ).map((g) => [`${g.signal_id}\u0000${g.group_key}`, g]),
  );
  const outcomes: Outcome[] = [];
  // Per case, the last event of each action (the one its timeline names).
  const byCase = new Map<number, { acknowledged?: Plan; resolved?: Plan }>();
  for (const k of keys) {
    const ps = byKey.get(k)!;
    const g = moved.get(k);
    const taking = new Set(takes(ps));
    for (const p of ps) {
      const group = g && taking.has(p) ? g : null;
      outcomes.push({
        id: p.instance.id,
        filter_action: p.filter_action,
        filter_id: p.filter_id,
        group_id: group?.id ?? null,
        case_id: group?.case_id ?? null,
      });
      if (group?.case_id) byCase.set(group.case_id, { ...byCase.get(group.case_id), [statusOf(p)]: p });
    }
  }
  for (const [caseId, last] of [...byCase].sort(([a], [b]) => a - b)) {
    if (last.acknowledged) await moveCase(ctx, last.acknowledged, caseId, 'acknowledged');
    if (last.resolved) await moveCase(ctx, last.resolved, caseId, 'resolved');
  }
  return outcomes;
}

async function apply(ctx: RequestContext, p: Plan, found: FoundEntity[]): Promise<Outcome> {
  const action = p.instance.event_action;
  if (p.group && action === 'trigger' && p.signal.enabled) return applyTrigger(ctx, p, found);
  if (p.group && (action === 'resolve' || action === 'acknowledge')) return applyMove(ctx, p);
  if (action === 'change') await applyChange(ctx, p.instance, p.signal);
  return { id: p.instance.id, filter_action: p.filter_action, filter_id: p.filter_id, group_id: null, case_id: null };
}

type UpsertedGroup = { signal_id: number; group_key: string; id: number; case_id: number | null; inserted: boolean };

/**
 * Groups joined or opened in one insert (keys in one order, so concurrent batches lock alike), after
 * the windowed ones gone quiet were expired. The partial unique index on the open group decides: a
 * batch that loses the race to open a group waits for the winner's commit and joins it.
 */
async function upsertGroups(ctx: RequestContext, rows: { signal_id: number; group_key: string; window: number | null; n: number }[]) {
  const windowed = rows.filter((r) => r.window !== null);
  if (windowed.length) {
    await ctx.tx.execute(sql`update signal_groups g set status = 'expired', updated_at = now()
      from jsonb_to_recordset(${JSON.stringify(windowed)}::jsonb) as r(signal_id int, group_key text)
      where g.organization_id = ${ctx.orgId} and g.signal_id = r.signal_id and g.group_key = r.group_key and g.status in ('triggered', 'acknowledged')
        and g."window" is not null and g.last_seen < now() - make_interval(secs => g."window")`);
  }
  const groups = rowsOf<UpsertedGroup>(
    await ctx.tx.execute(sql`insert into signal_groups (organization_id, signal_id, group_key, "window", count)
      select ${ctx.orgId}, r.signal_id, r.group_key, r."window", r.n
      from rows from (jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as (signal_id int, group_key text, "window" int, n int)) with ordinality as r(signal_id, group_key, "window", n, o)
      order by r.o
      on conflict (organization_id, signal_id, group_key) where status in ('triggered', 'acknowledged')
      do update set count = signal_groups.count + excluded.count, last_seen = now(), updated_at = now()
      returning signal_id, group_key, id, case_id, (xmax = 0) as inserted`),
  );
  return new Map(groups.map((g) => [`${g.signal_id}\u0000${g.group_key}`, g]));
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Every trigger of the batch whose group sees no acknowledge or resolve in the same batch, set-based:
 * every alert series joined or opened at once, then the case-level groups of the series just opened.
 * Cases are created (by the caller, last) only for the groups these statements opened; a new series
 * of a case group already open takes its case (`links`, applied after the cases exist).
 */
async function applyTriggers(
  ctx: RequestContext,
  plans: Plan[],
  entityOf: (p: Plan) => FoundEntity[],
): Promise<{ outcomes: Outcome[]; opened: Opened[]; links: { child: number; parent: number }[] }> {
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
  if (!byKey.size) return { outcomes, opened: [], links: [] };
  const firstOf = (k: string) => byKey.get(k)!.reduce((a, b) => (b.instance.id < a.instance.id ? b : a));
  const keys = [...byKey.keys()].sort(byText);
  const found = await upsertGroups(
    ctx,
    keys.map((k) => ({ signal_id: firstOf(k).signal.id, group_key: firstOf(k).group!.key, window: firstOf(k).group!.window, n: byKey.get(k)!.length })),
  );
  const byParent = new Map<string, string[]>();
  for (const k of keys) {
    const first = firstOf(k);
    if (!found.get(k)!.inserted || !first.parent) continue;
    const pk = `${first.signal.id}\u0000${first.parent.key}`;
    byParent.set(pk, [...(byParent.get(pk) ?? []), k]);
  }
  const parentKeys = [...byParent.keys()].sort(byText);
  const leadOf = (pk: string) =>
    byParent
      .get(pk)!
      .map(firstOf)
      .reduce((a, b) => (b.instance.id < a.instance.id ? b : a));
  const parents = parentKeys.length
    ? await upsertGroups(
        ctx,
        parentKeys.map((pk) => ({
          signal_id: leadOf(pk).signal.id,
          group_key: leadOf(pk).parent!.key,
          window: leadOf(pk).parent!.window,
          n: byParent.get(pk)!.length,
        })),
      )
    : new Map<string, UpsertedGroup>();
  const links: { child: number; parent: number }[] = [];
  const caseOf = new Map<string, number | null>();
  for (const pk of parentKeys)
    for (const k of byParent.get(pk)!) {
      links.push({ child: found.get(k)!.id, parent: parents.get(pk)!.id });
      caseOf.set(k, parents.get(pk)!.case_id);
    }
  const opened: Opened[] = [
    ...keys.flatMap((k) => {
      const first = firstOf(k);
      return found.get(k)!.inserted && !first.parent && first.signal.create_case ? [{ plan: first, groupId: found.get(k)!.id, found: entityOf(first) }] : [];
    }),
    ...parentKeys.flatMap((pk) => {
      const lead = leadOf(pk);
      return parents.get(pk)!.inserted && lead.signal.create_case ? [{ plan: lead, groupId: parents.get(pk)!.id, found: entityOf(lead) }] : [];
    }),
  ];
  for (const k of keys) {
    const ps = byKey.get(k)!.sort((a, b) => a.instance.id - b.instance.id);
    const g = found.get(k)!;
    ps.forEach((p, i) =>
      outcomes.push({
        id: p.instance.id,
        filter_action: g.inserted && i === 0 ? p.filter_action : 'deduplicate',
        filter_id: p.filter_id,
        group_id: g.id,
        case_id: caseOf.has(k) ? caseOf.get(k)! : g.case_id,
      }),
    );
  }
  return { outcomes, opened, links };
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
  const { outcomes, opened, links: seriesLinks } = await applyTriggers(ctx, plans.filter(isTrigger), entityOf);
  // A key whose events in the batch are all acknowledges, or all resolves, moves with the others
  // (applyMoves); a key that mixes them keeps the one-by-one path in arrival order.
  const actions = new Map<string, Set<string>>();
  for (const p of plans) {
    if (!p.group) continue;
    const k = `${p.signal.id}\u0000${p.group.key}`;
    if (!actions.has(k)) actions.set(k, new Set());
    actions.get(k)!.add(p.instance.event_action);
  }
  const isMove = (p: Plan) =>
    !!p.group &&
    (p.instance.event_action === 'resolve' || p.instance.event_action === 'acknowledge') &&
    actions.get(`${p.signal.id}\u0000${p.group.key}`)!.size === 1;
  outcomes.push(...(await applyMoves(ctx, plans.filter(isMove))));
  // Groups in one order across batches (no deadlock); a key's events keep their arrival order.
  const ordered = plans
    .filter((p) => !isTrigger(p) && !isMove(p))
    .sort((a, b) => {
      const ka = `${a.signal.id}\u0000${a.group?.key ?? ''}`;
      const kb = `${b.signal.id}\u0000${b.group?.key ?? ''}`;
      return ka < kb ? -1 : ka > kb ? 1 : a.instance.id - b.instance.id;
    });
  for (const p of ordered) outcomes.push(await apply(ctx, p, entityOf(p)));
  // The new groups' cases: their ids first, so that every row pointing at them is written before the
  // cases themselves, last (createSignalCases). Series of a case group take its case (one just
  // opened, or one opened before).
  const ids = await newCaseIds(ctx, opened);
  await linkSeries(ctx, seriesLinks);
  const caseOf = new Map(opened.map((o, i) => [o.groupId, ids[i]!]));
  for (const l of seriesLinks) if (caseOf.has(l.parent)) caseOf.set(l.child, caseOf.get(l.parent)!);
  for (const o of outcomes) if (o.case_id === null && o.group_id !== null) o.case_id = caseOf.get(o.group_id) ?? null;
  // Every instance of the batch marked processed in one statement (which also writes its search
  // entry), at the time its work ended but for the new cases' rows: accept → processed is what the
  // bench reports.
  await ctx.tx.execute(sql`update signal_instances s set filter_action = o.filter_action, filter_id = o.filter_id, group_id = o.group_id, case_id = o.case_id,
      processed_at = clock_timestamp(), updated_at = now()
    from jsonb_to_recordset(${JSON.stringify(outcomes)}::jsonb) as o(id int, filter_action text, filter_id int, group_id int, case_id int)
    where s.organization_id = ${ctx.orgId} and s.id = o.id`);
  await createSignalCases(ctx, opened, ids);
  await publishMany(
    ctx,
    'signal.processed',
    batch.map((i) => i.id),
  );
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
