import { Ajv } from 'ajv';
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { pluginEvents, pluginInstances } from './tables.js';
import { allPlugins, pluginBySlug, secretKeysOf, slugsWith, type Capability } from './registry.js';
import { encryptSecret, SECRET_MASK } from './secrets.js';
import type { PluginModule } from './registry.js';
import { invalid, notFound } from '../core/errors.js';
import { outboundUrlProblem } from '../core/http/outbound.js';
import { RIGHTS } from '../core/rights.js';
import type { RequestContext } from '../core/context.js';
import { fieldsOf, outer, projectField } from '../engine/definition-kit.js';
import { bodyOf } from '../engine/body.js';
import { defineResource } from '../engine/define.js';
import { flag, requiredText } from '../engine/fields.js';
import { anyOf } from '../engine/filters.js';

// Formats are checked by hand (URLs must be http or https); ajv-formats is not needed for that.
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const validators = new Map<string, ReturnType<typeof ajv.compile>>();
const validatorOf = (plugin: PluginModule) => {
  if (!validators.has(plugin.slug)) validators.set(plugin.slug, ajv.compile(plugin.configuration_schema));
  return validators.get(plugin.slug)!;
};

/**
 * Checks a configuration against its plugin's schema and splits it: plain values stay readable,
 * secrets are sealed. A secret sent back as the mask (or left out on update) keeps its stored value.
 */
function sealConfiguration(ctx: RequestContext, slug: string, given: Record<string, unknown>, stored: Record<string, string> = {}) {
  const plugin = pluginBySlug(slug);
  if (!plugin)
    throw invalid(
      `Plugin must be one of ${allPlugins()
        .map((p) => p.slug)
        .join(', ')} (GET /plugins lists them)`,
      ['body', 'plugin_slug'],
      'not_found',
    );
  const secretKeys = secretKeysOf(plugin);
  const merged: Record<string, unknown> = { ...given };
  for (const key of secretKeys) if ((merged[key] === undefined || merged[key] === SECRET_MASK) && stored[key] !== undefined) merged[key] = '\u0000kept';
  const validate = validatorOf(plugin);
  const check = Object.fromEntries(Object.entries(merged).map(([k, v]) => [k, v === '\u0000kept' ? 'kept-secret-value-x' : v]));
  if (!validate(check)) {
    const e = validate.errors![0]!;
    const field = e.instancePath.split('/').filter(Boolean);
    const missing = e.keyword === 'required' ? [(e.params as { missingProperty: string }).missingProperty] : [];
    throw invalid(
      `Configuration ${[...field, ...missing].join('.') || 'object'} ${e.message}.`,
      ['body', 'configuration', ...field, ...missing],
      'configuration_invalid',
    );
  }
  for (const [key, schema] of Object.entries(plugin.configuration_schema.properties)) {
    const v = merged[key];
    // An optional URL left empty (the form starts it so, spec §5) is no address to check.
    if (schema.format !== 'uri' || typeof v !== 'string' || v === '\u0000kept' || (v === '' && !plugin.configuration_schema.required?.includes(key))) continue;
    if (!/^https?:\/\/[^\s]+$/i.test(v)) throw invalid('Must be an http or https URL.', ['body', 'configuration', key], 'value_error');
    // The server calls these URLs (a conference link is only shown to people): internal addresses are refused.
    const problem = plugin.type === 'conference' ? null : outboundUrlProblem(ctx.config, v);
    if (problem) throw invalid(problem, ['body', 'configuration', key], 'value_error');
  }
  const configuration: Record<string, unknown> = {};
  const secrets: Record<string, string> = {};
  for (const [key, value] of Object.entries(merged)) {
    if (!secretKeys.includes(key)) configuration[key] = value;
    else {
      secrets[key] = value === '\u0000kept' ? stored[key]! : encryptSecret(ctx.system, String(value));
      configuration[key] = SECRET_MASK;
    }
  }
  return { configuration, secrets };
}

export const pluginInstanceResource = defineResource({
  model: 'PluginInstance',
  label: 'Plugin instance',
  // Spec §2's settings entry reads "Plugins".
  labelPlural: 'Plugins',
  path: '/plugins/instances',
  table: pluginInstances,
  create: bodyOf(
    pluginInstances,
    {
      // Checked against the catalog in beforeCreate (sealConfiguration): plugins are found at start.
      plugin_slug: z.string().min(1).max(100),
      title: requiredText(200),
      enabled: flag().optional(),
      configuration: z.record(z.string(), z.unknown()).optional(),
      ...projectField,
    },
    { readOnly: ['secrets'] },
  ),
  pageSize: 75,
  sort: [['title', 'asc']],
  search: ['title', 'plugin_slug'],
  fields: fieldsOf(pluginInstances, ['configuration', 'secrets']),
  fieldMeta: {
    plugin_slug: {
      label: 'Plugin',
      // A pick from the catalog (the body takes any text: the catalog is found at start, after this module loads).
      kind: 'enum',
      get choices() {
        return Object.fromEntries(allPlugins().map((p) => [p.slug, p.title]));
      },
    },
  },
  hidden: ['secrets'],
  // A caller picks "an instance that can post" by capability, never by a list of slugs.
  customFilters: {
    capability: { type: 'string', ops: ['=='], build: (_op, value) => anyOf(pluginInstances.plugin_slug, slugsWith(value as Capability)) },
  },
  immutable: ['plugin_slug'],
  // Plugins call URLs and send mail on the organization's behalf (F22).
  writeRole: RIGHTS.integrations.least,
  // Spec §3: an instance answers its plugin and the plugin's configuration schema (from the catalog in code).
  computed: () => ({
    plugin: sql`(${JSON.stringify(Object.fromEntries(allPlugins().map(({ configuration_schema: _, ...p }) => [p.slug, p])))}::jsonb -> ${outer(pluginInstances, 'plugin_slug')})`,
    configuration_schema: sql`(${JSON.stringify(Object.fromEntries(allPlugins().map((p) => [p.slug, p.configuration_schema])))}::jsonb -> ${outer(pluginInstances, 'plugin_slug')})`,
  }),
  // Sent back whole in an update, they are ignored.
  answerOnly: ['plugin', 'configuration_schema'],
  references: { project_id: 'Project' },
  hooks: {
    beforeCreate(ctx, data) {
      return { ...data, ...sealConfiguration(ctx, data.plugin_slug as string, (data.configuration as Record<string, unknown>) ?? {}) };
    },
    async beforeUpdate(ctx, id, data) {
      if (data.configuration === undefined) return data;
      const [row] = await ctx.tx
        .select()
        .from(pluginInstances)
        .where(and(eq(pluginInstances.organization_id, ctx.orgId), eq(pluginInstances.id, id)));
      if (!row) throw notFound('Plugin instance', id);
      return { ...data, ...sealConfiguration(ctx, row.plugin_slug, data.configuration as Record<string, unknown>, row.secrets) };
    },
  },
});

export const pluginEventResource = defineResource({
  model: 'PluginEvent',
  label: 'Plugin event',
  path: '/plugins/plugin_events',
  table: pluginEvents,
  create: z.strictObject({ name: requiredText(200) }),
  pageSize: 75,
  sort: [['created_at', 'desc']],
  search: ['name', 'description'],
  fields: fieldsOf(pluginEvents, ['details']),
  routes: { create: false, update: false, delete: false },
});
