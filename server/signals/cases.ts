import { sql } from 'drizzle-orm';
import type { RequestContext } from '../core/context.js';
import { publish } from '../core/events.js';
import { casePriorities, caseSeverities, caseTypes } from '../cases/settings-tables.js';
import { enqueue } from '../incidents/background.js';
import { withDefaults } from '../incidents/defaults.js';
import { cases, events, nameCounters } from '../incidents/tables.js';
import { LIVE_CHANNEL } from '../live/changes.js';
import type { signals } from './tables.js';

type Signal = typeof signals.$inferSelect;

export interface NewSignalCase {
  signal: Signal;
  title: string;
  /** The timeline entry that says where the case came from (after the "created" one). */
  event: { description: string; details: Record<string, unknown> };
}

/**
 * The cases a processing batch opens, all at once: what createCase (server/cases/service.ts) does for
 * one case (settings defaults, the next OCO numbers, the row, its "created" timeline entry, the
 * provisioning job, the case.created event), with one counter update, one insert of the cases and one
 * of their timeline entries for the whole batch instead of a dozen statements per case. The counter
 * row is locked once per batch, not once per case. Signals carry no tags or participants; the
 * processor acts with no user (reporter and owner empty, "created by an API key" as createCase writes).
 * Returns the case ids in the order given.
 */
export async function createSignalCases(ctx: RequestContext, wanted: NewSignalCase[]): Promise<number[]> {
  if (!wanted.length) return [];
  // Defaults once per definition: only fields left undefined are filled, as createCase's callers get.
  const settings = new Map<number, { case_type_id: number | null; case_priority_id: number | null; case_severity_id?: number }>();
  for (const { signal } of wanted) {
    if (settings.has(signal.id)) continue;
    settings.set(
      signal.id,
      await withDefaults(
        ctx,
        { case_type_id: signal.case_type_id, case_priority_id: signal.case_priority_id, case_severity_id: undefined as number | undefined },
        { case_type_id: caseTypes, case_priority_id: casePriorities, case_severity_id: caseSeverities },
        signal.project_id,
      ),
    );
  }
  const [counter] = await ctx.tx
    .insert(nameCounters)
    .values({ organization_id: ctx.orgId, kind: 'case', value: wanted.length })
    .onConflictDoUpdate({ target: [nameCounters.organization_id, nameCounters.kind], set: { value: sql`${nameCounters.value} + ${wanted.length}` } })
    .returning({ value: nameCounters.value });
  const first = counter!.value - wanted.length + 1;
  const rows = await ctx.tx
    .insert(cases)
    .values(
      wanted.map((w, i) => {
        const s = settings.get(w.signal.id)!;
        return {
          organization_id: ctx.orgId,
          project_id: w.signal.project_id,
          name: `OCO-${first + i}`,
          title: w.title,
          description: w.signal.description,
          case_type_id: s.case_type_id,
          case_priority_id: s.case_priority_id,
          case_severity_id: s.case_severity_id ?? null,
          reporter_email: null,
          status: 'New' as const,
          closed_at: null,
        };
      }),
    )
    .returning({ id: cases.id, name: cases.name });
  const byName = new Map(rows.map((r) => [r.name, r.id]));
  const ids = wanted.map((_, i) => byName.get(`OCO-${first + i}`)!);
  await ctx.tx.insert(events).values(
    wanted.flatMap((w, i) => [
      {
        organization_id: ctx.orgId,
        case_id: ids[i]!,
        type: 'Other' as const,
        source: 'Case Participant',
        description: `Case OCO-${first + i} created by API key`,
        owner: null,
      },
      { organization_id: ctx.orgId, case_id: ids[i]!, type: 'Other' as const, source: 'Signal', description: w.event.description, details: w.event.details },
    ]),
  );
  // Each case's open pages hear of it at commit (addEvent's notifyChange, for the batch in one statement).
  const changes = ids.map((id) => JSON.stringify({ orgId: ctx.orgId, incident_id: null, case_id: id }));
  await ctx.tx.execute(sql`select pg_notify(${LIVE_CHANNEL}, c) from jsonb_array_elements_text(${JSON.stringify(changes)}::jsonb) as c`);
  for (const id of ids) {
    await enqueue(ctx, 'case.provision', { case_id: id });
    await publish(ctx, { type: 'case.created', id });
  }
  return ids;
}
