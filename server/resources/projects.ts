import { z } from 'zod';
import { apiKeys, projects } from '../db/schema/index.js';
import { forbidden } from '../errors.js';
import { newApiKey } from '../services/auth.js';
import { defineResource } from './define.js';
import { color, email, ref, requiredRef, requiredText, text } from './fields.js';

export const projectResource = defineResource({
  model: 'Project',
  label: 'Project',
  path: '/projects',
  table: projects,
  create: z.strictObject({
    name: requiredText(100),
    description: text(2000),
    color: color().optional(),
    custom_ttp_patterns: z.array(z.string().max(200)).max(200).optional(),
    annual_employee_cost: z.number().int().min(0).max(100_000_000).optional(),
    business_year_hours: z.number().int().min(1).max(8784).optional(),
    owner_email: email().nullish(),
    owner_conversation: text(500),
  }),
  pageSize: 9999,
  sort: [['name', 'asc']],
  search: ['name', 'description'],
  fields: ['name', 'color', 'owner_email', 'custom_ttp_patterns', 'annual_employee_cost', 'business_year_hours', 'created_at'],
});

export const apiKeyResource = defineResource({
  model: 'ApiKey',
  label: 'API Key',
  path: '/apikeys',
  table: apiKeys,
  create: z.strictObject({ project_id: requiredRef(), description: text(500) }),
  update: z.strictObject({ description: text(500), project_id: ref().optional() }),
  pageSize: 10,
  sort: [['created_at', 'desc']],
  search: ['description', 'key_prefix'],
  fields: ['description', 'project_id', 'key_prefix', 'created_at', 'last_used_at'],
  hidden: ['key_hash'],
  writeRole: 'Admin',
  references: { project_id: () => projectResource },
  hooks: {
    async create(ctx, data) {
      if (ctx.userId === null) throw forbidden('An API key cannot create API keys.');
      const secret = newApiKey();
      const [row] = await ctx.tx
        .insert(apiKeys)
        .values({ organization_id: ctx.orgId, project_id: data.project_id as number, description: (data.description as string) ?? null, key_prefix: secret.prefix, key_hash: secret.hash, created_by: ctx.userId })
        .returning({ id: apiKeys.id });
      (data as { key?: string }).key = secret.key;
      return row!.id;
    },
    /** The secret is in the create response only; it is never stored. */
    afterCreate: (_ctx, record, data) => ({ ...record, key: data.key }),
  },
});
