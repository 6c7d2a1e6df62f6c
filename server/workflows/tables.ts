import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { tenantExtras } from '../core/db/mixins.js';

const org = () => organizationId().references(() => organizations.id, { onDelete: 'cascade' });

export const WORKFLOW_STATUSES = ['Submitted', 'Running', 'Completed', 'Failed'] as const;
export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];

export interface WorkflowParameter {
  key: string;
  value: string;
}
/** One step of the built-in step engine; `with` values may hold {{incident.title}}-style placeholders. */
export type WorkflowStep =
  { kind: 'message' | 'email' | 'webhook' | 'task' | 'timeline' | 'set_field' | 'wait'; with: Record<string, unknown> } | { kind: 'switch'; with: SwitchWith };
/** A switch: the first case whose `equals` holds the value runs, else the default branch. */
export interface SwitchWith {
  value: string;
  cases: { equals: string | string[]; steps: WorkflowStep[] }[];
  default?: WorkflowStep[];
}

export const workflows = pgTable(
  'workflows',
  {
    id: id(),
    organization_id: org(),
    project_id: integer(),
    name: text().notNull(),
    description: text(),
    enabled: boolean().notNull().default(true),
    /** What the engine runs (the HTTP engine's workflow name); unused by the step engine. */
    resource_id: text(),
    parameters: jsonb().$type<WorkflowParameter[]>().notNull().default([]),
    plugin_instance_id: integer().notNull(),
    steps: jsonb().$type<WorkflowStep[]>().notNull().default([]),
    /** Incident statuses that run it (Stable, Closed). */
    incident_statuses: jsonb().$type<string[]>().notNull().default([]),
    /** Only incidents of these types / priorities (empty: any). */
    incident_type_ids: jsonb().$type<number[]>().notNull().default([]),
    incident_priority_ids: jsonb().$type<number[]>().notNull().default([]),
    on_case_escalation: boolean().notNull().default(false),
    timeout_seconds: integer().notNull().default(3600),
    ...timestamps(),
  },
  (t) => [...tenantExtras('workflows', t, [t.name])],
);

export interface Artifact {
  name: string;
  url?: string;
  description?: string;
}

export const workflowInstances = pgTable(
  'workflow_instances',
  {
    id: id(),
    organization_id: org(),
    workflow_id: integer().notNull(),
    incident_id: integer(),
    case_id: integer(),
    signal_id: integer(),
    run_reason: text(),
    /** What started it: manual, incident status, case escalation. */
    trigger: text().notNull().default('manual'),
    parameters: jsonb().$type<Record<string, string>>().notNull().default({}),
    status: text({ enum: WORKFLOW_STATUSES }).notNull().default('Submitted'),
    status_reason: text(),
    artifacts: jsonb().$type<Artifact[]>().notNull().default([]),
    /** HTTP engine: its run id and where its status is read. */
    external_id: text(),
    status_url: text(),
    /** Step engine: the next step to run. */
    next_step: integer().notNull().default(0),
    creator: text(),
    deadline_at: timestamp({ withTimezone: true }).notNull(),
    started_at: timestamp({ withTimezone: true }),
    finished_at: timestamp({ withTimezone: true }),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('workflow_instances', t),
    index('workflow_instances_workflow_idx').on(t.organization_id, t.workflow_id),
    check('workflow_instances_status_check', sql`${t.status} in ('Submitted', 'Running', 'Completed', 'Failed')`),
  ],
);
