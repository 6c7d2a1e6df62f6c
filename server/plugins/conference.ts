import { and, asc, eq, isNull, or, sql } from 'drizzle-orm';
import { pluginInstances } from './tables.js';
import { recordPluginEvent } from './runtime.js';
import type { RequestContext } from '../core/context.js';

export const CONFERENCE_SLUG = 'conference-link';

export function fillConferenceTemplate(template: string, organization: string, name: string) {
  return template.replaceAll('{organization}', encodeURIComponent(organization)).replaceAll('{name}', encodeURIComponent(name));
}

/**
 * The conference link of a new incident: from the enabled conference-link instance of its project,
 * else one without a project, else the server's CONFERENCE_URL_TEMPLATE (the default instance). The
 * instance used records a plugin event, so the incident's timeline says where its link came from.
 */
export async function conferenceFor(ctx: RequestContext, incident: { id: number; name: string; project_id: number | null }) {
  const [instance] = await ctx.tx
    .select({ id: pluginInstances.id, title: pluginInstances.title, configuration: pluginInstances.configuration })
    .from(pluginInstances)
    .where(
      and(
        eq(pluginInstances.organization_id, ctx.orgId),
        eq(pluginInstances.plugin_slug, CONFERENCE_SLUG),
        eq(pluginInstances.enabled, true),
        incident.project_id === null
          ? isNull(pluginInstances.project_id)
          : or(eq(pluginInstances.project_id, incident.project_id), isNull(pluginInstances.project_id)),
      ),
    )
    // The project's own instance first, then the oldest.
    .orderBy(sql`${pluginInstances.project_id} is null`, asc(pluginInstances.id))
    .limit(1);
  const template = typeof instance?.configuration.url_template === 'string' ? instance.configuration.url_template : ctx.config.CONFERENCE_URL_TEMPLATE;
  const url = fillConferenceTemplate(template, ctx.orgSlug, incident.name);
  if (instance)
    await recordPluginEvent(
      ctx,
      { id: instance.id, slug: CONFERENCE_SLUG },
      { name: 'Conference created', description: `${instance.title}: ${url}`, incident_id: incident.id, details: { url } },
    );
  return url;
}
