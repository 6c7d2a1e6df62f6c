import { INCIDENT_ROLES } from '../../incidents/tables.js';
import { RESOLUTION_REASONS } from '../../cases/tables.js';

type IncidentRole = (typeof INCIDENT_ROLES)[number];

/** Dispatch's ParticipantRoleType values and Firewatch's role names. Assignee is a case's role. */
const ROLE_NAMES: Record<string, IncidentRole> = {
  'Incident Commander': 'commander',
  Reporter: 'reporter',
  Liaison: 'liaison',
  Scribe: 'scribe',
  Participant: 'participant',
  Observer: 'observer',
};

export const roleOf = (role: unknown): IncidentRole | undefined => ROLE_NAMES[String(role)];

export const isResolutionReason = (v: unknown): v is (typeof RESOLUTION_REASONS)[number] => (RESOLUTION_REASONS as readonly unknown[]).includes(v);
