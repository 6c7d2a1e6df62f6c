import { readdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { and, asc, eq, isNull, or, sql } from 'drizzle-orm';
import { pluginInstances } from './tables.js';
import { decryptSecret } from './secrets.js';
import type { RequestContext } from '../core/context.js';
import type { Config } from '../core/config.js';

/** A configured plugin instance with its secrets opened: never sent to a client. */
export interface LoadedPlugin {
  id: number;
  slug: string;
  title: string;
  enabled: boolean;
  project_id: number | null;
  config: Record<string, unknown>;
  /**
   * The server's settings for its calls, read when it calls: the address policy (core/http/outbound.ts)
   * and where an operator points a service's fixed API (Slack's).
   */
  outbound: Pick<Config, 'OUTBOUND_ALLOW' | 'SLACK_API_URL'>;
}

/**
 * What plugins can do, by capability name. Each domain that calls a capability declares its shape
 * here by declaration merging, next to its caller:
 *
 *   declare module '../plugins/registry.js' {
 *     interface Capabilities { page: (plugin: LoadedPlugin, page: PageRequest) => Promise<PageAnswer> }
 *   }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Capabilities {}
export type Capability = keyof Capabilities & string;

export type ConfigurationSchema = {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties: false;
};

/**
 * One plugin: a module under `server/<domain>/integrations/` whose default export is this. It is
 * found there when the app starts (discoverPlugins); nothing else lists it. Properties of the schema
 * marked `writeOnly` are secrets: sealed at rest, never answered.
 */
export interface PluginModule {
  slug: string;
  /** The catalog's grouping on screen (conversation, oncall, ticket, ...). */
  type: string;
  title: string;
  description: string;
  configuration_schema: ConfigurationSchema;
  /** The capabilities it implements; the catalog's `capabilities` are these keys. */
  implements: { [C in Capability]?: Capabilities[C] };
}

/** What GET /plugins answers for a plugin. */
export interface PluginDefinition {
  slug: string;
  type: string;
  title: string;
  description: string;
  capabilities: string[];
  configuration_schema: ConfigurationSchema;
}

export const definePlugin = <M extends PluginModule>(module: M): M => module;

const modules = new Map<string, PluginModule>();
let discovered: Promise<void> | undefined;

const serverRoot = fileURLToPath(new URL('..', import.meta.url));

/** Loads every `server/<domain>/integrations/*` module once (the app's start awaits it). */
export function discoverPlugins(root = serverRoot): Promise<void> {
  discovered ??= (async () => {
    const files: string[] = [];
    for (const domain of await readdir(root, { withFileTypes: true })) {
      if (!domain.isDirectory()) continue;
      const folder = join(root, domain.name, 'integrations');
      const names = await readdir(folder).catch(() => [] as string[]);
      for (const name of names) if (/\.(ts|js)$/.test(name) && !/\.(d|test)\.ts$/.test(name)) files.push(join(folder, name));
    }
    // Sorted, so the catalog's order is the same on every start.
    for (const file of files.sort()) {
      const module = ((await import(pathToFileURL(file).href)) as { default?: PluginModule }).default;
      if (!module?.slug || !module.implements) throw new Error(`${file} must export default definePlugin({...}).`);
      if (modules.has(module.slug)) throw new Error(`Two plugins are named '${module.slug}'.`);
      modules.set(module.slug, module);
    }
  })();
  return discovered;
}

function catalog(): Map<string, PluginModule> {
  if (!modules.size) throw new Error('The plugin catalog is read before discoverPlugins() finished.');
  return modules;
}

const describe = (m: PluginModule): PluginDefinition => ({
  slug: m.slug,
  type: m.type,
  title: m.title,
  description: m.description,
  capabilities: Object.keys(m.implements),
  configuration_schema: m.configuration_schema,
});

/** The catalog (GET /plugins): built-in ones first (they need no configuration), then by title. */
export const allPlugins = (): PluginDefinition[] =>
  [...catalog().values()]
    .sort((a, b) => Number(!!a.configuration_schema.required?.length) - Number(!!b.configuration_schema.required?.length) || a.title.localeCompare(b.title))
    .map(describe);

export const pluginBySlug = (slug: string): PluginModule | undefined => catalog().get(slug);

/** Slugs of the plugins that implement `capability`. */
export const slugsWith = (capability: Capability): string[] => [...catalog().values()].filter((m) => m.implements[capability]).map((m) => m.slug);

export const secretKeysOf = (plugin: Pick<PluginModule, 'configuration_schema'>) =>
  Object.entries(plugin.configuration_schema.properties)
    .filter(([, p]) => p.writeOnly)
    .map(([k]) => k);

function opened(ctx: RequestContext, row: typeof pluginInstances.$inferSelect): LoadedPlugin {
  const plugin = catalog().get(row.plugin_slug);
  const config: Record<string, unknown> = { ...row.configuration };
  for (const key of plugin ? secretKeysOf(plugin) : []) if (row.secrets[key] !== undefined) config[key] = decryptSecret(ctx.system, row.secrets[key]);
  return { id: row.id, slug: row.plugin_slug, title: row.title, enabled: row.enabled, project_id: row.project_id, config, outbound: ctx.config };
}

/** A plugin instance of the caller's organization by id, enabled or not. */
export async function loadPlugin(ctx: RequestContext, id: number): Promise<LoadedPlugin | null> {
  const [row] = await ctx.tx
    .select()
    .from(pluginInstances)
    .where(and(eq(pluginInstances.organization_id, ctx.orgId), eq(pluginInstances.id, id)));
  return row ? opened(ctx, row) : null;
}

/** The capability's implementation of a loaded instance, or null when its plugin has none. */
export function capabilityOf<C extends Capability>(plugin: Pick<LoadedPlugin, 'slug'>, capability: C): Capabilities[C] | null {
  return (catalog().get(plugin.slug)?.implements[capability] as Capabilities[C] | undefined) ?? null;
}

/**
 * The enabled instances whose plugin implements `capability`, for a project: the project's own first,
 * then those of the whole organization, oldest first within each.
 */
export async function pluginsWith(ctx: RequestContext, capability: Capability, projectId: number | null): Promise<LoadedPlugin[]> {
  const slugs = slugsWith(capability);
  if (!slugs.length) return [];
  const rows = await ctx.tx
    .select()
    .from(pluginInstances)
    .where(
      and(
        eq(pluginInstances.organization_id, ctx.orgId),
        eq(pluginInstances.enabled, true),
        sql`${pluginInstances.plugin_slug} = any(${sql.param(slugs)}::text[])`,
        projectId === null ? isNull(pluginInstances.project_id) : or(eq(pluginInstances.project_id, projectId), isNull(pluginInstances.project_id)),
      ),
    )
    .orderBy(sql`${pluginInstances.project_id} is null`, asc(pluginInstances.id));
  return rows.map((row) => opened(ctx, row));
}

/** The enabled plugin of this project (else of the organization) with `capability`, and its implementation. */
export async function pluginWith<C extends Capability>(
  ctx: RequestContext,
  capability: C,
  projectId: number | null,
): Promise<{ plugin: LoadedPlugin; call: Capabilities[C] } | null> {
  const [plugin] = await pluginsWith(ctx, capability, projectId);
  return plugin ? { plugin, call: capabilityOf(plugin, capability)! } : null;
}
