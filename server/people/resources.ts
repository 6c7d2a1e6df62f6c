import { z } from 'zod';
import { bodyOf } from '../engine/body.js';
import { individuals, services, teams } from './tables.js';
import { evergreenFields, evergreenMeta, fieldsOf, idList } from '../engine/definition-kit.js';
import { defineResource } from '../engine/define.js';
import { email, requiredText, text } from '../engine/fields.js';

const SERVICE_TYPES = { 'pagerduty-oncall': 'PagerDuty on-call', 'opsgenie-oncall': 'Opsgenie on-call', other: 'Other' };

export const serviceResource = defineResource({
  model: 'Service',
  label: 'Service',
  path: '/services',
  table: services,
  create: bodyOf(services, {
    name: requiredText(200),
    type: z.string().trim().min(1).max(100).optional(),
    external_id: text(200),
    description: text(5000),
    filters: idList().optional(),
    ...evergreenFields,
  }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description', 'external_id'],
  fields: fieldsOf(services),
  fieldMeta: {
    ...evergreenMeta,
    is_active: { label: 'Active' },
    filters: { label: 'Search filters' },
    // Stored as the on-call system's id (Dispatch's plugin slug); shown and picked by its name.
    type: { label: 'On-call system', kind: 'enum', choices: SERVICE_TYPES },
  },
  references: { project_id: 'Project', filters: 'SearchFilter' },
});

export const individualResource = defineResource({
  model: 'IndividualContact',
  label: 'Individual',
  path: '/individuals',
  table: individuals,
  create: bodyOf(individuals, {
    name: requiredText(200),
    email: email(),
    company: text(200),
    notes: text(5000),
    title: text(200),
    external_id: text(200),
    filters: idList().optional(),
  }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'email', 'company'],
  fields: fieldsOf(individuals),
  fieldMeta: { is_active: { label: 'Active' }, is_external: { label: 'Outside the organization' }, filters: { label: 'Search filters' } },
  references: { project_id: 'Project', filters: 'SearchFilter' },
});

export const teamResource = defineResource({
  model: 'TeamContact',
  label: 'Team',
  path: '/teams',
  table: teams,
  create: bodyOf(teams, {
    name: requiredText(200),
    email: email().nullish(),
    company: text(200),
    notes: text(5000),
    filters: idList().optional(),
    ...evergreenFields,
  }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'email', 'company'],
  fields: fieldsOf(teams),
  fieldMeta: { ...evergreenMeta, filters: { label: 'Search filters' } },
  references: { project_id: 'Project', filters: 'SearchFilter' },
});
