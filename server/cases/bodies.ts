import { z } from 'zod';
import { coercedDate } from '../core/input.js';
import { bodyOf } from '../engine/body.js';
import { email, ref, requiredText, text, url } from '../engine/fields.js';
import { VISIBILITIES } from '../incidents/tables.js';
import { customFields, idList, tagIds } from '../incidents/bodies.js';
import { cases, CASE_STATUSES, RESOLUTION_REASONS } from './tables.js';

/** The case's body, apart from its definition as incidents/bodies.ts explains. */
const date = () => coercedDate();
/** A record in another system (a case's ticket or storage), as Dispatch's resources are. */
const externalResource = () =>
  z
    .strictObject({ resource_type: text(200), resource_id: text(500), weblink: url().refine((v) => !v || v.length <= 2000, 'At most 2000 characters') })
    .nullish();

export const caseCreate = bodyOf(
  cases,
  {
    title: requiredText(500),
    description: text(20_000),
    resolution: text(20_000),
    project_id: ref().optional(),
    resolution_reason: z.enum(RESOLUTION_REASONS).nullish(),
    status: z.enum(CASE_STATUSES).optional(),
    visibility: z.enum(VISIBILITIES).optional(),
    assignee_email: email().nullish(),
    reporter_email: email().nullish(),
    reported_at: date().optional(),
    custom_fields: customFields().optional(),
    documents: idList().optional(),
    ticket: externalResource(),
    storage: externalResource(),
    storycurve_sketch_id: ref().nullish(),
    storycurve_url: url(),
  },
  {
    readOnly: ['name', 'triage_at', 'escalated_at', 'stable_at', 'closed_at', 'incident_id', 'conversation_id'],
    extra: { tags: tagIds().optional(), participants: z.array(email()).max(200).optional() },
  },
);
export type CaseInput = z.infer<typeof caseCreate> & { project_id: number };
