import { events } from '../../timeline/tables.js';
import { incidentCosts, reports } from '../../incidents/tables.js';
import { tasks, TASK_STATUSES } from '../../tasks/tables.js';
import { feedback, FEEDBACK_RATINGS } from '../../feedback/tables.js';
import { importKinds, unmapped, type Ctx, type KindSpec } from './engine.js';
import { incidentResourceSpecs } from './kinds-records.js';
import { joined, personEmail } from './source.js';

type Row = Record<string, unknown> & { id: number | string };
const parentOf = (r: Row, ctx: Ctx) => ({ incident_id: ctx.ref('incident', r.incident_id), case_id: ctx.ref('case', r.case_id) });

const eventSpec: KindSpec<Row> = {
  kind: 'event',
  table: events,
  rows: (ctx) => ctx.rows<Row>(`select * from {s}event order by id`),
  map: (r, ctx) => {
    if (r.incident_id == null && r.case_id == null)
      return unmapped(`an event of signal ${String(r.signal_id)}; Firewatch's timelines belong to incidents and cases`);
    const parent = parentOf(r, ctx);
    if (parent.incident_id === null && parent.case_id === null) return unmapped('its incident or case was not imported');
    return {
      ...parent,
      // The original times and source: the timeline reads as it did in Dispatch.
      started_at: r.started_at,
      ended_at: r.ended_at ?? null,
      type: r.type ?? 'Other',
      source: r.source,
      description: r.description,
      details: typeof r.details === 'string' ? JSON.parse(r.details) : (r.details ?? null),
      owner: r.owner ?? null,
      pinned: r.pinned ?? false,
      created_at: r.created_at ?? r.started_at,
      updated_at: r.updated_at ?? r.created_at ?? r.started_at,
    };
  },
};

const assignees = joined(
  'assignees',
  't.id',
  `select a.task_id as key, array_agg(lower(c.email) order by lower(c.email)) as value from {s}assoc_task_assignees a
    join {s}participant p on p.id = a.participant_id join {s}individual_contact c on c.id = p.individual_contact_id where c.email is not null group by a.task_id`,
);

const taskSpec: KindSpec<Row> = {
  kind: 'task',
  table: tasks,
  rows: (ctx) =>
    ctx.rows<Row>(`select t.*, i.project_id, ${personEmail('t', 'creator_id')}, ${personEmail('t', 'owner_id')}, ${assignees.column}
      from {s}task t left join {s}incident i on i.id = t.incident_id ${assignees.join} order by t.id`),
  map: (r, ctx) => {
    const incident = ctx.ref('incident', r.incident_id);
    if (incident === null) return unmapped(`its incident ${String(r.incident_id)} was not imported`);
    if (!(TASK_STATUSES as readonly unknown[]).includes(r.status)) return unmapped(`its status '${String(r.status)}' is not Open or Resolved`);
    return {
      project_id: ctx.ref('project', r.project_id),
      incident_id: incident,
      description: r.description ?? '',
      status: r.status,
      priority: r.priority ?? 'Low',
      source: r.source ?? 'Incident Participant',
      creator_email: r.creator_email ?? null,
      owner_email: r.owner_email ?? null,
      assignees: r.assignees ?? [],
      resolve_by: r.resolve_by ?? null,
      resolved_at: r.resolved_at ?? null,
      reminders: r.reminders ?? true,
      last_reminder_at: r.last_reminder_at ?? null,
      ...(r.created_at ? { created_at: r.created_at, updated_at: r.updated_at ?? r.created_at } : {}),
    };
  },
};

const costSpec: KindSpec<Row> = {
  kind: 'incident_cost',
  table: incidentCosts,
  rows: (ctx) => ctx.rows<Row>(`select * from {s}incident_cost order by id`),
  map: (r, ctx) => {
    const incident = ctx.ref('incident', r.incident_id);
    if (incident === null) return unmapped(`its incident ${String(r.incident_id)} was not imported`);
    // One row per Dispatch cost: the kind names it, apart from the 'response' cost Firewatch computes.
    return {
      incident_id: incident,
      incident_cost_type_id: ctx.ref('incident_cost_type', r.incident_cost_type_id),
      kind: `dispatch-${r.id}`,
      amount: Number(r.amount ?? 0),
    };
  },
};

const feedbackSpec: KindSpec<Row> = {
  kind: 'feedback',
  table: feedback,
  rows: (ctx) => ctx.rows<Row>(`select * from {s}feedback order by id`),
  map: (r, ctx) => {
    if (r.incident_id == null) return unmapped("feedback on a case; Firewatch's feedback is on incidents");
    const incident = ctx.ref('incident', r.incident_id);
    if (incident === null) return unmapped(`its incident ${String(r.incident_id)} was not imported`);
    if (!(FEEDBACK_RATINGS as readonly unknown[]).includes(r.rating)) return unmapped(`its rating '${String(r.rating)}' is not one of Firewatch's`);
    return {
      project_id: ctx.ref('project', r.project_id),
      incident_id: incident,
      participant_id: ctx.ref('incident_participant', r.participant_id),
      rating: r.rating,
      feedback: r.feedback ?? null,
      ...(r.created_at ? { created_at: r.created_at, updated_at: r.updated_at ?? r.created_at } : {}),
    };
  },
};

/** Dispatch's report types and Firewatch's. */
const REPORT_TYPES: Record<string, 'tactical' | 'executive'> = { 'Tactical Report': 'tactical', 'Executive Report': 'executive' };

const reportSpec: KindSpec<Row> = {
  kind: 'report',
  table: reports,
  rows: (ctx) => ctx.rows<Row>(`select r.*, ${personEmail('r', 'participant_id')} from {s}report r order by r.id`),
  map: (r, ctx) => {
    const incident = ctx.ref('incident', r.incident_id);
    if (incident === null) return unmapped(`its incident ${String(r.incident_id)} was not imported`);
    const type = REPORT_TYPES[String(r.type)];
    if (!type) return unmapped(`its type '${String(r.type)}' is not Tactical Report or Executive Report`);
    const details = typeof r.details === 'string' ? (JSON.parse(r.details) as unknown) : r.details;
    return {
      incident_id: incident,
      type,
      // The fields as Dispatch's forms wrote them (conditions, actions, needs; current_status, overview, next_steps): Firewatch's are the same.
      details: details && typeof details === 'object' ? details : { text: r.details_raw ?? '' },
      author_email: r.participant_email ?? null,
      ...(r.created_at ? { created_at: r.created_at } : {}),
    };
  },
};

/** What hangs off incidents and cases once both exist: timeline, tasks, resources, reports, costs, feedback. */
export async function importTimeline(ctx: Ctx) {
  await importKinds(ctx, [eventSpec, taskSpec, ...incidentResourceSpecs, reportSpec, costSpec, feedbackSpec]);
}
