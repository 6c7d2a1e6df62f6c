import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import { PgTable, type PgColumn } from 'drizzle-orm/pg-core';
import { rowsOf } from '../core/db/client.js';
import { comments, events } from '../timeline/tables.js';
import { incidentParticipants, incidents, incidentSubscriptions, incidentCosts, incidentResources, incidentRoles, incidentSteps, reports } from './tables.js';
import { tags } from '../tags/tables.js';
import { users } from '../core/db/tables.js';
import type { RequestContext } from '../core/context.js';
import { notFound } from '../core/errors.js';
import { incidentScope } from './scope.js';
import { conferenceOf, conversationOf } from './spec-links.js';

const { search: _search, ...incidentColumns } = getTableColumns(incidents);
export { incidentColumns };
/** Names of the settings rows a record points at ({type, priority, severity}), in one query. */
export async function settingNames(
  ctx: RequestContext,
  parts: [string, PgTable & { organization_id: PgColumn; id: PgColumn; name: PgColumn }, number | null][],
) {
  const cols: Record<string, SQL> = {};
  for (const [key, table, id] of parts)
    cols[key] = sql`(select ${table.name} from ${table} where ${table.organization_id} = ${ctx.orgId} and ${table.id} = ${id ?? null}::integer)`;
  const [row] = await ctx.tx.select(Object.fromEntries(Object.entries(cols).map(([k, v]) => [k, v.as(k)])) as never).from(sql`(select 1) one`);
  return row as unknown as Record<string, string | null>;
}

/** Column names by kind across the tables fullIncident aggregates as JSON. */
const TIMESTAMP_KEYS = new Set<string>();
const JSON_KEYS = new Set<string>();
/** Learns the timestamp and JSON columns of tables whose rows a full record aggregates as JSON (isoTimestamps). */
export function aggregatesRowsOf(tables: PgTable[]) {
  for (const column of tables.flatMap((table) => Object.values(getTableColumns(table)))) {
    if (column.columnType === 'PgTimestamp') TIMESTAMP_KEYS.add(column.name);
    if (column.dataType === 'json') JSON_KEYS.add(column.name);
  }
}
aggregatesRowsOf([incidents, incidentParticipants, incidentRoles, tags, events, reports, incidentResources, incidentSteps, incidentCosts, comments]);

/**
 * PostgreSQL writes a timestamp inside JSON as `2024-03-01T08:30:00.25+00:00` (microseconds, the
 * session's offset); the API everywhere else sends JSON.stringify of a Date (`...08:30:00.250Z`).
 * Rewrites the timestamp columns of a JSON-aggregated record in that one format, leaving the
 * contents of JSON columns (event details, custom fields) as they were stored.
 */
export function isoTimestamps<T>(value: T): T {
  if (Array.isArray(value)) return value.map(isoTimestamps) as T;
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = JSON_KEYS.has(key) ? v : TIMESTAMP_KEYS.has(key) && typeof v === 'string' ? new Date(v).toISOString() : isoTimestamps(v);
  }
  return out as T;
}

/**
 * Parts of the full incident that other domains own (cases/: the incident's cases the caller may
 * see; tasks/: its tasks), each a JSON value read inside the incident's statement (the incident is `i`), added by that
 * domain's plugin: incidents do not know the domains that point at them.
 */
export type IncidentPart = (ctx: RequestContext) => SQL;
const incidentParts = new Map<string, IncidentPart>();
/** `tables`: those whose rows the part aggregates whole (their timestamps are rewritten as isoTimestamps says). */
export function addIncidentPart(key: string, part: IncidentPart, tables: PgTable[] = []) {
  incidentParts.set(key, part);
  aggregatesRowsOf(tables);
}
const partsOf = (ctx: RequestContext) =>
  incidentParts.size
    ? sql` || jsonb_build_object(${sql.join(
        [...incidentParts].map(([key, part]) => sql`${sql.raw(`'${key}'`)}, ${part(ctx)}`),
        sql`, `,
      )})`
    : sql``;

/**
 * The full incident, in a fixed number of queries whatever its size: participants with their roles
 * (renounced ones marked Inactive), tags, tasks, cases, timeline, reports, resources, steps, costs.
 */
export async function fullIncident(ctx: RequestContext, id: number | string) {
  // By id, or by name (`IAO-2`): the organization's names are unique.
  const match = (table: SQL) => (typeof id === 'number' ? sql`${table}.id = ${id}` : sql`${table}.name = ${id}`);
  const org = ctx.orgId;
  const me = sql`(select ${users.email} from ${users} where ${users.id} = ${ctx.userId ?? -1})`;
  const name = (table: string, column: string) => sql.raw(`(select name from ${table} t where t.organization_id = i.organization_id and t.id = i.${column})`);
  const list = (table: string, order: string, row = 'to_jsonb(x)') =>
    sql.raw(
      `(select coalesce(jsonb_agg(${row} order by ${order}), '[]') from ${table} x where x.organization_id = i.organization_id and x.incident_id = i.id)`,
    );
  const resourceJson =
    "jsonb_build_object('id', x.id, 'resource_type', x.resource_type, 'name', x.name, 'weblink', x.weblink, 'description', x.description, 'created_at', x.created_at)";
  const resources = (where: string) =>
    sql.raw(
      `(select coalesce(jsonb_agg(${resourceJson} order by x.id), '[]') from incident_resources x where x.organization_id = i.organization_id and x.incident_id = i.id and ${where})`,
    );
  const namedList = (table: string, ids: string) =>
    sql.raw(
      `(select coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'name', x.name) order by r.n), '[]') from jsonb_array_elements(${ids}) with ordinality r(v, n) join ${table} x on x.organization_id = i.organization_id and x.id = (r.v)::int)`,
    );
  // The spec's workflow_instances: the runs of workflows on this record, with their workflow's name
  // (read by table name: the workflows domain depends on incidents, not the other way).
  const workflowRuns = (column: 'incident_id' | 'case_id', owner: string) =>
    sql.raw(`(select coalesce(jsonb_agg(jsonb_build_object('id', w.id, 'workflow', jsonb_build_object('id', w.workflow_id, 'name', wf.name), 'status', w.status, 'status_reason', w.status_reason, 'run_reason', w.run_reason, 'parameters', w.parameters, 'created_at', w.created_at) order by w.id), '[]')
      from workflow_instances w left join workflows wf on wf.organization_id = w.organization_id and wf.id = w.workflow_id where w.organization_id = ${owner}.organization_id and w.${column} = ${owner}.id)`);
  const firstResource = (kind: string) =>
    sql.raw(
      `(select ${resourceJson} from incident_resources x where x.organization_id = i.organization_id and x.incident_id = i.id and x.resource_type like '%${kind}%' order by x.id desc limit 1)`,
    );
  // One statement: the incident (visibility checked) with every part as a JSON aggregate, so the
  // record costs one round trip and no per-part work in the server, however large it is.
  const result = await ctx.tx.execute(sql`
    select to_jsonb(i) - 'search' || jsonb_build_object(
      'project_name', ${name('projects', 'project_id')},
      'incident_type_name', ${name('incident_types', 'incident_type_id')},
      'incident_priority_name', ${name('incident_priorities', 'incident_priority_id')},
      'incident_severity_name', ${name('incident_severities', 'incident_severity_id')},
      'participants', (select coalesce(jsonb_agg(to_jsonb(p) || jsonb_build_object('roles', (
          select coalesce(jsonb_agg(jsonb_build_object('id', r.id, 'role', r.role, 'assumed_at', r.assumed_at, 'renounced_at', r.renounced_at, 'status', case when r.renounced_at is null then 'Active' else 'Inactive' end) order by r.assumed_at, r.id), '[]')
          from incident_roles r where r.organization_id = i.organization_id and r.incident_id = i.id and r.participant_id = p.id)) order by p.added_at, p.id), '[]')
        from incident_participants p where p.organization_id = i.organization_id and p.incident_id = i.id),
      'tags', (select coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'name', t.name, 'tag_type_id', t.tag_type_id) order by t.name), '[]')
        from incident_tags it join tags t on t.organization_id = it.organization_id and t.id = it.tag_id where it.organization_id = i.organization_id and it.incident_id = i.id),
      'events', ${list('events', 'x.started_at, x.id')},
      'reports', ${list('reports', 'x.created_at desc, x.id desc')},
      'resources', ${list('incident_resources', 'x.id')},
      'steps', ${list('incident_steps', 'x.position')},
      'incident_costs', ${list('incident_costs', 'x.id')},
      'comments', ${list('comments', 'x.created_at, x.id')},
      -- The spec's fields, from the incident's attached resources (add-resource, the postmortem job).
      'documents', ${resources("x.resource_type like '%document%' and x.resource_type <> 'dispatch-incident-review-document'")},
      'postmortems', ${resources("x.resource_type = 'dispatch-incident-review-document'")},
      'weblinks', ${resources("x.resource_type like '%weblink%'")},
      'ticket', ${firstResource('ticket')},
      'storage', ${firstResource('storage')},
      'statuspage', ${firstResource('statuspage')},
      'custom_checklist', coalesce((select t.custom_checklist from incident_types t where t.organization_id = i.organization_id and t.id = i.incident_type_id), '[]'::jsonb),
      'conference', ${conferenceOf(sql`i.conference_url`)},
      'conversation', ${conversationOf(sql`i.organization_id`, sql`i.conversation_id`)},
      'assignee', case when i.commander_email is null then null else jsonb_build_object('email', i.commander_email) end,
      -- The services and queries it names (ids kept in the row), as {id, name} in the order given.
      'services', ${namedList('services', 'i.services')},
      'queries', ${namedList('queries', 'i.queries')},
      'workflow_instances', ${workflowRuns('incident_id', 'i')},
      -- Glossary terms the incident's words use; the entities people linked and those its cases' signals carried.
      'terms', (select coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'text', t.text) order by t.text), '[]') from terms t
        where t.organization_id = i.organization_id and strpos(lower(i.title || ' ' || coalesce(i.description, '')), lower(t.text)) > 0),
      'entities', (select coalesce(jsonb_agg(jsonb_build_object('id', e.id, 'value', e.value, 'entity_type_id', e.entity_type_id) order by e.id), '[]')
        from entities e where e.organization_id = i.organization_id and e.id in (
          select ie.entity_id from incident_entities ie where ie.organization_id = i.organization_id and ie.incident_id = i.id
          union
          select se.entity_id from cases c join signal_instances si on si.organization_id = c.organization_id and si.case_id = c.id
            join signal_instance_entities se on se.organization_id = si.organization_id and se.signal_instance_id = si.id
            where c.organization_id = i.organization_id and c.incident_id = i.id)),
      'subscribed', exists (select 1 from ${incidentSubscriptions} s where s.organization_id = i.organization_id and s.incident_id = i.id and s.email = ${me}),
      'is_participant', exists (select 1 from ${incidentParticipants} p2 where p2.organization_id = i.organization_id and p2.incident_id = i.id and p2.email = ${me})
    )${partsOf(ctx)} as record
    from ${incidents} i
    where ${match(sql`i`)} and i.organization_id = ${org} and i.id in (select ${incidents.id} from ${incidents} where ${match(sql`${incidents}`)} and ${incidents.organization_id} = ${org} and ${incidentScope(ctx)})`);
  const rows = rowsOf<{ record: Record<string, unknown> | string }>(result);
  const record = rows[0]?.record;
  if (!record) throw notFound('Incident', id);
  return isoTimestamps((typeof record === 'string' ? JSON.parse(record) : record) as Record<string, unknown>);
}
