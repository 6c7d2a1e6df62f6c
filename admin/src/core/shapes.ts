import type { CASE_STATUSES as SERVER_CASE_STATUSES } from '../../../server/cases/tables.js';
import type { INCIDENT_STATUSES as SERVER_INCIDENT_STATUSES, STEP_STATUSES as SERVER_STEP_STATUSES } from '../../../server/incidents/tables.js';

/*
 * The statuses the server defines and several screens read, written once for the admin. Each is
 * checked against the server's own list (a type-only import: the server's tables module loads drizzle,
 * which stays out of the bundle), so a status added there fails the typecheck here.
 * The error item is core/http.ts's DetailItem; the live socket's frames are ai/socket.ts's Frame.
 */

export const INCIDENT_STATUSES = ['Active', 'Stable', 'Closed'] as const satisfies typeof SERVER_INCIDENT_STATUSES;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

export const CASE_STATUSES = ['New', 'Triage', 'Escalated', 'Stable', 'Closed'] as const satisfies typeof SERVER_CASE_STATUSES;
export type CaseStatus = (typeof CASE_STATUSES)[number];
/** Escalated comes only from escalation, which creates the incident: not a status set by hand. */
export const MANUAL_CASE_STATUSES: readonly CaseStatus[] = CASE_STATUSES.filter((s) => s !== 'Escalated');

/** Statuses that count as ongoing (the status board's columns, the search's default). */
export const ONGOING = { iaos: INCIDENT_STATUSES.filter((s) => s !== 'Closed'), cases: CASE_STATUSES.filter((s) => s !== 'Closed') };

export const STEP_STATUSES = ['Pending', 'In progress', 'Done', 'Skipped'] as const satisfies typeof SERVER_STEP_STATUSES;
