import { sql } from 'drizzle-orm';
import { boolean, check, foreignKey, index, integer, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, tenantPolicy, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { inList } from '../core/db/mixins.js';
import { projects } from '../core/db/projects.js';
import { caseFk, incidentFk } from '../core/db/keys.js';

/** Follow-up work of an incident or a case (or of a project alone), with its reminders. */

const ts = () => timestamp({ withTimezone: true });
const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });

export const TASK_STATUSES = ['Open', 'Resolved'] as const;

export const tasks = pgTable(
  'tasks',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    incident_id: integer(),
    case_id: integer(),
    description: text().notNull(),
    status: text({ enum: TASK_STATUSES }).notNull().default('Open'),
    priority: text().notNull().default('Medium'),
    type: text().notNull().default('Follow-up'),
    source: text().notNull().default('Incident Participant'),
    creator_email: text(),
    owner_email: text(),
    assignees: text()
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    resolve_by: ts(),
    resolved_at: ts(),
    reminders: boolean().notNull().default(true),
    last_reminder_at: ts(),
    ...timestamps(),
  },
  (t) => [
    unique('tasks_org_id_unique').on(t.organization_id, t.id),
    index('tasks_org_created_v2_idx').on(t.organization_id, t.created_at.desc().nullsFirst(), t.id),
    index('tasks_org_incident_idx').on(t.organization_id, t.incident_id),
    index('tasks_org_assignees_idx').using('gin', t.organization_id, t.assignees),
    index('tasks_org_due_idx')
      .on(t.organization_id, t.resolve_by)
      .where(sql`${t.status} = 'Open' and ${t.reminders}`),
    check('tasks_status_check', sql`${t.status} in (${inList(TASK_STATUSES)})`),
    foreignKey({ name: 'tasks_project_fk', columns: [t.organization_id, t.project_id], foreignColumns: [projects.organization_id, projects.id] }).onDelete(
      'cascade',
    ),
    incidentFk('tasks_incident_fk', t as never),
    caseFk('tasks_case_fk', t as never),
    tenantPolicy('tasks'),
  ],
);
