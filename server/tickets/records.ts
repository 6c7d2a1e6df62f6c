import { and, eq } from 'drizzle-orm';
import type { RequestContext } from '../core/context.js';
import { casePriorities, caseTypes } from '../cases/settings-tables.js';
import { cases } from '../cases/tables.js';
import { incidents } from '../incidents/tables.js';
import { incidentPriorities, incidentTypes } from '../incidents/settings-tables.js';

export type Kind = 'incident' | 'case';

/** What an outside system is told about an incident or a case, with its type's plugin metadata. */
export interface OutsideRecord {
  kind: Kind;
  id: number;
  name: string;
  title: string;
  description: string | null;
  status: string;
  project_id: number;
  type_name: string | null;
  priority_name: string | null;
  plugin_metadata: unknown[];
  link: string;
}

/** The record's page in the admin app. */
export const linkOf = (ctx: RequestContext, kind: Kind, name: string) =>
  `${ctx.config.PUBLIC_URL.replace(/\/+$/, '')}/${ctx.orgSlug}/${kind === 'incident' ? 'iaos' : 'cases'}/${name}/view`;

/** The incident or case (row locked when `lock`), or null when it is gone. */
export async function loadOutsideRecord(ctx: RequestContext, kind: Kind, id: number): Promise<OutsideRecord | null> {
  const [t, types, priorities] =
    kind === 'incident' ? ([incidents, incidentTypes, incidentPriorities] as const) : ([cases, caseTypes, casePriorities] as const);
  const typeId = kind === 'incident' ? incidents.incident_type_id : cases.case_type_id;
  const priorityId = kind === 'incident' ? incidents.incident_priority_id : cases.case_priority_id;
  const [row] = await ctx.tx
    .select({
      id: t.id,
      name: t.name,
      title: t.title,
      description: t.description,
      status: t.status,
      project_id: t.project_id,
      type_name: types.name,
      plugin_metadata: types.plugin_metadata,
      priority_name: priorities.name,
    })
    .from(t)
    .leftJoin(types, and(eq(types.organization_id, t.organization_id), eq(types.id, typeId)))
    .leftJoin(priorities, and(eq(priorities.organization_id, t.organization_id), eq(priorities.id, priorityId)))
    .where(and(eq(t.organization_id, ctx.orgId), eq(t.id, id)));
  if (!row) return null;
  return { kind, ...row, plugin_metadata: row.plugin_metadata ?? [], link: linkOf(ctx, kind, row.name) };
}

/**
 * A type's plugin_metadata for one plugin, as key → value. The shape is Dispatch's:
 * `[{"slug": "jira-ticket", "metadata": [{"key": "project_key", "value": "SEC"}]}]`.
 */
export function metadataFor(pluginMetadata: unknown[], slug: string): Record<string, unknown> {
  const entry = pluginMetadata.find((m): m is { slug: string; metadata?: { key: string; value: unknown }[] } => (m as { slug?: unknown })?.slug === slug);
  return Object.fromEntries((entry?.metadata ?? []).filter((m) => typeof m?.key === 'string').map((m) => [m.key, m.value]));
}
