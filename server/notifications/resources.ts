import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { bodyOf } from '../engine/body.js';
import { individuals, services, teams } from '../people/tables.js';
import { NOTIFICATION_TYPES, notifications, SEARCH_FILTER_SUBJECTS, searchFilters } from './tables.js';
import { evergreenFields, evergreenMeta, fieldsOf, idList, linkedFrom } from '../engine/definition-kit.js';
import { defineResource } from '../engine/define.js';
import { compileExpression, forgetFilter, type FilterSubject } from './matching.js';
import { type RequestContext } from '../core/context.js';
import { requiredText, text } from '../engine/fields.js';

/**
 * Dispatch's search-filter dialog sends its picks per field (`{"incident_type": [{"id": 1}], "status":
 * ["Active", "Stable"]}`): an object picks by id through its model (`IncidentType.id`), a value the
 * field itself. The expression is any of a field's picks, and every field: `[{"and": [{"or": [...]}]}]`.
 */
export const filterPicks = z.record(
  z.string().regex(/^[a-z][a-z0-9_]*$/, 'A filter key is a field name, e.g. incident_type'),
  z.array(z.union([z.string(), z.number(), z.boolean(), z.looseObject({ id: z.number().int().positive() })])).max(200),
);
const pascal = (key: string) => key.replace(/(^|_)([a-z0-9])/g, (_m, _s, c: string) => c.toUpperCase());

export function expressionOfPicks(picks: z.infer<typeof filterPicks>) {
  const groups = Object.entries(picks)
    .filter(([, values]) => values.length)
    .map(([key, values]) => ({
      or: values.map((v) => (typeof v === 'object' ? { model: pascal(key), field: 'id', op: '==', value: v.id } : { field: key, op: '==', value: v })),
    }));
  return [{ and: groups }];
}

/**
 * The picks back from an expression of that shape (a field's `==` conditions, or a model's by id),
 * for a client that edits them; null when the expression says more than picks can.
 */
const picksOf = () => {
  const e = sql`${searchFilters.expression}`;
  const conditions = sql`jsonb_array_elements(${e}->0->'and') grp, jsonb_array_elements(grp->'or') with ordinality c(v, n)`;
  const key = sql`case when c.v ? 'model' then lower(regexp_replace(c.v->>'model', '([a-z0-9])([A-Z])', '\\1_\\2', 'g')) else c.v->>'field' end`;
  return sql`case when jsonb_typeof(${e}) = 'array' and jsonb_array_length(${e}) = 1 and jsonb_typeof(${e}->0->'and') = 'array'
      and not exists (select 1 from jsonb_array_elements(${e}->0->'and') grp where jsonb_typeof(grp->'or') is distinct from 'array')
      and not exists (select 1 from ${conditions} where c.v->>'op' is distinct from '==' or (c.v ? 'model' and c.v->>'field' is distinct from 'id'))
    then (select coalesce(jsonb_object_agg(k, vs), '{}'::jsonb) from (
      select ${key} k, jsonb_agg(case when c.v ? 'model' then jsonb_build_object('id', c.v->'value') else c.v->'value' end order by n) vs
      from ${conditions} group by 1) picks)
    end`;
};

export const searchFilterResource = defineResource({
  model: 'SearchFilter',
  label: 'Search filter',
  path: '/search/filters',
  table: searchFilters,
  create: bodyOf(
    searchFilters,
    {
      name: requiredText(200),
      description: text(5000),
      // Or built from `filters` (the picks) when it is left out (hooks.prepare).
      expression: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())], { error: 'The expression must be a filter object or list' }),
      type: text(100),
      subject: z.enum(SEARCH_FILTER_SUBJECTS, { error: `Subject must be one of ${SEARCH_FILTER_SUBJECTS.join(', ')}` }).optional(),
    },
    { extra: { filters: filterPicks.nullish() } },
  ),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(searchFilters, ['expression']),
  fieldMeta: {
    expression: { help: 'A list filter as JSON, e.g. {"and": [{"field": "status", "op": "==", "value": "Active"}]}.' },
    filters: { label: 'Picks', help: 'Instead of the expression: values per field, e.g. {"status": ["Active"], "incident_type": [{"id": 1}]}.' },
  },
  // Individuals, services, teams and notifications hold the link (their `filters` lists).
  computed: () => ({
    filters: picksOf(),
    individuals: linkedFrom(searchFilters, individuals, 'filters', 'name'),
    services: linkedFrom(searchFilters, services, 'filters', 'name'),
    teams: linkedFrom(searchFilters, teams, 'filters', 'name'),
    notifications: linkedFrom(searchFilters, notifications, 'filters', 'name'),
  }),
  answerOnly: ['individuals', 'services', 'teams', 'notifications'],
  references: { project_id: 'Project' },
  hooks: {
    prepare: fromPicks,
    async beforeCreate(ctx, data) {
      delete data.filters;
      await checkExpression(ctx, (data.subject as string | undefined) ?? 'incident', data.expression);
      return data;
    },
    async beforeUpdate(ctx, id, data) {
      delete data.filters;
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

/** The expression from the picks when a body sends valid picks and no expression (picks are not stored; invalid ones are refused by the schema). */
function fromPicks(body: Record<string, unknown>) {
  const picks = filterPicks.safeParse(body.filters);
  if (!picks.success || body.expression !== undefined) return body;
  return { ...body, expression: expressionOfPicks(picks.data) };
}

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
