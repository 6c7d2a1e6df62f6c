import { boolean, integer, jsonb, pgTable, text, unique } from 'drizzle-orm/pg-core';
import { id, organizationId, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { tenantExtras } from '../core/db/mixins.js';

/** One step of a cost model: how long a participant spends responding to a plugin event. */
export interface CostModelActivity {
  plugin_event: string;
  response_time_seconds: number;
  enabled: boolean;
}

export const costModels = pgTable(
  'cost_models',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    project_id: integer(),
    name: text().notNull(),
    description: text(),
    enabled: boolean().notNull().default(true),
    activities: jsonb().$type<CostModelActivity[]>().notNull().default([]),
    ...timestamps(),
  },
  (t) => [
    ...tenantExtras('cost_models', t, [t.name]),
    unique('cost_models_org_project_name_unique').on(t.organization_id, t.project_id, t.name).nullsNotDistinct(),
  ],
);
