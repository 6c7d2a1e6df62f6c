import { eq, exists, sql } from 'drizzle-orm';
import { anyOf } from '../engine/filters.js';
import { atLeast } from '../core/context.js';
import { withProject } from '../incidents/defaults.js';
import { casePriorities, caseSeverities, caseTypes } from './settings-tables.js';
import { caseParticipants, cases, caseTags } from './tables.js';
import { caseCreate } from './bodies.js';
import { tagFilters } from '../tags/filters.js';
import type { ResourceDefinition } from '../engine/define.js';
import { defineResource } from '../engine/define.js';
import { nameOf } from '../engine/definition-kit.js';
import { caseScope } from './scope.js';
import { conversationOf } from '../incidents/spec-links.js';
import { createCase, updateCase } from './service.js';

/** Cases, served by the generic CRUD engine as incidents are (incidents/resources.ts); the full record and actions in routes.ts. */
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
    'conversation',
  ],
  // The slim list leaves out what only the case's page shows (GET /cases/{id} answers it all).
  hidden: ['description', 'resolution', 'custom_fields', 'documents', 'ticket', 'storage', 'storycurve_sketch_id', 'storycurve_url'],
  routes: { get: false },
  scope: caseScope,
  scopeShape: (ctx) => (atLeast(ctx.role, 'Admin') ? 'all' : 'own'),
  customFilters: {
    ...tagFilters(caseTags, caseTags.case_id, cases),
    // Dispatch's client filters cases by assignee under the contact's model name.
    'IndividualContact.email': {
      type: 'string',
      ops: ['==', 'in'],
      build: (op, v) => (op === 'in' ? anyOf(cases.assignee_email, v as string[]) : eq(cases.assignee_email, v as string)),
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
    conversation: conversationOf(cases.organization_id, cases.conversation_id),
  }),
  references: { project_id: 'Project', case_type_id: 'CaseType', case_priority_id: 'CasePriority', case_severity_id: 'CaseSeverity', documents: 'Document' },
  people: ['assignee_email', 'reporter_email'],
  // The parts GET /cases/{id} answers with (read.ts fullCase): ignored when the record is sent back.
  answerOnly: ['project_name', 'events', 'comments', 'tasks', 'incidents', 'signals', 'groups', 'workflow_instances', 'conversation'],
  hooks: {
    create: async (ctx, data) => createCase(ctx, (await withProject(ctx, data)) as never),
    update: (ctx, id, data) => updateCase(ctx, id, data as never),
  },
});
