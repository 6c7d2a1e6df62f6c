import { and, asc, eq, sql } from 'drizzle-orm';
import { rowsOf } from '../core/db/client.js';
import { casePriorities, caseSeverities, caseTypes } from './settings-tables.js';
import { caseParticipants, cases, caseTags } from './tables.js';
import { comments, events } from '../timeline/tables.js';
import { incidents } from '../incidents/tables.js';
import { tasks } from '../tasks/tables.js';
import { tags } from '../tags/tables.js';
import { projects } from '../core/db/projects.js';
import type { RequestContext } from '../core/context.js';
import { settle } from '../core/db/tenant.js';
import { caseScope, caseTextsReader, loadCase } from './scope.js';
import { incidentScope } from '../incidents/scope.js';
import { linkedRows } from '../engine/visibility.js';
import { conferenceOf, conversationOf } from '../incidents/spec-links.js';
import { isoTimestamps, settingNames } from '../incidents/read.js';

/** The full case: tags, timeline, comments, participants, tasks, its incident, signals, groups, documents and workflow runs. */
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
  const [tagRows, eventRows, commentRows, participantRows, taskRows, incidentRows, names, conversationRow, signalRows, groupRows, documentRows, workflowRows] =
    await settle([
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
        .where(and(eq(tasks.organization_id, org), eq(tasks.case_id, id), linkedRows(ctx, tasks)))
        .orderBy(asc(tasks.id)),
      ctx.tx
        .select({
          id: incidents.id,
          name: incidents.name,
          title: incidents.title,
          status: incidents.status,
          conference_url: incidents.conference_url,
          conversation_id: incidents.conversation_id,
          conference: conferenceOf(incidents.conference_url),
          conversation: conversationOf(incidents.organization_id, incidents.conversation_id),
        })
        .from(incidents)
        .where(and(incidentScope(ctx), eq(incidents.id, row.incident_id ?? -1))),
      settingNames(ctx, [
        ['project_name', projects as never, row.project_id],
        ['case_type_name', caseTypes as never, row.case_type_id],
        ['case_priority_name', casePriorities as never, row.case_priority_id],
        ['case_severity_name', caseSeverities as never, row.case_severity_id],
      ]),
      ctx.tx.execute(sql`select ${conversationOf(sql`${org}::integer`, sql`${row.conversation_id ?? null}::integer`)} as v`),
      ctx.tx.execute(signalsSql),
      ctx.tx.execute(groupsSql),
      ctx.tx.execute(documentsSql),
      ctx.tx.execute(workflowsSql),
    ] as const);
  const jsonOrNull = (v: unknown) => (v === null || v === undefined ? null : isoTimestamps(typeof v === 'string' ? JSON.parse(v) : v));
  const jsonOf = (result: unknown) => {
    const v = rowsOf<{ v: unknown }>(result as never)[0]?.v ?? [];
    return isoTimestamps(typeof v === 'string' ? JSON.parse(v) : v);
  };
  return {
    ...row,
    ...names,
    conversation: jsonOrNull(rowsOf<{ v: unknown }>(conversationRow as never)[0]?.v),
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

/** The full incident's `cases`: those linked to it that the caller may see (incidents/read.ts addIncidentPart). */
export const incidentCasesPart = (ctx: RequestContext) =>
  sql`(select coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'name', x.name, 'title', x.title, 'status', x.status, 'visibility', x.visibility, 'reported_at', x.reported_at) order by x.id), '[]')
        from ${cases} x where x.organization_id = i.organization_id and x.incident_id = i.id and x.id in (select ${cases.id} from ${cases} where ${caseScope(ctx)}))`;
