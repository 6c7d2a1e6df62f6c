import { eq, exists, ilike, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  casePriorities,
  caseSeverities,
  caseTypes,
  incidentPriorities,
  incidentSeverities,
  incidentTypes,
  caseParticipants,
  cases,
  caseTags,
  CASE_STATUSES,
  incidentParticipants,
  incidents,
  incidentTags,
  INCIDENT_STATUSES,
  RESOLUTION_REASONS,
  tags,
  tagTypes,
  tasks,
  TASK_STATUSES,
  VISIBILITIES,
} from '../db/schema/index.js';
import type { CustomFilter, ResourceDefinition } from './define.js';
import { defineResource } from './define.js';
import { email, flag, ref, requiredRef, requiredText, text } from './fields.js';
import { projectResource } from './projects.js';
import { casePriorityResource, caseSeverityResource, caseTypeResource } from './case-settings.js';
import { incidentPriorityResource, incidentSeverityResource, incidentTypeResource } from './incident-settings.js';
import { caseScope, incidentScope } from '../services/incidents/common.js';
import { createIncident, updateIncident } from '../services/incidents/lifecycle.js';
import { createCase, updateCase } from '../services/incidents/cases.js';
import { createTask, deleteTask, updateTask } from '../services/incidents/tasks.js';

/**
 * Incidents, cases and tasks. The generic CRUD engine serves their lists (slim records: the table's
 * own columns), create, update and delete; their hooks add names, roles, tags and timeline entries.
 * The full single records and the actions live in routes/incidents.ts, cases.ts and tasks.ts.
 */

/** `<name>` of the row `column` points at, as a correlated lookup inside the list query (no N+1). */
const nameOf = (table: { organization_id: never; id: never; name: never }, parent: { organization_id: never }, column: unknown) =>
  sql<string | null>`(select ${table.name} from ${table as never} where ${table.organization_id} = ${parent.organization_id} and ${table.id} = ${column})`;

const date = () => z.coerce.date({ error: 'Must be a date' });
const tagIds = () => z.array(ref()).max(200);
const customFields = () => z.record(z.string(), z.unknown());

/** `{"model": "Tag", "field": "name"|"id", ...}` through the link table, as one EXISTS. */
function tagFilter(link: typeof incidentTags | typeof caseTags, owner: 'incident_id' | 'case_id', parent: typeof incidents | typeof cases, field: 'name' | 'id'): CustomFilter {
  const ownerColumn = owner === 'incident_id' ? (link as typeof incidentTags).incident_id : (link as typeof caseTags).case_id;
  return {
    type: field === 'id' ? 'number' : 'string',
    ops: field === 'id' ? ['==', 'in'] : ['==', 'in', 'ilike'],
    build: (op, value) => {
      const match = field === 'id' ? (op === 'in' ? inArray(tags.id, value as number[]) : eq(tags.id, value as number)) : op === 'in' ? inArray(tags.name, value as string[]) : op === 'ilike' ? ilike(tags.name, value as string) : eq(tags.name, value as string);
      return exists(
        sql`(select 1 from ${link} join ${tags} on ${tags.organization_id} = ${link.organization_id} and ${tags.id} = ${link.tag_id} where ${link.organization_id} = ${parent.organization_id} and ${ownerColumn} = ${parent.id} and ${match})`,
      );
    },
  };
}

const incidentBody = {
  title: requiredText(500),
  description: text(20_000),
  resolution: text(20_000),
  project_id: requiredRef(),
  visibility: z.enum(VISIBILITIES).optional(),
  status: z.enum(INCIDENT_STATUSES).optional(),
  incident_type_id: ref().nullish(),
  incident_priority_id: ref().nullish(),
  incident_severity_id: ref().nullish(),
  commander_email: email().nullish(),
  reporter_email: email().nullish(),
  reported_at: date().optional(),
  custom_fields: customFields().optional(),
  tags: tagIds().optional(),
};

export const incidentResource: ResourceDefinition = defineResource({
  model: 'Incident',
  label: 'IAO',
  path: '/iaos',
  table: incidents,
  create: z.strictObject(incidentBody),
  update: z.strictObject({ ...incidentBody, title: requiredText(500).optional(), project_id: ref().optional() }),
  pageSize: 25,
  sort: [['reported_at', 'desc']],
  search: ['name', 'title'],
  fields: ['name', 'title', 'status', 'visibility', 'project_id', 'incident_type_id', 'incident_priority_id', 'incident_severity_id', 'commander_email', 'reporter_email', 'reported_at', 'stable_at', 'closed_at', 'created_at', 'updated_at', 'incident_type_name', 'incident_priority_name', 'incident_severity_name'],
  // The list record is slim; GET /iaos/{id} returns everything.
  hidden: ['search', 'description', 'resolution', 'custom_fields'],
  routes: { get: false },
  scope: incidentScope,
  customFilters: {
    'Tag.name': tagFilter(incidentTags, 'incident_id', incidents, 'name'),
    'Tag.id': tagFilter(incidentTags, 'incident_id', incidents, 'id'),
    // Commander filter by e-mail also under the Dispatch model name.
    'IndividualContact.email': { type: 'string', ops: ['==', 'in'], build: (op, v) => (op === 'in' ? inArray(incidents.commander_email, v as string[]) : eq(incidents.commander_email, v as string)) },
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
  references: { project_id: () => projectResource, incident_type_id: () => incidentTypeResource, incident_priority_id: () => incidentPriorityResource, incident_severity_id: () => incidentSeverityResource },
  hooks: {
    create: (ctx, data) => createIncident(ctx, data as never),
    update: (ctx, id, data) => updateIncident(ctx, id, data as never),
  },
});

const caseBody = {
  title: requiredText(500),
  description: text(20_000),
  resolution: text(20_000),
  resolution_reason: z.enum(RESOLUTION_REASONS).nullish(),
  project_id: requiredRef(),
  status: z.enum(CASE_STATUSES).optional(),
  visibility: z.enum(VISIBILITIES).optional(),
  case_type_id: ref().nullish(),
  case_priority_id: ref().nullish(),
  case_severity_id: ref().nullish(),
  assignee_email: email().nullish(),
  reporter_email: email().nullish(),
  reported_at: date().optional(),
  custom_fields: customFields().optional(),
  tags: tagIds().optional(),
  participants: z.array(email()).max(200).optional(),
};

export const caseResource: ResourceDefinition = defineResource({
  model: 'Case',
  label: 'Case',
  path: '/cases',
  table: cases,
  create: z.strictObject(caseBody),
  update: z.strictObject({ ...caseBody, title: requiredText(500).optional(), project_id: ref().optional() }),
  pageSize: 25,
  sort: [['reported_at', 'desc']],
  search: ['name', 'title'],
  fields: [
    'name', 'title', 'status', 'visibility', 'resolution_reason', 'project_id', 'case_type_id', 'case_priority_id', 'case_severity_id',
    'assignee_email', 'reporter_email', 'incident_id', 'reported_at', 'triage_at', 'escalated_at', 'stable_at', 'closed_at', 'created_at', 'updated_at',
    'case_type_name', 'case_priority_name', 'case_severity_name',
  ],
  hidden: ['description', 'resolution', 'custom_fields'],
  routes: { get: false },
  scope: caseScope,
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
    'Participant.email': {
      type: 'string',
      ops: ['=='],
      build: (_op, v) => exists(sql`(select 1 from ${caseParticipants} where ${caseParticipants.organization_id} = ${cases.organization_id} and ${caseParticipants.case_id} = ${cases.id} and ${caseParticipants.email} = ${v})`),
    },
  },
  computed: () => ({
    case_type_name: nameOf(caseTypes as never, cases as never, cases.case_type_id),
    case_priority_name: nameOf(casePriorities as never, cases as never, cases.case_priority_id),
    case_severity_name: nameOf(caseSeverities as never, cases as never, cases.case_severity_id),
  }),
  references: { project_id: () => projectResource, case_type_id: () => caseTypeResource, case_priority_id: () => casePriorityResource, case_severity_id: () => caseSeverityResource },
  hooks: {
    create: (ctx, data) => createCase(ctx, data as never),
    update: (ctx, id, data) => updateCase(ctx, id, data as never),
  },
});

const taskBody = {
  description: requiredText(5000),
  status: z.enum(TASK_STATUSES).optional(),
  priority: z.enum(['Low', 'Medium', 'High']).optional(),
  type: z.string().trim().min(1).max(100).optional(),
  source: z.string().trim().min(1).max(100).optional(),
  owner_email: email().nullish(),
  assignees: z.array(email()).max(100).optional(),
  resolve_by: date().nullish(),
  reminders: flag().optional(),
  incident_id: ref().nullish(),
  case_id: ref().nullish(),
  project_id: ref().nullish(),
};

export const taskResource: ResourceDefinition = defineResource({
  model: 'Task',
  label: 'Task',
  path: '/tasks',
  table: tasks,
  create: z.strictObject(taskBody),
  update: z.strictObject({ ...taskBody, description: requiredText(5000).optional() }),
  pageSize: 25,
  sort: [['created_at', 'desc']],
  search: ['description'],
  fields: ['description', 'status', 'priority', 'type', 'source', 'creator_email', 'owner_email', 'assignees', 'resolve_by', 'resolved_at', 'reminders', 'incident_id', 'case_id', 'project_id', 'created_at', 'updated_at'],
  customFilters: {
    // Tasks of incidents the caller cannot see stay out of filters by incident name.
    'Incident.name': {
      type: 'string',
      ops: ['==', 'in'],
      build: (op, v) => exists(sql`(select 1 from ${incidents} where ${incidents.organization_id} = ${tasks.organization_id} and ${incidents.id} = ${tasks.incident_id} and ${op === 'in' ? inArray(incidents.name, v as string[]) : eq(incidents.name, v as string)})`),
    },
  },
  references: { project_id: () => projectResource, incident_id: () => incidentResource, case_id: () => caseResource },
  hooks: {
    create: (ctx, data) => createTask(ctx, data),
    update: (ctx, id, data) => updateTask(ctx, id, data),
    delete: (ctx, id) => deleteTask(ctx, id),
  },
});

export const incidentResources = [incidentResource, caseResource, taskResource];
