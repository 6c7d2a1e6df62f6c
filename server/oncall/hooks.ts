import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { RequestContext } from '../core/context.js';
import { rowsOf } from '../core/db/client.js';
import { subscribe, type DomainEvents } from '../core/events.js';
import { defineJob, enqueueJob, jobRegistered } from '../core/jobs/define.js';
import { resolvePagesOf, triggerPage, type PageInput } from './pages.js';

/**
 * Paging wired to the spec's flags, through domain events (no change in incidents, cases or signals):
 * an incident whose priority pages its commander, liaison or scribe pages those people (the on-call of
 * its first service when a role is empty); a case whose priority pages its assignee pages them; a case
 * opened from a signal whose definition (else case type) names an on-call service pages that service.
 * Keys make each page once however often the events come. Closing resolves the open pages.
 */
const ROLE_FLAGS = { commander: 'page_commander', liaison: 'page_liaison', scribe: 'page_scribe' } as const;

/**
 * What a page says: a Restricted incident's or case's title stays out of it, since a page goes to
 * people who may not be participants and through channels outside Firewatch (SMS, ntfy, webhooks).
 */
const pageTitle = (priority: string, name: string, title: string, visibility: string) =>
  visibility === 'Restricted' ? `${priority} ${name} (restricted: sign in to see it)` : `${priority} ${name}: ${title}`;

interface IncidentRow {
  id: number;
  name: string;
  title: string;
  visibility: string;
  project_id: number;
  status: string;
  services: number[];
  priority: string;
  roles: Record<string, string[]>;
  page_commander: boolean;
  page_liaison: boolean;
  page_scribe: boolean;
}

async function pageIncidents(ctx: RequestContext, ids: number[]) {
  const rows = rowsOf<IncidentRow>(
    await ctx.tx.execute(sql`select i.id, i.name, i.title, i.visibility, i.project_id, i.status, i.services, p.name as priority,
        p.page_commander, p.page_liaison, p.page_scribe,
        coalesce((select jsonb_object_agg(r.role, r.emails) from (select ro.role, jsonb_agg(pa.email order by ro.assumed_at) as emails
          from incident_roles ro join incident_participants pa on pa.organization_id = ro.organization_id and pa.id = ro.participant_id
          where ro.organization_id = i.organization_id and ro.incident_id = i.id and ro.renounced_at is null and ro.role in ('commander', 'liaison', 'scribe')
          group by ro.role) r), '{}'::jsonb) as roles
      from incidents i join incident_priorities p on p.organization_id = i.organization_id and p.id = i.incident_priority_id
      where i.organization_id = ${ctx.orgId} and i.id = any(${sql.param(ids)}::int[]) and i.status <> 'Closed'
        and (p.page_commander or p.page_liaison or p.page_scribe)`),
  );
  for (const i of rows) {
    for (const [role, flag] of Object.entries(ROLE_FLAGS)) {
      if (!i[flag]) continue;
      const people = i.roles[role] ?? [];
      const title = pageTitle(i.priority, i.name, i.title, i.visibility);
      const common = { title, details: `You are paged as ${role} of ${i.name} (${i.priority}).`, project_id: i.project_id, incident_id: i.id };
      for (const email of people) await triggerPage(ctx, { ...common, key: `incident-${i.id}-${role}-${email}`, email });
      const service = i.services[0];
      if (!people.length && service) await triggerPage(ctx, { ...common, key: `incident-${i.id}-service-${service}`, service_id: service });
    }
  }
}

interface CaseRow {
  id: number;
  name: string;
  title: string;
  visibility: string;
  project_id: number;
  assignee_email: string | null;
  page_assignee: boolean | null;
  service_id: number | null;
  priority: string | null;
}

/** The pages these cases call for and do not have yet (by key): their on-call service's, their assignee's. */
async function casePagesToMake(ctx: RequestContext, ids: number[]): Promise<PageInput[]> {
  const rows = rowsOf<CaseRow>(
    await ctx.tx.execute(sql`select c.id, c.name, c.title, c.visibility, c.project_id, c.assignee_email, cp.page_assignee, cp.name as priority,
        coalesce((select s.oncall_service_id from signal_instances si join signals s on s.organization_id = si.organization_id and s.id = si.signal_id
          where si.organization_id = c.organization_id and si.case_id = c.id and s.oncall_service_id is not null limit 1), ct.oncall_service_id) as service_id
      from cases c
      left join case_priorities cp on cp.organization_id = c.organization_id and cp.id = c.case_priority_id
      left join case_types ct on ct.organization_id = c.organization_id and ct.id = c.case_type_id
      where c.organization_id = ${ctx.orgId} and c.id = any(${sql.param(ids)}::int[]) and c.status <> 'Closed'`),
  );
  const wanted: PageInput[] = rows.flatMap((c) => {
    const common = { title: pageTitle(c.priority ?? 'Case', c.name, c.title, c.visibility), project_id: c.project_id, case_id: c.id };
    return [
      ...(c.service_id ? [{ ...common, details: `Case ${c.name} opened.`, key: `case-${c.id}-service-${c.service_id}`, service_id: c.service_id }] : []),
      ...(c.page_assignee && c.assignee_email
        ? [{ ...common, details: `You are the assignee of ${c.name}.`, key: `case-${c.id}-assignee-${c.assignee_email}`, email: c.assignee_email }]
        : []),
    ];
  });
  if (!wanted.length) return [];
  const made = new Set(
    rowsOf<{ key: string }>(
      await ctx.tx.execute(
        sql`select key from oncall_pages where organization_id = ${ctx.orgId} and key = any(${sql.param(wanted.map((w) => w.key))}::text[])`,
      ),
    ).map((r) => r.key),
  );
  return wanted.filter((w) => !made.has(w.key));
}

async function pageCases(ctx: RequestContext, ids: number[]) {
  for (const page of await casePagesToMake(ctx, ids)) await triggerPage(ctx, page);
}

/**
 * Cases are paged from a job after their transaction commits: a signal's case is linked to its
 * signal instances only after the event, and a batch of hundreds stays quick.
 */
export const casePagingJob = defineJob({
  name: 'oncall-case-paging',
  payload: z.object({ case_ids: z.array(z.number().int()).max(5000) }),
  retries: () => ({ retryLimit: 5, retryDelaySeconds: 5 }),
  run: async ({ case_ids }, job) => job.tenant((ctx) => pageCases(ctx, case_ids)),
});

async function closed(ctx: RequestContext, table: 'incidents' | 'cases', ids: number[]) {
  const column = table === 'incidents' ? sql`p.incident_id` : sql`p.case_id`;
  return rowsOf<{ id: number }>(
    await ctx.tx
      .execute(sql`select distinct r.id from ${sql.identifier(table)} r join oncall_pages p on p.organization_id = r.organization_id and ${column} = r.id
      where r.organization_id = ${ctx.orgId} and r.id = any(${sql.param(ids)}::int[]) and r.status = 'Closed' and p.state <> 'resolved'`),
  ).map((r) => r.id);
}

async function onEvents(ctx: RequestContext, events: DomainEvents) {
  switch (events.type) {
    case 'incident.created':
    case 'incident.updated':
      await pageIncidents(ctx, events.ids);
      for (const id of await closed(ctx, 'incidents', events.ids)) await resolvePagesOf(ctx, { incident_id: id }, 'incident closed');
      return;
    case 'case.created':
    case 'case.updated': {
      // A new case is checked after commit (its signal instances are linked after the event); an
      // updated one only when the change calls for a page it does not have (a new assignee, priority, type).
      const ids = events.type === 'case.created' ? events.ids : [...new Set((await casePagesToMake(ctx, events.ids)).map((p) => p.case_id!))];
      if (ids.length && jobRegistered(ctx.system, casePagingJob)) await enqueueJob(ctx, casePagingJob, { case_ids: ids });
      for (const id of await closed(ctx, 'cases', events.ids)) await resolvePagesOf(ctx, { case_id: id }, 'case closed');
      return;
    }
  }
}

let subscribed = false;
/** Subscribes once per process (tests run several apps in one). */
export function subscribePaging() {
  if (subscribed) return;
  subscribed = true;
  subscribe(onEvents);
}
