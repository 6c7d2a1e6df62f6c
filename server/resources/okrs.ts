import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { okrs } from '../db/schema/index.js';
import { fieldsOf, projectField } from './common.js';
import { defineResource } from './define.js';
import { requiredText, text } from './fields.js';

/**
 * OKRs are read-only over the API (spec: list only). Progress is the mean of the key results'
 * current / target, each capped to 0..1, as a whole percentage; no key results means 0.
 */
export const okrResource = defineResource({
  model: 'OKR',
  label: 'OKR',
  path: '/okrs',
  table: okrs,
  create: z.strictObject({
    title: requiredText(300),
    description: text(5000),
    key_results: z.array(z.strictObject({ title: requiredText(300), target: z.number().positive(), current: z.number().min(0) })).max(100).optional(),
    ...projectField,
  }),
  pageSize: 10,
  sort: [['title', 'asc']],
  search: ['title', 'description'],
  fields: fieldsOf(okrs, ['key_results']),
  computed: () => ({
    progress: sql<number>`(select coalesce(round(avg(least(greatest((kr->>'current')::numeric / nullif((kr->>'target')::numeric, 0), 0), 1)) * 100)::int, 0) from jsonb_array_elements(${okrs.key_results}) kr)`,
  }),
  routes: { get: false, create: false, update: false, delete: false },
});
