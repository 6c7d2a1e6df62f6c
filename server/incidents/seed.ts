import type { SeedContext } from '../core/seeds.js';
import { incidentCostTypes, incidentPriorities, incidentRolePolicies, incidentSeverities, incidentTypes } from './settings-tables.js';

/**
 * A new organization's incident settings, in its default project: a ladder of priorities and severities
 * (colour, view order, one default), a few types (one default), the response cost type and the three
 * standing roles. Incidents created without a type, priority or severity get the defaults (lifecycle.ts).
 */
export const INCIDENT_PRIORITIES = [
  {
    name: 'Critical',
    description: 'Customers cannot work; all hands until stable.',
    color: '#B71C1C',
    view_order: 1,
    page_commander: true,
    tactical_report_reminder: 1,
    executive_report_reminder: 4,
  },
  {
    name: 'High',
    description: 'A major feature is down or degraded for many customers.',
    color: '#E65100',
    view_order: 2,
    page_commander: true,
    tactical_report_reminder: 2,
    executive_report_reminder: 8,
  },
  {
    name: 'Medium',
    description: 'Degraded for some customers; work on it today.',
    color: '#F9A825',
    view_order: 3,
    default: true,
    tactical_report_reminder: 6,
    executive_report_reminder: 24,
  },
  {
    name: 'Low',
    description: 'Little customer impact; work on it in business hours.',
    color: '#2E7D32',
    view_order: 4,
    tactical_report_reminder: 24,
    executive_report_reminder: 72,
  },
];

export const INCIDENT_SEVERITIES = [
  { name: 'Undetermined', description: 'Not assessed yet.', color: '#757575', view_order: 1, default: true },
  { name: 'Low', description: 'Minor impact, no data or money lost.', color: '#2E7D32', view_order: 2 },
  { name: 'Medium', description: 'Noticeable impact on customers or revenue.', color: '#F9A825', view_order: 3 },
  { name: 'High', description: 'Serious impact: data, money or trust lost.', color: '#E65100', view_order: 4 },
  { name: 'Critical', description: 'Business-threatening impact.', color: '#B71C1C', view_order: 5 },
];

export const INCIDENT_TYPES = [
  { name: 'Default', slug: 'default', description: 'Any incident that fits no other type.', default: true },
  { name: 'Outage', slug: 'outage', description: 'A service or feature is unavailable or degraded.' },
  { name: 'Security', slug: 'security', description: 'A suspected or confirmed security event; only participants see it.', visibility: 'Restricted' as const },
  { name: 'Data issue', slug: 'data-issue', description: 'Missing, late or wrong data.' },
];

export const INCIDENT_COST_TYPES = [
  { name: 'Response Cost', description: "People's time spent responding, from the cost model.", category: 'Primary', default: true, editable: false },
  { name: 'Customer credits', description: 'Credits or refunds given to customers.', category: 'Secondary' },
  { name: 'Vendor and cloud', description: 'Extra spend on vendors or infrastructure.', category: 'Secondary' },
];

const ROLES = ['commander', 'liaison', 'scribe'] as const;

export async function seedIncidentSettings({ tx, orgId, projectId }: SeedContext) {
  const base = { organization_id: orgId, project_id: projectId };
  await tx
    .insert(incidentPriorities)
    .values(INCIDENT_PRIORITIES.map((p) => ({ ...base, ...p })))
    .onConflictDoNothing();
  await tx
    .insert(incidentSeverities)
    .values(INCIDENT_SEVERITIES.map((s) => ({ ...base, ...s })))
    .onConflictDoNothing();
  await tx
    .insert(incidentTypes)
    .values(INCIDENT_TYPES.map((t) => ({ ...base, ...t })))
    .onConflictDoNothing();
  await tx
    .insert(incidentCostTypes)
    .values(INCIDENT_COST_TYPES.map((c) => ({ ...base, ...c })))
    .onConflictDoNothing();
  await tx.insert(incidentRolePolicies).values(ROLES.map((role, i) => ({ ...base, role, order: i + 1 })));
}
