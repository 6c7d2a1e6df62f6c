import { z } from 'zod';
import { individuals, services, teams } from '../db/schema/index.js';
import { evergreenFields, fieldsOf, idList, projectField } from './common.js';
import { defineResource } from './define.js';
import { email, flag, requiredText, text } from './fields.js';
import { searchFilterResource } from './notifications.js';
import { projectResource } from './projects.js';

export const serviceResource = defineResource({
  model: 'Service',
  label: 'Service',
  path: '/services',
  table: services,
  create: z.strictObject({
    name: requiredText(200),
    type: z.string().trim().min(1).max(100).optional(),
    external_id: text(200),
    is_active: flag().optional(),
    description: text(5000),
    filters: idList().optional(),
    health_metrics: flag().optional(),
    ...evergreenFields,
    ...projectField,
  }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description', 'external_id'],
  fields: fieldsOf(services),
  references: { project_id: () => projectResource, filters: () => searchFilterResource },
});

export const individualResource = defineResource({
  model: 'IndividualContact',
  label: 'Individual',
  path: '/individuals',
  table: individuals,
  create: z.strictObject({
    name: requiredText(200),
    email: email(),
    company: text(200),
    notes: text(5000),
    title: text(200),
    external_id: text(200),
    filters: idList().optional(),
    is_external: flag().optional(),
    is_active: flag().optional(),
    ...projectField,
  }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'email', 'company'],
  fields: fieldsOf(individuals),
  references: { project_id: () => projectResource, filters: () => searchFilterResource },
});

export const teamResource = defineResource({
  model: 'TeamContact',
  label: 'Team',
  path: '/teams',
  table: teams,
  create: z.strictObject({
    name: requiredText(200),
    email: email().nullish(),
    company: text(200),
    notes: text(5000),
    filters: idList().optional(),
    ...evergreenFields,
    ...projectField,
  }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'email', 'company'],
  fields: fieldsOf(teams),
  references: { project_id: () => projectResource, filters: () => searchFilterResource },
});
