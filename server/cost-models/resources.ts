import { z } from 'zod';
import { bodyOf } from '../engine/body.js';
import { costModels } from './tables.js';
import { fieldsOf } from '../engine/definition-kit.js';
import { defineResource } from '../engine/define.js';
import { flag, requiredText, text } from '../engine/fields.js';

const activity = z.strictObject({
  plugin_event: requiredText(200),
  response_time_seconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3600),
  enabled: flag().default(true),
});

export const costModelResource = defineResource({
  model: 'CostModel',
  label: 'Cost model',
  path: '/cost_models',
  table: costModels,
  create: bodyOf(costModels, { name: requiredText(200), description: text(5000), activities: z.array(activity).max(200).optional() }),
  pageSize: 25,
  sort: [['name', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(costModels),
  references: { project_id: 'Project' },
  // As in the spec, cost models are listed (with their activities), never fetched one by one.
  routes: { get: false },
});
