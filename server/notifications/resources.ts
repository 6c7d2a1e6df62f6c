import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { bodyOf } from '../engine/body.js';
import { individuals, services, teams } from '../people/tables.js';
import { NOTIFICATION_TYPES, notifications, SEARCH_FILTER_SUBJECTS, searchFilters } from './tables.js';
import { evergreenFields, evergreenMeta, fieldsOf, idList, linkedFrom } from '../engine/definition-kit.js';
import { defineResource } from '../engine/define.js';
import { compileExpression, forgetFilter, type FilterSubject } from './matching.js';
import { type RequestContext } from '../core/context.js';
import { requiredText, text } from '../engine/fields.js';

export const searchFilterResource = defineResource({
  model: 'SearchFilter',
  label: 'Search filter',
  path: '/search/filters',
  table: searchFilters,
  create: bodyOf(searchFilters, {
    name: requiredText(200),
    description: text(5000),
    expression: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())], { error: 'The expression must be a filter object or list' }),
    type: text(100),
    subject: z.enum(SEARCH_FILTER_SUBJECTS, { error: `Subject must be one of ${SEARCH_FILTER_SUBJECTS.join(', ')}` }).optional(),
  }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(searchFilters, ['expression']),
  fieldMeta: { expression: { help: 'A list filter as JSON, e.g. {"and": [{"field": "status", "op": "==", "value": "Active"}]}.' } },
  // Individuals, services, teams and notifications hold the link (their `filters` lists).
  computed: () => ({
    individuals: linkedFrom(searchFilters, individuals, 'filters', 'name'),
    services: linkedFrom(searchFilters, services, 'filters', 'name'),
    teams: linkedFrom(searchFilters, teams, 'filters', 'name'),
    notifications: linkedFrom(searchFilters, notifications, 'filters', 'name'),
  }),
  answerOnly: ['individuals', 'services', 'teams', 'notifications'],
  references: { project_id: 'Project' },
  hooks: {
    async beforeCreate(ctx, data) {
      await checkExpression(ctx, (data.subject as string | undefined) ?? 'incident', data.expression);
      return data;
    },
    async beforeUpdate(ctx, id, data) {
      if (data.expression === undefined && data.subject === undefined) return data;
      const [current] = await ctx.tx
        .select({ subject: searchFilters.subject, expression: searchFilters.expression })
        .from(searchFilters)
        .where(and(eq(searchFilters.id, id), eq(searchFilters.organization_id, ctx.orgId)));
      if (!current) return data;
      await checkExpression(ctx, (data.subject as string | undefined) ?? current.subject, data.expression ?? current.expression);
      return data;
    },
    // Compiled conditions are also keyed by updated_at; dropping them here keeps the cache small.
    beforeDelete(ctx, id) {
      forgetFilter(ctx, id);
    },
  },
});

async function checkExpression(ctx: RequestContext, subject: string, expression: unknown) {
  compileExpression(ctx, subject as FilterSubject, expression);
}

export const notificationResource = defineResource({
  model: 'Notification',
  label: 'Notification',
  path: '/notifications',
  table: notifications,
  create: bodyOf(notifications, {
    name: requiredText(200),
    description: text(5000),
    type: z.enum(NOTIFICATION_TYPES, { error: `Type must be one of ${NOTIFICATION_TYPES.join(', ')}` }).optional(),
    target: requiredText(500),
    filters: idList().optional(),
    ...evergreenFields,
  }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description', 'target'],
  fields: fieldsOf(notifications),
  fieldMeta: { ...evergreenMeta, filters: { label: 'Search filters' } },
  references: { project_id: 'Project', filters: 'SearchFilter' },
});
