import { ONGOING } from '../core/shapes.js';

/**
 * The two kinds of record the status board and the report page serve (spec §2 iaos/status,
 * iaos/report, cases/status, cases/report): which statuses count as ongoing, which columns the board
 * shows, and which fields a reporter fills in.
 */
export interface RecordKind {
  resource: 'iaos' | 'cases';
  /** Entity name in the server's messages ("Incident '3' could not be found."). */
  entity: string;
  /** Ongoing statuses, in the board's order. */
  ongoing: readonly string[];
  /** Board columns after name and title. */
  columns: string[];
  /** Fields of the report form (the create body's, in this order). */
  reportFields: string[];
}

export const KINDS: Record<'iaos' | 'cases', RecordKind> = {
  iaos: {
    resource: 'iaos',
    entity: 'Incident',
    ongoing: ONGOING.iaos,
    columns: ['incident_priority_name', 'incident_severity_name', 'incident_type_name', 'commander_email', 'reported_at'],
    reportFields: ['title', 'incident_type_id', 'incident_severity_id', 'incident_priority_id', 'description', 'visibility', 'project_id'],
  },
  cases: {
    resource: 'cases',
    entity: 'Case',
    ongoing: ONGOING.cases,
    columns: ['case_priority_name', 'case_severity_name', 'case_type_name', 'assignee_email', 'reported_at'],
    reportFields: ['title', 'case_type_id', 'case_severity_id', 'case_priority_id', 'description', 'visibility', 'project_id'],
  },
};

/** Where a record's own screen is: the incident and case views. */
export const viewPath = (kind: RecordKind, name: string) => `/${kind.resource}/${encodeURIComponent(name)}/view`;
