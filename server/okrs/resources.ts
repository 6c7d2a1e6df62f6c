import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { bodyOf } from '../engine/body.js';
import { okrs } from './tables.js';
import { fieldsOf } from '../engine/definition-kit.js';
import { defineResource } from '../engine/define.js';
import { requiredText, text } from '../engine/fields.js';

/**
 * OKRs: title, description, key results; progress (read-only) is the mean of the key results'
 * current / target, each capped to 0..1, as a whole percentage; no key results means 0.
 */
export const okrResource = defineResource({
  model: 'OKR',
  label: 'OKR',
  path: '/okrs',
  table: okrs,
  create: bodyOf(okrs, {
    title: requiredText(300),
    description: text(5000),
    key_results: z
      .array(z.strictObject({ title: requiredText(300), target: z.number().positive(), current: z.number().min(0) }))
      .max(100)
      .optional(),
  }),
  pageSize: 10,
  sort: [['title', 'asc']],
  search: ['title', 'description'],
  fields: fieldsOf(okrs, ['key_results']),
  computed: () => ({
    progress: sql<number>`(select coalesce(round(avg(least(greatest((kr->>'current')::numeric / nullif((kr->>'target')::numeric, 0), 0), 1)) * 100)::int, 0) from jsonb_array_elements(${okrs.key_results}) kr)`,
  }),
  references: { project_id: 'Project' },
  fieldMeta: {
    key_results: {
      help: 'What progress is measured by: each has a target and where it stands now.',
      items: { target: { help: 'Above 0' }, current: { label: 'Now' } },
    },
    progress: { label: 'Progress (%)', kind: 'number' },
  },
});
