import { z } from 'zod';
import { and, asc, eq, sql } from 'drizzle-orm';
import { incidentResources, incidents, incidentSubscriptions, reports } from './tables.js';
import { events } from '../timeline/tables.js';
import { rowsOf } from '../core/db/client.js';
import { documents } from '../knowledge/tables.js';
import { incidentTypes } from './settings-tables.js';
import type { RequestContext } from '../core/context.js';
import type { Mail } from '../core/mail.js';
import { BACKGROUND_LANE, defineJob, enqueueJob, NotReady } from '../core/jobs/define.js';
import { addEvent } from '../timeline/events.js';
import { loadIncident } from './scope.js';
import { actorOf, callerEmail } from '../core/caller.js';
import { publish } from '../core/events.js';
import { HttpError } from '../core/errors.js';
import { requiredText, text } from '../engine/fields.js';

/* ---------- resources, reports, postmortem ---------- */

export interface ResourceInput {
  resource_type: string;
  name: string;
  weblink?: string | null;
  description?: string | null;
}

export async function addResource(ctx: RequestContext, incidentId: number, input: ResourceInput) {
  await loadIncident(ctx, incidentId);
  const [row] = await ctx.tx
    .insert(incidentResources)
    .values({ organization_id: ctx.orgId, incident_id: incidentId, ...input })
    .returning();
  await addEvent(ctx, {
    incident_id: incidentId,
    type: 'Resource updated',
    description: `${input.resource_type} '${input.name}' added by ${await actorOf(ctx)}`,
    owner: await callerEmail(ctx),
    details: { resource_id: row!.id },
  });
  await publish(ctx, { type: 'resource.added', id: row!.id, incident_id: incidentId });
  return row!;
}

/* ---------- reports ---------- */

/** A report's fields per type, as the web form has them (the first one required), for every path that makes one. */
export const reportBodies = {
  tactical: z.strictObject({
    conditions: requiredText(20_000),
    actions: text(20_000).transform((v) => v ?? ''),
    needs: text(20_000).transform((v) => v ?? ''),
  }),
  executive: z.strictObject({
    current_status: requiredText(20_000),
    overview: text(20_000).transform((v) => v ?? ''),
    next_steps: text(20_000).transform((v) => v ?? ''),
  }),
};
export type ReportType = keyof typeof reportBodies;
/** Each report field's label, in the order a report reads (the mail, Slack's report card). */
export const REPORT_FIELD_LABELS: Record<string, string> = {
  conditions: 'Conditions',
  actions: 'Actions',
  needs: 'Needs',
  current_status: 'Current status',
  overview: 'Overview',
  next_steps: 'Next steps',
};

/** What the report dialog starts from: actions prefilled with the incident's unresolved tasks. */
export async function reportPrefill(ctx: RequestContext, incidentId: number) {
  const incident = await loadIncident(ctx, incidentId);
  // Read by table name: the tasks domain depends on incidents, not the other way.
  const open = rowsOf<{ description: string }>(
    await ctx.tx.execute(
      sql`select description from tasks where organization_id = ${ctx.orgId} and incident_id = ${incidentId} and status = 'Open' order by created_at, id`,
    ),
  );
  return {
    tactical: { conditions: incident.description ?? '', actions: open.map((t) => `- ${t.description}`).join('\n'), needs: '' },
    executive: { current_status: incident.status, overview: incident.description ?? '', next_steps: open.map((t) => `- ${t.description}`).join('\n') },
  };
}

/**
 * Stores a report, writes it on the timeline, and returns the e-mails for the subscribers (sent by
 * the route once the transaction has committed).
 */
export async function createReport(
  ctx: RequestContext,
  incidentId: number,
  type: ReportType,
  fields: unknown,
): Promise<{ report: typeof reports.$inferSelect; mails: Mail[] }> {
  const parsed = reportBodies[type].safeParse(fields);
  if (!parsed.success)
    throw new HttpError(
      422,
      parsed.error.issues.map((i) => ({
        msg: i.code === 'unrecognized_keys' ? `Unknown field '${i.keys.join("', '")}'.` : i.message,
        loc: ['body', ...i.path.map(String)],
        type: i.code,
      })),
    );
  const details = parsed.data;
  const incident = await loadIncident(ctx, incidentId);
  const me = await callerEmail(ctx);
  const [report] = await ctx.tx.insert(reports).values({ organization_id: ctx.orgId, incident_id: incidentId, type, details, author_email: me }).returning();
  const label = type === 'tactical' ? 'Tactical' : 'Executive';
  await addEvent(ctx, {
    incident_id: incidentId,
    type: 'Other',
    source: 'Incident Participant',
    description: `${label} report created by ${me ?? 'API key'}`,
    owner: me,
    details: { report_id: report!.id, ...details },
  });
  await publish(ctx, { type: 'report.created', id: report!.id, incident_id: incidentId });
  const subscribers = await ctx.tx
    .select({ email: incidentSubscriptions.email })
    .from(incidentSubscriptions)
    .where(and(eq(incidentSubscriptions.organization_id, ctx.orgId), eq(incidentSubscriptions.incident_id, incidentId)));
  const said = Object.entries(details)
    .map(([k, v]) => `${REPORT_FIELD_LABELS[k]}:\n${v}`)
    .join('\n\n');
  const mailText = `${label} report for ${incident.name}: ${incident.title}\nStatus: ${incident.status}\nCommander: ${incident.commander_email ?? 'unassigned'}\n\n${said}\n`;
  const mails = subscribers.map((s) => ({ to: s.email, subject: `${label} report: ${incident.name} ${incident.title}`, text: mailText }));
  return { report: report!, mails };
}

/* ---------- postmortem ---------- */

export const REVIEW_DOCUMENT = 'dispatch-incident-review-document';
/** Where a review listed under Documents is (the API's own path, under the organization). */
export const reviewLink = (documentId: number) => `/documents/${documentId}`;

/** The review template document of an incident's type. */
export type ReviewTemplateLookup = (
  ctx: RequestContext,
  incident: typeof incidents.$inferSelect,
) => Promise<{ name: string; weblink: string | null; description: string | null } | null>;
let reviewTemplate: ReviewTemplateLookup = async (ctx, incident) => {
  if (!incident.incident_type_id) return null;
  const [doc] = await ctx.tx
    .select({ name: documents.name, weblink: documents.weblink, description: documents.description })
    .from(incidentTypes)
    .innerJoin(documents, and(eq(documents.organization_id, incidentTypes.organization_id), eq(documents.id, incidentTypes.review_template_document_id)))
    .where(and(eq(incidentTypes.organization_id, ctx.orgId), eq(incidentTypes.id, incident.incident_type_id)));
  return doc ?? null;
};
export function setReviewTemplateLookup(lookup: ReviewTemplateLookup) {
  reviewTemplate = lookup;
}

export async function requestPostmortem(ctx: RequestContext, incidentId: number) {
  await loadIncident(ctx, incidentId);
  await enqueueJob(ctx, postmortemJob, { incident_id: incidentId, requested_by: await callerEmail(ctx) });
  await addEvent(ctx, {
    incident_id: incidentId,
    type: 'Resource updated',
    description: `Postmortem requested by ${await actorOf(ctx)}`,
    owner: await callerEmail(ctx),
  });
  return 'Postmortem (PIR) story will be available shortly';
}

export const postmortemJob = defineJob({
  name: 'incident.postmortem',
  lane: BACKGROUND_LANE,
  payload: z.object({ incident_id: z.number().int(), requested_by: z.string().nullable().optional() }),
  run: (data, job) =>
    job.tenant(async (ctx) => {
      const id = data.incident_id as number;
      const [incident] = await ctx.tx
        .select()
        .from(incidents)
        .where(and(eq(incidents.organization_id, ctx.orgId), eq(incidents.id, id)));
      if (!incident) throw new NotReady();
      const template = await reviewTemplate(ctx, incident);
      const timeline = await ctx.tx
        .select()
        .from(events)
        .where(and(eq(events.organization_id, ctx.orgId), eq(events.incident_id, id)))
        .orderBy(asc(events.started_at), asc(events.id));
      // Read by table name, as reportPrefill.
      const taskRows = rowsOf<{ status: string; description: string; owner_email: string | null }>(
        await ctx.tx.execute(sql`select status, description, owner_email from tasks where organization_id = ${ctx.orgId} and incident_id = ${id} order by id`),
      );
      const fmt = (d: Date | null) => (d ? d.toISOString().replace('T', ' ').slice(0, 19) + ' UTC' : 'n/a');
      const lines = [
        `# Post-incident review: ${incident.name} ${incident.title}`,
        template ? `Template: ${template.name}${template.weblink ? ` (${template.weblink})` : ''}` : '',
        template?.description ?? '',
        '## Summary',
        incident.description ?? '',
        `Reported ${fmt(incident.reported_at)}; stable ${fmt(incident.stable_at)}; closed ${fmt(incident.closed_at)}.`,
        `Commander: ${incident.commander_email ?? 'unassigned'}. Resolution: ${incident.resolution ?? 'n/a'}`,
        '## Timeline',
        ...timeline.map((e) => `- ${fmt(e.started_at)} ${e.description}`),
        '## Follow-ups',
        ...taskRows.map((t) => `- [${t.status === 'Resolved' ? 'x' : ' '}] ${t.description}${t.owner_email ? ` (${t.owner_email})` : ''}`),
      ].filter((l) => l !== '');
      const name = `${incident.name} post-incident review`;
      const content = lines.join('\n\n');
      // An open incident's review is a document like any other (listed under Documents, edited there).
      // Documents have no visibility of their own, so a restricted incident's stays on the incident only.
      const [listed] =
        incident.visibility === 'Open'
          ? await ctx.tx
              .insert(documents)
              .values({
                organization_id: ctx.orgId,
                project_id: incident.project_id,
                name,
                resource_type: REVIEW_DOCUMENT,
                resource_id: incident.name,
                description: content,
              })
              .returning({ id: documents.id })
          : [];
      const [doc] = await ctx.tx
        .insert(incidentResources)
        .values({
          organization_id: ctx.orgId,
          incident_id: id,
          resource_type: REVIEW_DOCUMENT,
          name,
          weblink: listed ? reviewLink(listed.id) : null,
          content,
        })
        .returning();
      await addEvent(ctx, {
        incident_id: id,
        type: 'Resource updated',
        description: `Post-incident review document created`,
        details: { resource_id: doc!.id },
      });
      await publish(ctx, { type: 'resource.added', id: doc!.id, incident_id: id });
    }),
});
