import { coercedDate } from '../core/input.js';
import { z } from 'zod';
import { bodyOf } from '../engine/body.js';
import { email, ref, requiredText, text, url } from '../engine/fields.js';
import { cases, CASE_STATUSES, incidents, INCIDENT_STATUSES, RESOLUTION_REASONS, tasks, TASK_STATUSES, VISIBILITIES } from './tables.js';

/**
 * The bodies of incidents, cases and tasks, apart from their definitions so that the services that
 * take them (lifecycle.ts, cases/service.ts) type their input from them without importing the
 * definitions that import those services. Updates are partial creates.
 */
const date = () => coercedDate();
const tagIds = () => z.array(z.number().int().positive()).max(200);
const customFields = () => z.record(z.string(), z.unknown());
/** Ids of records of another model (checked by the definition's `references`); nested `{id}` objects are turned into them first. */
const idList = () => z.array(ref()).max(200);
/** A record in another system (a case's ticket or storage), as Dispatch's resources are. */
const externalResource = () =>
  z
    .strictObject({ resource_type: text(200), resource_id: text(500), weblink: url().refine((v) => !v || v.length <= 2000, 'At most 2000 characters') })
    .nullish();

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
