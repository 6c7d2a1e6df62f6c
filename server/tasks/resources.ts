import { eq, exists, sql } from 'drizzle-orm';
import { incidents } from '../incidents/tables.js';
import { tasks } from './tables.js';
import { taskCreate } from './bodies.js';
import type { ResourceDefinition } from '../engine/define.js';
import { defineResource } from '../engine/define.js';
import { anyOf } from '../engine/filters.js';
import { createTask, deleteTask, updateTask } from './service.js';

/** Tasks, served by the generic CRUD engine as incidents are (incidents/resources.ts). */
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
          sql`(select 1 from ${incidents} where ${incidents.organization_id} = ${tasks.organization_id} and ${incidents.id} = ${tasks.incident_id} and ${op === 'in' ? anyOf(incidents.name, v as string[]) : eq(incidents.name, v as string)})`,
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
