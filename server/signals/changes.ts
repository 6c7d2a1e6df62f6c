import { sql } from 'drizzle-orm';
import type { RequestContext } from '../core/context.js';
import { rowsOf } from '../core/db/client.js';
import { addEvent } from '../timeline/events.js';
import type { signalInstances, signals } from './tables.js';

type Instance = typeof signalInstances.$inferSelect;
type Signal = typeof signals.$inferSelect;

/**
 * A change event (PagerDuty's /v2/change/enqueue: a deploy, a config change) goes onto the timeline of
 * the open cases and incidents of its source's service: the open cases that the service's signal
 * definitions opened, and the open incidents that name the service. A definition without a service
 * reaches its own open cases only. The instance itself stays searchable like any other.
 */
export async function applyChange(ctx: RequestContext, instance: Instance, signal: Signal): Promise<number> {
  const service = signal.oncall_service_id;
  const sameSource = service === null ? sql`s.id = ${signal.id}` : sql`s.oncall_service_id = ${service}`;
  const caseIds = rowsOf<{ id: number }>(
    await ctx.tx.execute(sql`select distinct c.id from signal_groups g
      join signals s on s.organization_id = g.organization_id and s.id = g.signal_id
      join cases c on c.organization_id = g.organization_id and c.id = g.case_id
      where g.organization_id = ${ctx.orgId} and g.status in ('triggered', 'acknowledged') and c.status <> 'Closed' and ${sameSource}
      order by c.id`),
  ).map((r) => r.id);
  const incidentIds =
    service === null
      ? []
      : rowsOf<{ id: number }>(
          await ctx.tx.execute(sql`select id from incidents where organization_id = ${ctx.orgId} and status <> 'Closed'
            and services @> ${JSON.stringify([service])}::jsonb order by id`),
        ).map((r) => r.id);
  const raw = instance.raw as { payload?: { summary?: string; source?: string }; links?: unknown };
  const description = `Change: ${raw.payload?.summary ?? '(no summary)'}${raw.payload?.source ? ` (${raw.payload.source})` : ''}`;
  const details = { signal_id: signal.id, signal_instance_id: instance.id, raw: instance.raw };
  for (const case_id of caseIds) await addEvent(ctx, { case_id, type: 'Other', source: 'Change event', description, details });
  for (const incident_id of incidentIds) await addEvent(ctx, { incident_id, type: 'Other', source: 'Change event', description, details });
  return caseIds.length + incidentIds.length;
}
