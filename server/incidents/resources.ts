import { eq, exists, sql } from 'drizzle-orm';
import { anyOf } from '../engine/filters.js';
import { atLeast } from '../core/context.js';
import { withProject } from './defaults.js';
import { incidentPriorities, incidentSeverities, incidentTypes } from './settings-tables.js';
import { incidentParticipants, incidents, incidentTags } from './tables.js';
import { incidentCreate } from './bodies.js';
import { tagFilters } from '../tags/filters.js';
import type { ResourceDefinition } from '../engine/define.js';
import { defineResource } from '../engine/define.js';
import { nameOf } from '../engine/definition-kit.js';
import { incidentScope } from './scope.js';
import { conferenceOf, conversationOf } from './spec-links.js';
import { createIncident, updateIncident } from './lifecycle.js';

/**
 * Incidents. The generic CRUD engine serves their list (slim records: the table's own columns),
 * create, update and delete; the hooks add names, roles, tags and timeline entries. The full record
 * and the actions live in routes.ts (cases/ and tasks/ define theirs the same way).
 */

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
    'conference',
    'conversation',
  ],
  // The list record is slim; GET /iaos/{id} returns everything.
  hidden: ['search', 'description', 'resolution', 'custom_fields', 'services', 'queries'],
  routes: { get: false },
  scope: incidentScope,
  // Admins see every incident, others the open ones and their own: one shared list statement each.
  scopeShape: (ctx) => (atLeast(ctx.role, 'Admin') ? 'all' : 'own'),
  customFilters: {
    ...tagFilters(incidentTags, incidentTags.incident_id, incidents),
    // Commander filter by e-mail also under the Dispatch model name.
    'IndividualContact.email': {
      type: 'string',
      ops: ['==', 'in'],
      build: (op, v) => (op === 'in' ? anyOf(incidents.commander_email, v as string[]) : eq(incidents.commander_email, v as string)),
    },
    'Participant.email': {
      type: 'string',
      ops: ['==', 'in'],
      build: (op, v) =>
        exists(
          sql`(select 1 from ${incidentParticipants} where ${incidentParticipants.organization_id} = ${incidents.organization_id} and ${incidentParticipants.incident_id} = ${incidents.id} and ${op === 'in' ? anyOf(incidentParticipants.email, v as string[]) : eq(incidentParticipants.email, v as string)})`,
        ),
    },
  },
  computed: () => ({
    incident_type_name: nameOf(incidentTypes as never, incidents as never, incidents.incident_type_id),
    incident_priority_name: nameOf(incidentPriorities as never, incidents as never, incidents.incident_priority_id),
    incident_severity_name: nameOf(incidentSeverities as never, incidents as never, incidents.incident_severity_id),
    conference: conferenceOf(incidents.conference_url),
    conversation: conversationOf(incidents.organization_id, incidents.conversation_id),
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
    'conference',
    'conversation',
  ],
  hooks: {
    create: async (ctx, data) => createIncident(ctx, (await withProject(ctx, data)) as never),
    update: (ctx, id, data) => updateIncident(ctx, id, data as never),
  },
});
