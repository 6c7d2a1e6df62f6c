import { and, asc, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import { PgTable, type PgColumn } from 'drizzle-orm/pg-core';
import { rowsOf } from '../core/db/client.js';
import { casePriorities, caseSeverities, caseTypes } from '../cases/settings-tables.js';
import {
  caseParticipants,
  caseTags,
  cases,
  comments,
  events,
  incidentParticipants,
  incidents,
  incidentSubscriptions,
  tasks,
  incidentCosts,
  incidentResources,
  incidentRoles,
  incidentSteps,
  reports,
} from './tables.js';
import { tags } from '../tags/tables.js';
import { users } from '../core/db/tables.js';
import { projects } from '../core/db/projects.js';
import type { RequestContext } from '../core/context.js';
import { notFound } from '../core/errors.js';
import { settle } from '../core/db/tenant.js';
import { caseScope, caseTextsReader, incidentScope, linkedScope, loadCase } from './common.js';

const { search: _search, ...incidentColumns } = getTableColumns(incidents);
export { incidentColumns };
/** Names of the settings rows a record points at ({type, priority, severity}), in one query. */
async function settingNames(ctx: RequestContext, parts: [string, PgTable & { organization_id: PgColumn; id: PgColumn; name: PgColumn }, number | null][]) {
  const cols: Record<string, SQL> = {};
  for (const [key, table, id] of parts)
    cols[key] = sql`(select ${table.name} from ${table} where ${table.organization_id} = ${ctx.orgId} and ${table.id} = ${id ?? null}::integer)`;
  const [row] = await ctx.tx.select(Object.fromEntries(Object.entries(cols).map(([k, v]) => [k, v.as(k)])) as never).from(sql`(select 1) one`);
  return row as unknown as Record<string, string | null>;
}

/** Column names by kind across the tables fullIncident aggregates as JSON. */
const aggregated = [
  incidents,
  incidentParticipants,
  incidentRoles,
  tags,
  tasks,
  cases,
  events,
  reports,
  incidentResources,
  incidentSteps,
  incidentCosts,
  comments,
];
const columnsOfAllTables = aggregated.flatMap((table) => Object.values(getTableColumns(table)));
const TIMESTAMP_KEYS = new Set(columnsOfAllTables.filter((c) => c.columnType === 'PgTimestamp').map((c) => c.name));
const JSON_KEYS = new Set(columnsOfAllTables.filter((c) => c.dataType === 'json').map((c) => c.name));

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
      'tasks', ${list('tasks', 'x.created_at, x.id')},
      'cases', (select coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'name', x.name, 'title', x.title, 'status', x.status, 'visibility', x.visibility, 'reported_at', x.reported_at) order by x.id), '[]')
        from ${cases} x where x.organization_id = i.organization_id and x.incident_id = i.id and x.id in (select ${cases.id} from ${cases} where ${caseScope(ctx)})),
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
    ) as record
    from ${incidents} i
    where ${match(sql`i`)} and i.organization_id = ${org} and i.id in (select ${incidents.id} from ${incidents} where ${match(sql`${incidents}`)} and ${incidents.organization_id} = ${org} and ${incidentScope(ctx)})`);
  const rows = rowsOf<{ record: Record<string, unknown> | string }>(result);
  const record = rows[0]?.record;
  if (!record) throw notFound('Incident', id);
  return isoTimestamps((typeof record === 'string' ? JSON.parse(record) : record) as Record<string, unknown>);
}

export async function fullCase(ctx: RequestContext, idOrName: number | string) {
  const row = await loadCase(ctx, idOrName);
  const id = row.id;
  const org = ctx.orgId;
  // The spec's signals and groups of the case (signal instances and groups the signals domain files into it).
  const signalsSql = sql`select coalesce(jsonb_agg(jsonb_build_object('id', si.id, 'signal_id', si.signal_id, 'source', si.source, 'event_action', si.event_action, 'group_id', si.group_id, 'created_at', si.created_at) order by si.id), '[]') as v
    from signal_instances si where si.organization_id = ${org} and si.case_id = ${id}`;
  const groupsSql = sql`select coalesce(jsonb_agg(jsonb_build_object('id', g.id, 'signal_id', g.signal_id, 'group_key', g.group_key, 'status', g.status, 'count', g.count, 'first_seen', g.first_seen, 'last_seen', g.last_seen) order by g.id), '[]') as v
    from signal_groups g where g.organization_id = ${org} and g.case_id = ${id}`;
  // The spec's documents of the case: the ids it keeps, answered as {id, name} in the order given.
  const workflowsSql = sql`select coalesce(jsonb_agg(jsonb_build_object('id', w.id, 'workflow', jsonb_build_object('id', w.workflow_id, 'name', wf.name), 'status', w.status, 'status_reason', w.status_reason, 'run_reason', w.run_reason, 'parameters', w.parameters, 'created_at', w.created_at) order by w.id), '[]') as v
    from workflow_instances w left join workflows wf on wf.organization_id = w.organization_id and wf.id = w.workflow_id where w.organization_id = ${org} and w.case_id = ${id}`;
  const documentsSql = sql`select coalesce(jsonb_agg(jsonb_build_object('id', d.id, 'name', d.name, 'resource_type', d.resource_type, 'weblink', d.weblink) order by r.n), '[]') as v
    from jsonb_array_elements(${JSON.stringify(row.documents ?? [])}::jsonb) with ordinality r(v, n) join documents d on d.organization_id = ${org} and d.id = (r.v)::int`;
  const readText = await caseTextsReader(ctx, row.incident_id);
  const [tagRows, eventRows, commentRows, participantRows, taskRows, incidentRows, names, signalRows, groupRows, documentRows, workflowRows] = await settle([
    ctx.tx
      .select({ id: tags.id, name: tags.name, tag_type_id: tags.tag_type_id })
      .from(caseTags)
      .innerJoin(tags, and(eq(tags.organization_id, caseTags.organization_id), eq(tags.id, caseTags.tag_id)))
      .where(and(eq(caseTags.organization_id, org), eq(caseTags.case_id, id)))
      .orderBy(asc(tags.name)),
    ctx.tx
      .select()
      .from(events)
      .where(and(eq(events.organization_id, org), eq(events.case_id, id)))
      .orderBy(asc(events.started_at), asc(events.id)),
    ctx.tx
      .select()
      .from(comments)
      .where(and(eq(comments.organization_id, org), eq(comments.case_id, id)))
      .orderBy(asc(comments.created_at), asc(comments.id)),
    ctx.tx
      .select({ email: caseParticipants.email })
      .from(caseParticipants)
      .where(and(eq(caseParticipants.organization_id, org), eq(caseParticipants.case_id, id))),
    ctx.tx
      .select()
      .from(tasks)
      .where(and(eq(tasks.organization_id, org), eq(tasks.case_id, id), linkedScope(ctx, tasks)))
      .orderBy(asc(tasks.id)),
    ctx.tx
      .select({
        id: incidents.id,
        name: incidents.name,
        title: incidents.title,
        status: incidents.status,
        conference_url: incidents.conference_url,
        conversation_id: incidents.conversation_id,
      })
      .from(incidents)
      .where(and(incidentScope(ctx), eq(incidents.id, row.incident_id ?? -1))),
    settingNames(ctx, [
      ['project_name', projects as never, row.project_id],
      ['case_type_name', caseTypes as never, row.case_type_id],
      ['case_priority_name', casePriorities as never, row.case_priority_id],
      ['case_severity_name', caseSeverities as never, row.case_severity_id],
    ]),
    ctx.tx.execute(signalsSql),
    ctx.tx.execute(groupsSql),
    ctx.tx.execute(documentsSql),
    ctx.tx.execute(workflowsSql),
  ] as const);
  const jsonOf = (result: unknown) => {
    const v = rowsOf<{ v: unknown }>(result as never)[0]?.v ?? [];
    return isoTimestamps(typeof v === 'string' ? JSON.parse(v) : v);
  };
  return {
    ...row,
    ...names,
    documents: jsonOf(documentRows),
    workflow_instances: jsonOf(workflowRows),
    signals: jsonOf(signalRows),
    groups: jsonOf(groupRows),
    tags: tagRows,
    events: eventRows.map((e) => ({ ...e, description: readText(e.description) })),
    comments: commentRows,
    participants: participantRows.map((p) => p.email),
    tasks: taskRows,
    incidents: incidentRows,
    // As lists answer it: the incident's id alone where the caller may not see it.
    incident: row.incident_id === null ? null : incidentRows[0] ? { id: row.incident_id, name: incidentRows[0].name } : { id: row.incident_id },
  };
}
