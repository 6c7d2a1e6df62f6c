import { withProject } from './defaults.js';
import { eq, exists, ilike, inArray, sql } from 'drizzle-orm';
import { casePriorities, caseSeverities, caseTypes } from '../cases/settings-tables.js';
import { incidentPriorities, incidentSeverities, incidentTypes } from './settings-tables.js';
import { caseParticipants, cases, caseTags, incidentParticipants, incidents, incidentTags, tasks } from './tables.js';
import { caseCreate, incidentCreate, taskCreate } from './bodies.js';
import { tags, tagTypes } from '../tags/tables.js';
import type { CustomFilter, ResourceDefinition } from '../engine/define.js';
import { defineResource } from '../engine/define.js';
import { atLeast } from '../core/context.js';
import { caseScope, incidentScope } from './common.js';
import { createIncident, updateIncident } from './lifecycle.js';
import { createCase, updateCase } from '../cases/service.js';
import { createTask, deleteTask, updateTask } from '../tasks/service.js';

/**
 * Incidents, cases and tasks. The generic CRUD engine serves their lists (slim records: the table's
 * own columns), create, update and delete; their hooks add names, roles, tags and timeline entries.
 * The full single records and the actions live in routes/incidents.ts, cases.ts and tasks.ts.
 */

/** `<name>` of the row `column` points at, as a correlated lookup inside the list query (no N+1). */
const nameOf = (table: { organization_id: never; id: never; name: never }, parent: { organization_id: never }, column: unknown) =>
  sql<string | null>`(select ${table.name} from ${table as never} where ${table.organization_id} = ${parent.organization_id} and ${table.id} = ${column})`;

/** `{"model": "Tag", "field": "name"|"id", ...}` through the link table, as one EXISTS. */
function tagFilter(
  link: typeof incidentTags | typeof caseTags,
  owner: 'incident_id' | 'case_id',
  parent: typeof incidents | typeof cases,
  field: 'name' | 'id',
): CustomFilter {
  const ownerColumn = owner === 'incident_id' ? (link as typeof incidentTags).incident_id : (link as typeof caseTags).case_id;
  return {
    type: field === 'id' ? 'number' : 'string',
    ops: field === 'id' ? ['==', 'in'] : ['==', 'in', 'ilike'],
    build: (op, value) => {
      const match =
        field === 'id'
          ? op === 'in'
            ? inArray(tags.id, value as number[])
            : eq(tags.id, value as number)
          : op === 'in'
            ? inArray(tags.name, value as string[])
            : op === 'ilike'
              ? ilike(tags.name, value as string)
              : eq(tags.name, value as string);
      return exists(
        sql`(select 1 from ${link} join ${tags} on ${tags.organization_id} = ${link.organization_id} and ${tags.id} = ${link.tag_id} where ${link.organization_id} = ${parent.organization_id} and ${ownerColumn} = ${parent.id} and ${match})`,
      );
    },
  };
}

export const incidentResource: ResourceDefinition = defineResource({
  model: 'Incident',
  // People's word in every message ("Incident '7' could not be found."); IAO stays the API's path and the names' prefix.
  label: 'Incident',
  fieldMeta: { tags: { kind: 'references', reference: 'Tag' }, custom_fields: { help: 'Values of the fields its incident type adds, as a JSON object.' } },
  path: '/iaos',
  table: incidents,
  create: incidentCreate,
  pageSize: 25,
  sort: [['reported_at', 'desc']],
  search: ['name', 'title'],
  fields: [
    'name',
    'title',
    'status',
    'visibility',
    'project_id',
    'incident_type_id',
    'incident_priority_id',
    'incident_severity_id',
    'commander_email',
    'reporter_email',
    'reported_at',
    'stable_at',
    'closed_at',
    'created_at',
    'updated_at',
    'incident_type_name',
    'incident_priority_name',
    'incident_severity_name',
  ],
  // The list record is slim; GET /iaos/{id} returns everything.
  hidden: ['search', 'description', 'resolution', 'custom_fields', 'services', 'queries'],
  routes: { get: false },
  scope: incidentScope,
  // Admins see every incident, others the open ones and their own: one shared list statement each.
  scopeShape: (ctx) => (atLeast(ctx.role, 'Admin') ? 'all' : 'own'),
  customFilters: {
    'Tag.name': tagFilter(incidentTags, 'incident_id', incidents, 'name'),
    'Tag.id': tagFilter(incidentTags, 'incident_id', incidents, 'id'),
    'TagType.name': {
      type: 'string',
      ops: ['==', 'in'],
      build: (op, v) =>
        exists(
          sql`(select 1 from ${incidentTags} join ${tags} on ${tags.organization_id} = ${incidentTags.organization_id} and ${tags.id} = ${incidentTags.tag_id} join ${tagTypes} on ${tagTypes.organization_id} = ${tags.organization_id} and ${tagTypes.id} = ${tags.tag_type_id} where ${incidentTags.organization_id} = ${incidents.organization_id} and ${incidentTags.incident_id} = ${incidents.id} and ${op === 'in' ? inArray(tagTypes.name, v as string[]) : eq(tagTypes.name, v as string)})`,
        ),
    },
    // Commander filter by e-mail also under the Dispatch model name.
    'IndividualContact.email': {
      type: 'string',
      ops: ['==', 'in'],
      build: (op, v) => (op === 'in' ? inArray(incidents.commander_email, v as string[]) : eq(incidents.commander_email, v as string)),
    },
    'Participant.email': {
      type: 'string',
      ops: ['==', 'in'],
      build: (op, v) =>
        exists(
          sql`(select 1 from ${incidentParticipants} where ${incidentParticipants.organization_id} = ${incidents.organization_id} and ${incidentParticipants.incident_id} = ${incidents.id} and ${op === 'in' ? inArray(incidentParticipants.email, v as string[]) : eq(incidentParticipants.email, v as string)})`,
        ),
    },
  },
  computed: () => ({
    incident_type_name: nameOf(incidentTypes as never, incidents as never, incidents.incident_type_id),
    incident_priority_name: nameOf(incidentPriorities as never, incidents as never, incidents.incident_priority_id),
    incident_severity_name: nameOf(incidentSeverities as never, incidents as never, incidents.incident_severity_id),
  }),
  // `services`, `queries` and `entities` are lists of ids: bodies may send them as `[{"id": 3}]` or `service_ids` too.
  references: {
    project_id: 'Project',
    incident_type_id: 'IncidentType',
    incident_priority_id: 'IncidentPriority',
    incident_severity_id: 'IncidentSeverity',
    services: 'Service',
    queries: 'Query',
    entities: 'Entity',
  },
  people: ['commander_email', 'reporter_email'],
  // The parts GET /iaos/{id} answers with (read.ts fullIncident): ignored when the record is sent back.
  answerOnly: [
    'project_name',
    'participants',
    'tasks',
    'cases',
    'events',
    'reports',
    'resources',
    'steps',
    'incident_costs',
    'comments',
    'subscribed',
    'is_participant',
    'documents',
    'postmortems',
    'weblinks',
    'ticket',
    'storage',
    'statuspage',
    'custom_checklist',
    'assignee',
    'terms',
    'workflow_instances',
  ],
  hooks: {
    create: async (ctx, data) => createIncident(ctx, (await withProject(ctx, data)) as never),
    update: (ctx, id, data) => updateIncident(ctx, id, data as never),
  },
});

export const caseResource: ResourceDefinition = defineResource({
  model: 'Case',
  label: 'Case',
  fieldMeta: {
    tags: { kind: 'references', reference: 'Tag' },
    custom_fields: { help: 'Values of the fields its case type adds, as a JSON object.' },
    participants: { help: 'E-mail addresses; press Enter after each.' },
    incident_id: { label: 'Escalated to', reference: 'Incident' },
    ticket: { help: 'Where the case is tracked: {"resource_type": "jira", "resource_id": "SEC-12", "weblink": "https://…"}' },
    storage: { help: 'Where its evidence is kept: {"resource_type": "drive", "resource_id": "…", "weblink": "https://…"}' },
    storycurve_sketch_id: { kind: 'number', label: 'Storycurve sketch id' },
    storycurve_url: { label: 'Storycurve URL' },
  },
  path: '/cases',
  table: cases,
  create: caseCreate,
  pageSize: 25,
  sort: [['reported_at', 'desc']],
  search: ['name', 'title'],
  fields: [
    'name',
    'title',
    'status',
    'visibility',
    'resolution_reason',
    'project_id',
    'case_type_id',
    'case_priority_id',
    'case_severity_id',
    'assignee_email',
    'reporter_email',
    'incident_id',
    'reported_at',
    'triage_at',
    'escalated_at',
    'stable_at',
    'closed_at',
    'created_at',
    'updated_at',
    'case_type_name',
    'case_priority_name',
    'case_severity_name',
  ],
  // The slim list leaves out what only the case's page shows (GET /cases/{id} answers it all).
  hidden: ['description', 'resolution', 'custom_fields', 'documents', 'ticket', 'storage', 'storycurve_sketch_id', 'storycurve_url'],
  routes: { get: false },
  scope: caseScope,
  scopeShape: (ctx) => (atLeast(ctx.role, 'Admin') ? 'all' : 'own'),
  customFilters: {
    'Tag.name': tagFilter(caseTags, 'case_id', cases, 'name'),
    'Tag.id': tagFilter(caseTags, 'case_id', cases, 'id'),
    'TagType.name': {
      type: 'string',
      ops: ['==', 'in'],
      build: (op, v) =>
        exists(
          sql`(select 1 from ${caseTags} join ${tags} on ${tags.organization_id} = ${caseTags.organization_id} and ${tags.id} = ${caseTags.tag_id} join ${tagTypes} on ${tagTypes.organization_id} = ${tags.organization_id} and ${tagTypes.id} = ${tags.tag_type_id} where ${caseTags.organization_id} = ${cases.organization_id} and ${caseTags.case_id} = ${cases.id} and ${op === 'in' ? inArray(tagTypes.name, v as string[]) : eq(tagTypes.name, v as string)})`,
        ),
    },
    // Dispatch's client filters cases by assignee under the contact's model name.
    'IndividualContact.email': {
      type: 'string',
      ops: ['==', 'in'],
      build: (op, v) => (op === 'in' ? inArray(cases.assignee_email, v as string[]) : eq(cases.assignee_email, v as string)),
    },
    'Participant.email': {
      type: 'string',
      ops: ['=='],
      build: (_op, v) =>
        exists(
          sql`(select 1 from ${caseParticipants} where ${caseParticipants.organization_id} = ${cases.organization_id} and ${caseParticipants.case_id} = ${cases.id} and ${caseParticipants.email} = ${v})`,
        ),
    },
  },
  computed: () => ({
    case_type_name: nameOf(caseTypes as never, cases as never, cases.case_type_id),
    case_priority_name: nameOf(casePriorities as never, cases as never, cases.case_priority_id),
    case_severity_name: nameOf(caseSeverities as never, cases as never, cases.case_severity_id),
  }),
  references: { project_id: 'Project', case_type_id: 'CaseType', case_priority_id: 'CasePriority', case_severity_id: 'CaseSeverity', documents: 'Document' },
  people: ['assignee_email', 'reporter_email'],
  // The parts GET /cases/{id} answers with (read.ts fullCase): ignored when the record is sent back.
  answerOnly: ['project_name', 'events', 'comments', 'tasks', 'incidents', 'signals', 'groups', 'workflow_instances'],
  hooks: {
    create: async (ctx, data) => createCase(ctx, (await withProject(ctx, data)) as never),
    update: (ctx, id, data) => updateCase(ctx, id, data as never),
  },
});

export const taskResource: ResourceDefinition = defineResource({
  model: 'Task',
  label: 'Task',
  fieldMeta: { assignees: { help: 'E-mail addresses; press Enter after each.' }, reminders: { label: 'E-mail reminders when overdue' } },
  path: '/tasks',
  table: tasks,
  create: taskCreate,
  pageSize: 25,
  sort: [['created_at', 'desc']],
  search: ['description'],
  fields: [
    'description',
    'status',
    'priority',
    'type',
    'source',
    'creator_email',
    'owner_email',
    'assignees',
    'resolve_by',
    'resolved_at',
    'reminders',
    'incident_id',
    'case_id',
    'project_id',
    'created_at',
    'updated_at',
  ],
  customFilters: {
    // Tasks of incidents the caller cannot see stay out of filters by incident name.
    'Incident.name': {
      type: 'string',
      ops: ['==', 'in'],
      build: (op, v) =>
        exists(
          sql`(select 1 from ${incidents} where ${incidents.organization_id} = ${tasks.organization_id} and ${incidents.id} = ${tasks.incident_id} and ${op === 'in' ? inArray(incidents.name, v as string[]) : eq(incidents.name, v as string)})`,
        ),
    },
  },
  references: { project_id: 'Project', incident_id: 'Incident', case_id: 'Case' },
  people: ['owner_email', 'creator_email', 'assignees'],
  hooks: {
    create: (ctx, data) => createTask(ctx, data),
    update: (ctx, id, data) => updateTask(ctx, id, data),
    delete: (ctx, id) => deleteTask(ctx, id),
  },
});

export const incidentResources = [incidentResource, caseResource, taskResource];
