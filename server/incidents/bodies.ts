import { coercedDate } from '../core/input.js';
import { z } from 'zod';
import { bodyOf } from '../engine/body.js';
import { email, ref, requiredText, text } from '../engine/fields.js';
import { incidents, INCIDENT_STATUSES, VISIBILITIES } from './tables.js';

/**
 * The incident's body, apart from its definition so that the service that takes it (lifecycle.ts)
 * types its input from it without importing the definition that imports the service (cases/ and
 * tasks/ keep theirs the same way). Updates are partial creates.
 */
const date = () => coercedDate();
export const customFields = () => z.record(z.string(), z.unknown());
export const tagIds = () => z.array(z.number().int().positive()).max(200);
/** Ids of records of another model (checked by the definition's `references`); nested `{id}` objects are turned into them first. */
export const idList = () => z.array(ref()).max(200);

export const incidentCreate = bodyOf(
  incidents,
  {
    title: requiredText(500),
    description: text(20_000),
    resolution: text(20_000),
    // Left out: the organization's first project (withProject).
    project_id: ref().optional(),
    visibility: z.enum(VISIBILITIES).optional(),
    status: z.enum(INCIDENT_STATUSES).optional(),
    commander_email: email().nullish(),
    reporter_email: email().nullish(),
    reported_at: date().optional(),
    custom_fields: customFields().optional(),
    services: idList().optional(),
    queries: idList().optional(),
  },
  { readOnly: ['name', 'stable_at', 'closed_at', 'conversation_id', 'conference_url'], extra: { tags: tagIds().optional(), entities: idList().optional() } },
);
/** What createIncident takes: the body, its project filled in (withProject). */
export type IncidentInput = z.infer<typeof incidentCreate> & { project_id: number };
