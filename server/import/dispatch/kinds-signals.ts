import { createHash, randomBytes } from 'node:crypto';
import {
  entities,
  entityTypes,
  FILTER_ACTIONS,
  FILTER_MODES,
  ENTITY_SCOPES,
  signalFilters,
  signalInstanceEntities,
  signalInstances,
  signals,
} from '../../signals/tables.js';
import { normalize } from '../../signals/extract.js';
import { importKinds, importLinks, unmapped, type Ctx, type KindSpec } from './engine.js';

type Row = Record<string, unknown> & { id: number | string };
const oneOf = <T extends string>(list: readonly T[], v: unknown, fallback: T): T => ((list as readonly unknown[]).includes(v) ? (v as T) : fallback);
const ids = (ctx: Ctx, kind: string, list: unknown) =>
  ((list as number[] | null) ?? []).map((id) => ctx.ref(kind, id)).filter((id): id is number => id !== null);

const entityTypeSpec: KindSpec<Row> = {
  kind: 'entity_type',
  table: entityTypes,
  rows: (ctx) => ctx.rows<Row>(`select * from {s}entity_type order by id`),
  natural: ['name'],
  map: (r, ctx) => ({
    project_id: ctx.ref('project', r.project_id),
    name: r.name,
    description: r.description ?? null,
    jpath: r.jpath ?? null,
    regular_expression: r.regular_expression ?? null,
    enabled: r.enabled ?? false,
    scope: oneOf(ENTITY_SCOPES, r.scope, 'single'),
  }),
};

const entitySpec: KindSpec<Row> = {
  kind: 'entity',
  table: entities,
  rows: (ctx) => ctx.rows<Row>(`select * from {s}entity order by id`),
  natural: ['entity_type_id', 'normalized'],
  map: (r, ctx) => {
    const type = ctx.ref('entity_type', r.entity_type_id);
    const value = String(r.value ?? r.name ?? '');
    if (type === null || !value) return unmapped(type === null ? `its entity type ${String(r.entity_type_id)} was not imported` : 'an entity without a value');
    return {
      project_id: ctx.ref('project', r.project_id),
      entity_type_id: type,
      value,
      normalized: normalize(value),
      source: r.source ?? null,
      description: r.description ?? null,
    };
  },
};

const filterSpec: KindSpec<Row> = {
  kind: 'signal_filter',
  table: signalFilters,
  rows: (ctx) => ctx.rows<Row>(`select * from {s}signal_filter order by id`),
  map: (r, ctx) => ({
    project_id: ctx.ref('project', r.project_id),
    name: r.name,
    description: r.description ?? null,
    expression: r.expression ?? [],
    mode: oneOf(FILTER_MODES, r.mode, 'active'),
    action: oneOf(FILTER_ACTIONS, r.action, 'none'),
    expiration: r.expiration ?? null,
    window: r.window ?? 3600,
  }),
};

const assoc = (table: string, column: string) => `array(select a.${column} from {s}${table} a where a.signal_id = g.id order by 1) as ${table}`;

const signalSpec: KindSpec<Row> = {
  kind: 'signal',
  table: signals,
  rows: (ctx) =>
    ctx.rows<Row>(`select g.*, ${assoc('assoc_signal_entity_types', 'entity_type_id')}, ${assoc('assoc_signal_filters', 'signal_filter_id')}, ${assoc('assoc_signal_tags', 'tag_id')}
      from {s}signal g order by g.id`),
  // Dispatch has no ingest keys: each signal gets a fresh one nobody knows; rotate it to send events.
  onInsert: () => ({ ingest_key_hash: createHash('sha256').update(randomBytes(32)).digest('hex') }),
  map: (r, ctx) => {
    const project = ctx.ref('project', r.project_id);
    if (project === null) return unmapped(`its project ${String(r.project_id)} was not imported`);
    return {
      project_id: project,
      name: r.name,
      description: r.description ?? null,
      variant: r.variant ?? null,
      owner: r.owner ?? null,
      external_id: r.external_id ?? null,
      external_url: r.external_url ?? null,
      case_type_id: ctx.ref('case_type', r.case_type_id),
      case_priority_id: ctx.ref('case_priority', r.case_priority_id),
      oncall_service_id: ctx.ref('service', r.oncall_service_id),
      conversation_target: r.conversation_target ?? null,
      create_case: r.create_case ?? true,
      enabled: r.enabled ?? false,
      entity_type_ids: ids(ctx, 'entity_type', r.assoc_signal_entity_types),
      filter_ids: ids(ctx, 'signal_filter', r.assoc_signal_filters),
      tag_ids: ids(ctx, 'tag', r.assoc_signal_tags),
    };
  },
};

const instanceSpec: KindSpec<Row> = {
  kind: 'signal_instance',
  table: signalInstances,
  rows: (ctx) =>
    ctx.rows<Row>(
      `select * from {s}signal_instance where created_at >= (now() at time zone 'utc') - make_interval(days => $1) order by created_at, id`,
      ctx.options.signalsDays as never,
    ),
  map: (r, ctx) => {
    const signal = ctx.ref('signal', r.signal_id);
    if (signal === null) return unmapped(`its signal ${String(r.signal_id)} was not imported`);
    return {
      project_id: ctx.ref('project', r.project_id),
      signal_id: signal,
      source: 'native',
      raw: r.raw ?? {},
      filter_action: FILTER_ACTIONS.includes(r.filter_action as never) ? r.filter_action : null,
      case_id: ctx.ref('case', r.case_id),
      // Processed in Dispatch already: Firewatch's signal job must not make cases of them again.
      processed_at: r.created_at,
      created_at: r.created_at,
      updated_at: r.updated_at ?? r.created_at,
    };
  },
};

/** Signal definitions, filters, entity types and entities, and the instances of the last `signalsDays` days. */
export async function importSignals(ctx: Ctx) {
  await importKinds(ctx, [entityTypeSpec, entitySpec, filterSpec, signalSpec, instanceSpec]);
  const links = await ctx.rows<{ signal_instance_id: string; entity_id: number }>(`select * from {s}assoc_signal_instance_entities order by 1, 2`);
  const mapped = links.flatMap((l) => {
    const [signal_instance_id, entity_id] = [ctx.ref('signal_instance', l.signal_instance_id), ctx.ref('entity', l.entity_id)];
    // An instance older than the window is left out on purpose, not reported.
    return signal_instance_id === null || entity_id === null ? [] : [{ signal_instance_id, entity_id }];
  });
  await importLinks(ctx, 'signal_instance_entity', signalInstanceEntities, mapped);
}
