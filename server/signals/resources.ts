import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { invalid } from '../core/errors.js';
import { bodyOf } from '../engine/body.js';
import { fieldsOf, idList, outer } from '../engine/definition-kit.js';
import { defineResource } from '../engine/define.js';
import { conversationTarget, ref, requiredText, text, url } from '../engine/fields.js';
import { checkExpression } from './filters.js';
import { jpathError, patternError } from './extract.js';
import { entities, entityTypes, GROUPINGS, signalEngagements, signalFilters, signalInstances, signals } from './tables.js';
import { normalize } from './extract.js';
import { forgetSources } from './sources.js';

/** Ingest keys are 32 hex characters, the length of a PagerDuty routing key, so PD clients accept them. */
export const newIngestKey = () => {
  const key = randomBytes(16).toString('hex');
  return { key, hash: hashIngestKey(key) };
};
export const hashIngestKey = (key: string) => createHash('sha256').update(`ingest:${key}`).digest('hex');

/** An entity type's pattern and path, when given, must be ones the extractor can run. */
export function checkPatterns<T extends { jpath?: unknown; regular_expression?: unknown }>(data: T): T {
  if (typeof data.regular_expression === 'string' && data.regular_expression) {
    const error = patternError(data.regular_expression);
    if (error) throw invalid(error, ['body', 'regular_expression']);
  }
  if (typeof data.jpath === 'string' && data.jpath) {
    const error = jpathError(data.jpath);
    if (error) throw invalid(error, ['body', 'jpath']);
  }
  return data;
}

export const entityTypeCreate = bodyOf(entityTypes, { name: requiredText(200), description: text(5000), jpath: text(2000), regular_expression: text(2000) });

export const entityTypeResource = defineResource({
  model: 'EntityType',
  label: 'Entity type',
  path: '/entity_type',
  table: entityTypes,
  create: entityTypeCreate,
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(entityTypes),
  // Spec §3: an entity type lists its signals (the definitions that extract it; every one for scope 'all').
  computed: () => ({
    signals: sql`(select coalesce(jsonb_agg(jsonb_build_object('id', s.id, 'name', s.name) order by s.name), '[]'::jsonb) from signals s
      where s.organization_id = ${outer(entityTypes, 'organization_id')} and (${outer(entityTypes, 'scope')} = 'all' or ${outer(entityTypes, 'id')} = any(s.entity_type_ids)))`,
  }),
  answerOnly: ['signals'],
  references: { project_id: 'Project' },
  hooks: {
    beforeCreate: (_ctx, data) => checkPatterns(data),
    beforeUpdate: (_ctx, _id, data) => checkPatterns(data),
  },
});

const entityCreate = bodyOf(entities, { value: requiredText(1000), description: text(5000), source: text(200) }, { readOnly: ['normalized'] });

export const entityResource = defineResource({
  model: 'Entity',
  label: 'Entity',
  path: '/entity',
  table: entities,
  create: entityCreate,
  // An entity's value (and so its type) is what it is: only what is said about it changes.
  update: entityCreate.pick({ description: true, source: true, project_id: true }),
  pageSize: 10,
  sort: [['value', 'asc']],
  search: ['value'],
  fields: fieldsOf(entities),
  // Spec §3: an entity's name (its value) and its signal instances (the latest 25 here; all at /entity/{id}/signal_instances).
  computed: () => ({
    name: sql<string>`${outer(entities, 'value')}`,
    signal_instances: sql`(select coalesce(jsonb_agg(jsonb_build_object('id', i.id, 'signal_id', i.signal_id, 'case_id', i.case_id, 'created_at', i.created_at) order by i.id desc), '[]'::jsonb)
      from (select si.id, si.signal_id, si.case_id, si.created_at from signal_instance_entities l join signal_instances si on si.organization_id = l.organization_id and si.id = l.signal_instance_id
        where l.organization_id = ${outer(entities, 'organization_id')} and l.entity_id = ${outer(entities, 'id')} order by si.id desc limit 25) i)`,
    // Spec §3 names these on the entity; they are its type's, read through so they never disagree.
    ...Object.fromEntries(
      (['regular_expression', 'jpath', 'default'] as const).map((column) => [
        column,
        sql`(select t.${sql.identifier(column)} from ${entityTypes} t where t.organization_id = ${outer(entities, 'organization_id')} and t.id = ${outer(entities, 'entity_type_id')})`,
      ]),
    ),
  }),
  answerOnly: ['name', 'signal_instances', 'regular_expression', 'jpath', 'default'],
  references: { project_id: 'Project', entity_type_id: 'EntityType' },
  hooks: {
    beforeCreate: (_ctx, data) => ({ ...data, normalized: normalize(String(data.value)) }),
  },
});

export const signalFilterResource = defineResource({
  model: 'SignalFilter',
  label: 'Signal filter',
  path: '/signals/filters',
  table: signalFilters,
  create: bodyOf(signalFilters, {
    name: requiredText(200),
    description: text(5000),
    expression: z.array(z.unknown()).max(100).optional(),
    expiration: z.coerce.date().nullish(),
    /** Seconds. */
    window: z
      .number()
      .int()
      .min(1)
      .max(30 * 24 * 3600)
      .optional(),
  }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(signalFilters, ['expression']),
  references: { project_id: 'Project' },
  hooks: {
    beforeCreate(_ctx, data) {
      checkExpression(data.expression);
      return data;
    },
    beforeUpdate(_ctx, _id, data) {
      if (data.expression !== undefined) checkExpression(data.expression);
      return data;
    },
  },
});

export const signalEngagementResource = defineResource({
  model: 'SignalEngagement',
  label: 'Signal engagement',
  path: '/signals/engagements',
  table: signalEngagements,
  create: bodyOf(signalEngagements, { name: requiredText(200), description: text(5000), message: text(10_000) }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(signalEngagements),
  references: { project_id: 'Project', entity_type_id: 'EntityType' },
});

/** An HTTP header name (RFC 9110 token). */
const headerName = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'Must be an HTTP header name');

const signalCreate = bodyOf(
  signals,
  {
    name: requiredText(200),
    description: text(5000),
    variant: text(200),
    owner: text(320),
    external_id: text(500),
    external_url: url(),
    conversation_target: conversationTarget(),
    source: text(200),
    entity_type_ids: idList().optional(),
    filter_ids: idList().optional(),
    engagement_ids: idList().optional(),
    tag_ids: idList().optional(),
    workflow_ids: idList().optional(),
    /** Grafana's HMAC secret; when set, deliveries to /signals/grafana must be signed with it. */
    hmac_secret: z.string().min(16).max(500).nullish(),
    /** The header names set in Grafana's HMAC options (null: Grafana's default signature header, no timestamp). */
    signature_header: headerName.nullish(),
    timestamp_header: headerName.nullish(),
    /** Events a minute; more get 429 (PagerDuty) or 503 with Retry-After (Alertmanager, Grafana). Null: the server's default. */
    rate_limit_per_minute: z.number().int().min(1).max(1_000_000).nullish(),
    grouping: z.enum(GROUPINGS).optional(),
    group_by: z.array(z.string().trim().min(1).max(200)).max(20).optional(),
  },
  // The key columns are the server's (made here, rotated at /signals/{id}/rotate_key).
  { readOnly: ['ingest_key_hash', 'previous_ingest_key_hash', 'previous_key_expires_at'] },
);

export const signalResource = defineResource({
  model: 'Signal',
  label: 'Signal',
  path: '/signals',
  table: signals,
  create: signalCreate,
  // A definition may move to another project, never to none.
  update: signalCreate.extend({ project_id: ref() }).partial(),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description', 'variant'],
  fields: fieldsOf(signals, ['ingest_key_hash', 'hmac_secret']),
  hidden: ['ingest_key_hash', 'hmac_secret'],
  references: {
    project_id: 'Project',
    case_type_id: 'CaseType',
    case_priority_id: 'CasePriority',
    entity_type_ids: 'EntityType',
    filter_ids: 'SignalFilter',
    engagement_ids: 'SignalEngagement',
    oncall_service_id: 'Service',
    tag_ids: 'Tag',
    // Spec §3: `workflows: [{id}]` beside `workflow_ids`, answered as {id, name}.
    workflow_ids: 'Workflow',
  },
  hooks: {
    beforeCreate(_ctx, data) {
      const secret = newIngestKey();
      return { ...data, ingest_key_hash: secret.hash, ingest_key: secret.key };
    },
    async create(ctx, data) {
      const { ingest_key: _key, ...values } = data;
      const [row] = await ctx.tx
        .insert(signals)
        .values({ ...(values as typeof signals.$inferInsert), organization_id: ctx.orgId })
        .returning({ id: signals.id });
      return row!.id;
    },
    /** The ingest key is in the create response only; only its hash is stored. */
    afterCreate: (_ctx, record, data) => ({ ...record, ingest_key: data.ingest_key }),
    beforeUpdate: (_ctx, _id, data) => (forgetSources(), data),
    beforeDelete: () => forgetSources(),
  },
});

export const signalInstanceResource = defineResource({
  model: 'SignalInstance',
  label: 'Signal instance',
  path: '/signals/instances',
  table: signalInstances,
  create: z.strictObject({}),
  pageSize: 25,
  sort: [['created_at', 'desc']],
  search: ['dedup_key'],
  fields: fieldsOf(signalInstances, ['raw']),
  routes: { get: false, create: false, update: false, delete: false },
});

export const signalResources = [entityTypeResource, entityResource, signalFilterResource, signalEngagementResource, signalResource, signalInstanceResource];
