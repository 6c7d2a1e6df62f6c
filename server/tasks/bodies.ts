import { z } from 'zod';
import { coercedDate } from '../core/input.js';
import { bodyOf } from '../engine/body.js';
import { email, requiredText } from '../engine/fields.js';
import { tasks, TASK_STATUSES } from './tables.js';

/** The task's body, apart from its definition as incidents/bodies.ts explains. */
const date = () => coercedDate();

export const taskCreate = bodyOf(
  tasks,
  {
    description: requiredText(5000),
    status: z.enum(TASK_STATUSES).optional(),
    priority: z.enum(['Low', 'Medium', 'High']).optional(),
    type: z.string().trim().min(1).max(100).optional(),
    source: z.string().trim().min(1).max(100).optional(),
    owner_email: email().nullish(),
    assignees: z.array(email()).max(100).optional(),
    resolve_by: date().nullish(),
  },
  { readOnly: ['creator_email', 'resolved_at'] },
);
export type TaskInput = z.infer<typeof taskCreate>;
