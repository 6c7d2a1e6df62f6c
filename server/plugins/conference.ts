import { pluginWith, type LoadedPlugin } from './registry.js';
import { recordPluginEvent } from './runtime.js';
import type { RequestContext } from '../core/context.js';
import type { Mail, Mailer } from '../core/mail.js';

declare module './registry.js' {
  interface Capabilities {
    /** A meeting for an incident: its link (and the service's id of it, where it has one). */
    create_conference: (
      plugin: LoadedPlugin,
      incident: { organization: string; name: string; title?: string },
    ) => Promise<{ weblink: string; conference_id?: string }>;
    /** Sends one e-mail through the instance. */
    send_email: (plugin: LoadedPlugin, mail: Partial<Pick<Mail, 'to'>> & Omit<Mail, 'to'>, mailer: Mailer) => Promise<void>;
  }
}

export function fillConferenceTemplate(template: string, organization: string, name: string) {
  return template.replaceAll('{organization}', encodeURIComponent(organization)).replaceAll('{name}', encodeURIComponent(name));
}

/**
 * The conference link of a new incident: from the enabled conference plugin of its project, else one
 * of the organization, else the server's CONFERENCE_URL_TEMPLATE (the default instance). The instance
 * used records a plugin event, so the incident's timeline says where its link came from.
 */
export async function conferenceFor(ctx: RequestContext, incident: { id: number; name: string; title?: string; project_id: number | null }) {
  const found = await pluginWith(ctx, 'create_conference', incident.project_id);
  if (!found) return fillConferenceTemplate(ctx.config.CONFERENCE_URL_TEMPLATE, ctx.orgSlug, incident.name);
  let url: string;
  try {
    ({ weblink: url } = await found.call(found.plugin, { organization: ctx.orgSlug, name: incident.name, title: incident.title }));
  } catch (err) {
    // A meeting service's refusal must not leave the incident without its conversation: the
    // server's template stands in, and the refusal is reported in words.
    url = fillConferenceTemplate(ctx.config.CONFERENCE_URL_TEMPLATE, ctx.orgSlug, incident.name);
    const why = err instanceof Error ? err.message : String(err);
    await recordPluginEvent(ctx, found.plugin, {
      name: 'Conference failed',
      description: `${found.plugin.title}: ${why}`,
      incident_id: incident.id,
      details: { fallback: url },
    });
    return url;
  }
  await recordPluginEvent(ctx, found.plugin, {
    name: 'Conference created',
    description: `${found.plugin.title}: ${url}`,
    incident_id: incident.id,
    details: { url },
  });
  return url;
}
