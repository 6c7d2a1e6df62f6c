import type { SeedContext } from '../core/seeds.js';
import { casePriorities, caseSeverities, caseTypes } from './settings-tables.js';

/** A new organization's case settings, in its default project (cases without them get the defaults). */
export const CASE_PRIORITIES = [
  { name: 'Critical', description: 'Triage within the hour.', color: '#B71C1C', view_order: 1, page_assignee: true, sla: 1 },
  { name: 'High', description: 'Triage within four hours.', color: '#E65100', view_order: 2, sla: 4 },
  { name: 'Medium', description: 'Triage within a business day.', color: '#F9A825', view_order: 3, default: true, sla: 24 },
  { name: 'Low', description: 'Triage within a week.', color: '#2E7D32', view_order: 4, sla: 168 },
];

export const CASE_SEVERITIES = [
  { name: 'Undetermined', description: 'Not assessed yet.', color: '#757575', view_order: 1, default: true },
  { name: 'Low', description: 'Benign or informational.', color: '#2E7D32', view_order: 2 },
  { name: 'Medium', description: 'Needs action but contained.', color: '#F9A825', view_order: 3 },
  { name: 'High', description: 'Likely harmful; act now.', color: '#E65100', view_order: 4 },
  { name: 'Critical', description: 'Confirmed harm in progress.', color: '#B71C1C', view_order: 5 },
];

export const CASE_TYPES = [
  { name: 'Default', slug: 'default', description: 'Any case that fits no other type.', default: true },
  { name: 'Security alert', slug: 'security-alert', description: 'An alert to triage; only participants see it.', visibility: 'Restricted' as const },
  { name: 'Customer request', slug: 'customer-request', description: 'A question or report from a customer.' },
];

export async function seedCaseSettings({ tx, orgId, projectId }: SeedContext) {
  const base = { organization_id: orgId, project_id: projectId };
  await tx
    .insert(casePriorities)
    .values(CASE_PRIORITIES.map((p) => ({ ...base, ...p })))
    .onConflictDoNothing();
  await tx
    .insert(caseSeverities)
    .values(CASE_SEVERITIES.map((s) => ({ ...base, ...s })))
    .onConflictDoNothing();
  await tx
    .insert(caseTypes)
    .values(CASE_TYPES.map((t) => ({ ...base, ...t })))
    .onConflictDoNothing();
}
