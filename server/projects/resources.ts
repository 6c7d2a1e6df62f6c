import { and, eq, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { RIGHTS } from '../core/rights.js';
import { bodyOf } from '../engine/body.js';
import { apiKeys, projects } from '../core/db/projects.js';
import { forbidden } from '../core/errors.js';
import { newApiKey } from '../core/api-keys.js';
import { announceRevokedApiKeys, apiKeysOfProject } from '../core/api-keys.js';
import { defineResource } from '../engine/define.js';
import { color, email, requiredText, text } from '../engine/fields.js';

/**
 * A landing-page visitor's project (anonymous_projects) is theirs alone: members never list, pick,
 * file into or chat in it; only the visitor's key reaches it (server/ai). `org` may be a placeholder.
 */
export const notVisitorsProject = (org: unknown): SQL =>
  sql`not exists (select 1 from anonymous_projects a where a.organization_id = ${org} and a.project_id = ${projects.id})`;

export const projectResource = defineResource({
  model: 'Project',
  label: 'Project',
  path: '/projects',
  table: projects,
  create: bodyOf(projects, {
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
  scope: (_ctx, org) => and(eq(projects.organization_id, org), notVisitorsProject(org))!,
  // The same for every caller: list statements stay shared.
  scopeShape: () => 'members',
  sort: [['name', 'asc']],
  search: ['name', 'description'],
  // Answered as the spec's `organization: {id, name}` beside organization_id.
  references: { organization_id: 'Organization' },
  // The project's API keys go with it: their open sockets close at commit.
  hooks: {
    // With a scope of its own the engine leaves the organization to the definition.
    beforeCreate: async (ctx, data) => ({ ...data, organization_id: ctx.orgId }),
    beforeDelete: async (ctx, id) => announceRevokedApiKeys(ctx.tx, await apiKeysOfProject(ctx.tx, id)),
  },
  fields: ['name', 'color', 'owner_email', 'custom_ttp_patterns', 'annual_employee_cost', 'business_year_hours', 'created_at'],
  fieldMeta: {
    custom_ttp_patterns: { label: 'Attack techniques to recognize', help: 'Patterns (e.g. MITRE ATT&CK ids like T1566) looked for in incident text.' },
    annual_employee_cost: { label: 'Yearly cost of one person', help: "Used to estimate what an incident costs in people's time." },
    business_year_hours: { label: 'Working hours per year', help: "One person's working hours in a year, for the same estimate." },
    owner_email: { label: "Owner's e-mail" },
    owner_conversation: { label: "Owner's chat channel", help: 'Where questions about this project go, e.g. #platform-ops.' },
  },
});

export const apiKeyResource = defineResource({
  model: 'ApiKey',
  label: 'API Key',
  path: '/apikeys',
  table: apiKeys,
  create: bodyOf(apiKeys, { description: text(500) }, { readOnly: ['key_prefix', 'key_hash', 'last_used_at'] }),
  pageSize: 10,
  sort: [['created_at', 'desc']],
  search: ['description', 'key_prefix'],
  fields: ['description', 'project_id', 'key_prefix', 'created_at', 'last_used_at'],
  hidden: ['key_hash'],
  writeRole: RIGHTS.apiKeys.least,
  // A key's prefix is part of its secret; Members and API keys neither list nor read them.
  readRole: RIGHTS.apiKeys.least,
  references: { project_id: 'Project' },
  labelPlural: 'API keys',
  fieldMeta: { key_prefix: { label: 'Key starts with' } },
  hooks: {
    async create(ctx, data) {
      if (ctx.userId === null) throw forbidden('An API key cannot create API keys.');
      const secret = newApiKey();
      const [row] = await ctx.tx
        .insert(apiKeys)
        .values({
          organization_id: ctx.orgId,
          project_id: data.project_id as number,
          description: (data.description as string) ?? null,
          key_prefix: secret.prefix,
          key_hash: secret.hash,
          created_by: ctx.userId,
        })
        .returning({ id: apiKeys.id });
      (data as { key?: string }).key = secret.key;
      return row!.id;
    },
    /** A deleted key is revoked: the sockets it opened close at commit, in every app process. */
    beforeDelete: (ctx, id) => announceRevokedApiKeys(ctx.tx, [id]),
    /** The secret is in the create response only; it is never stored. */
    afterCreate: (_ctx, record, data) => ({ ...record, key: data.key }),
  },
});
