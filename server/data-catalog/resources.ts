import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { bodyOf } from '../engine/body.js';
import { commands, queries, sourceDataFormats, sourceEnvironments, sources, sourceStatuses, sourceTransports, sourceTypes } from './tables.js';
import { datetime, fieldsOf, outer } from '../engine/definition-kit.js';
import { defineResource } from '../engine/define.js';
import { count, ref, requiredText, text, url } from '../engine/fields.js';
import { incidents } from '../incidents/tables.js';
import { incidentScope } from '../incidents/scope.js';

/** The five source attributes share one shape: name, description, project. */
const attribute = (table: typeof sourceEnvironments, model: string, label: string, path: string) =>
  defineResource({
    model,
    label,
    path: `/data/sources/${path}`,
    table,
    create: bodyOf(table, { name: requiredText(200), description: text(2000) }),
    pageSize: 10,
    sort: [['name', 'asc']],
    search: ['name', 'description'],
    fields: fieldsOf(table),
    references: { project_id: 'Project' },
  });

export const sourceEnvironmentResource = attribute(sourceEnvironments, 'SourceEnvironment', 'Source environment', 'environments');
export const sourceStatusResource = attribute(sourceStatuses, 'SourceStatus', 'Source status', 'statuses');
export const sourceTransportResource = attribute(sourceTransports, 'SourceTransport', 'Source transport', 'transports');
export const sourceTypeResource = attribute(sourceTypes, 'SourceType', 'Source type', 'types');
export const sourceDataFormatResource = attribute(sourceDataFormats, 'SourceDataFormat', 'Source data format', 'dataFormats');

export const sourceResource = defineResource({
  model: 'Source',
  label: 'Source',
  path: '/data/sources',
  table: sources,
  create: bodyOf(sources, {
    name: requiredText(200),
    description: text(5000),
    owner: text(200),
    retention: z.number().int().min(0).max(100_000).nullish(),
    size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullish(),
    delay: z.number().int().min(0).max(1_000_000).nullish(),
    external_id: text(200),
    documentation: text(20_000),
    data_last_loaded_at: datetime(),
    sampling_rate: z.number().int().min(0).max(100).nullish(),
    schema: text(100_000),
    sample_log: text(100_000),
    cost: z.number().min(0).max(1e12).nullish(),
    links: z
      .array(z.strictObject({ name: text(200), url: z.url('Must be a URL').max(2000) }))
      .max(100)
      .optional(),
    incidents: z.array(ref()).max(500).optional(),
    alerts: z
      .array(z.strictObject({ name: requiredText(200), description: text(2000), originator: text(200), external_link: url() }))
      .max(100)
      .optional(),
  }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description', 'owner'],
  fields: fieldsOf(sources),
  // The spec's `queries` of a source: the data catalog's queries that read it. Its `incidents` are
  // kept as ids and answered as {id, name}, only those the caller may see (a restricted incident's
  // name stays hidden from non-participants).
  computed: (ctx) => ({
    queries: sql`(select coalesce(jsonb_agg(jsonb_build_object('id', q.id, 'name', q.name) order by q.id), '[]'::jsonb) from ${queries} q where q.organization_id = ${outer(sources, 'organization_id')} and q.source_id = ${outer(sources, 'id')})`,
    incidents: sql`(select coalesce(jsonb_agg(jsonb_build_object('id', ${incidents.id}, 'name', ${incidents.name}, 'title', ${incidents.title}) order by r.n), '[]'::jsonb) from jsonb_array_elements(${outer(sources, 'incidents')}) with ordinality r(v, n) join ${incidents} on ${incidents.id} = (r.v)::int and ${incidentScope(ctx)})`,
  }),
  // A source sent back as answered carries its queries: ignored, not refused.
  answerOnly: ['queries'],
  fieldMeta: {
    queries: { label: 'Queries', kind: 'json', list: false, form: false },
    incidents: { label: 'Incidents', list: false },
    alerts: { label: 'Alerts', help: 'Alerts defined on this data: name, description, who raises them and a link.' },
  },
  references: {
    project_id: 'Project',
    source_environment_id: 'SourceEnvironment',
    source_status_id: 'SourceStatus',
    source_type_id: 'SourceType',
    source_transport_id: 'SourceTransport',
    source_data_format_id: 'SourceDataFormat',
    incidents: 'Incident',
  },
});

export const queryResource = defineResource({
  model: 'Query',
  label: 'Query',
  path: '/data/queries',
  table: queries,
  create: bodyOf(queries, { name: requiredText(200), description: text(5000), text: requiredText(100_000), language: text(100), count: count().optional() }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(queries),
  references: { project_id: 'Project', source_id: 'Source' },
});

export const commandResource = defineResource({
  model: 'Command',
  label: 'Command',
  path: '/data/commands',
  table: commands,
  create: bodyOf(commands, { name: requiredText(200), description: text(5000), command_text: requiredText(20_000), count: count().optional() }),
  pageSize: 25,
  sort: [['count', 'desc']],
  search: ['name', 'description'],
  fields: fieldsOf(commands),
  references: { project_id: 'Project' },
});
