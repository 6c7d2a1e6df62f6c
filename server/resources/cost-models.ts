import { z } from 'zod';
import { costModels } from '../db/schema/index.js';
import { fieldsOf, projectField } from './common.js';
import { defineResource } from './define.js';
import { flag, requiredText, text } from './fields.js';
import { projectResource } from './projects.js';

const activity = z.strictObject({
  plugin_event: requiredText(200),
  response_time_seconds: z.number().int().min(0).max(7 * 24 * 3600),
  enabled: flag().default(true),
});

export const costModelResource = defineResource({
  model: 'CostModel',
  label: 'Cost model',
  path: '/cost_models',
  table: costModels,
  create: z.strictObject({ name: requiredText(200), description: text(5000), enabled: flag().optional(), activities: z.array(activity).max(200).optional(), ...projectField }),
  pageSize: 25,
  sort: [['name', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(costModels),
  references: { project_id: () => projectResource },
  // As in the spec, cost models are listed (with their activities), never fetched one by one.
  routes: { get: false },
});
