import { channel } from 'node:diagnostics_channel';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { systemActor } from '../core/context.js';
import { rowsOf } from '../core/db/client.js';
import { invalid } from '../core/errors.js';
import { runInTenant } from '../core/tenancy.js';

type Org = { orgId: number; orgSlug: string };

/** One instance to store, as the group commit inserts it. */
export interface InstanceRow {
  project_id: number;
  signal_id: number;
  source: string;
  event_action: string;
  dedup_key: string | null;
  raw: Record<string, unknown>;
}

/**
 * Deepest nesting a stored payload may have. Real alerts are a few levels deep; far deeper ones
 * break JSON.stringify (a RangeError at a few thousand levels) or PostgreSQL's JSON parser (its stack
 * depth), whichever limit the request's own route or the global body check leaves.
 */
export const MAX_PAYLOAD_DEPTH = 64;

/** How deep `value` nests, walked with its own stack (a deep payload cannot exhaust the call stack here). */
export function depthOf(value: unknown, limit = Infinity): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length) {
    const [v, d] = pending.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (d + 1 > deepest) deepest = d + 1;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child && typeof child === 'object') pending.push([child, d + 1]);
  }
  return deepest;
}

/**
 * A request's rows as the JSON the group commit joins, checked when the request arrives: a payload
 * too deep, or one that cannot be serialized at all, is refused on its own (422) before it can share
 * a batch with other requests.
 */
export function serializeRows(rows: InstanceRow[]): string {
  for (let i = 0; i < rows.length; i++) {
    if (depthOf(rows[i]!.raw, MAX_PAYLOAD_DEPTH) > MAX_PAYLOAD_DEPTH)
      throw invalid(`The payload nests deeper than ${MAX_PAYLOAD_DEPTH} levels.`, ['body', ...(rows.length > 1 ? [i] : [])], 'too_deep');
  }
  let text: string;
  try {
    text = JSON.stringify(rows);
  } catch {
    throw invalid('The payload cannot be stored as JSON.', ['body'], 'json_invalid');
  }
  return text.slice(1, -1);
}

export interface Waiting {
  orgSlug: string;
  /** When it was queued (performance.now()). */
  at: number;
  /** How many rows, and their JSON (serializeRows, without the brackets). */
  count: number;
  json: string;
  resolve: (ids: number[]) => void;
  reject: (err: unknown) => void;
}

/** At most this many instances per insert, and this many inserts per organization in flight. */
const GROUP_MAX_ROWS = 2000;
const GROUP_IN_FLIGHT = 2;

/** Each group commit's timings, for the bench (bench/suites/signals.ts); nothing is built while nobody subscribes. */
export const groupCommitTimings = channel('firewatch.signals.group-commit');
export interface GroupCommitTiming {
  start: number;
  end: number;
  rows: number;
  requests: number;
  /** How long its oldest request waited in the queue before this insert went out. */
  waited: number;
}

/** Inserts the rows (one JSON parameter however many: one plan for every batch size); their ids in order. */
function insertRows(app: Pick<FastifyInstance, 'db' | 'config'>, org: Org, json: string) {
  return runInTenant(app.db, app.config, systemActor(org, 'Member'), async (ctx) =>
    rowsOf<{ id: number }>(
      await ctx.tx.execute(sql`insert into signal_instances (organization_id, project_id, signal_id, source, event_action, dedup_key, raw)
          select ${org.orgId}, r.project_id, r.signal_id, r.source, r.event_action, r.dedup_key, r.raw
          from rows from (jsonb_to_recordset(${json}::jsonb) as (project_id int, signal_id int, source text, event_action text, dedup_key text, raw jsonb))
            with ordinality as r(project_id, signal_id, source, event_action, dedup_key, raw, n)
          order by r.n returning id`),
    ).map((r) => r.id),
  );
}

/**
 * Group commit: requests that arrive while an organization's insert is in flight are inserted together
 * in the next one (one statement, one commit, one fsync), each answered once its rows committed. Under
 * light load every request is its own transaction; under heavy load commits carry hundreds of events.
 * Should a batch still fail, its requests are inserted one by one, so only the one at fault fails.
 */
export function groupCommitter(app: Pick<FastifyInstance, 'db' | 'config'>, onCommitted: (org: Org) => void) {
  const waiting = new Map<number, Waiting[]>();
  const inFlight = new Map<number, number>();
  const alone = async (org: Org, taken: Waiting[]) => {
    for (const w of taken) await insertRows(app, org, `[${w.json}]`).then(w.resolve, w.reject);
  };
  const flush = (orgId: number) => {
    const queue = waiting.get(orgId);
    if (!queue?.length || (inFlight.get(orgId) ?? 0) >= GROUP_IN_FLIGHT) return;
    const taken: Waiting[] = [];
    let rows = 0;
    while (queue.length && (rows === 0 || rows + queue[0]!.count <= GROUP_MAX_ROWS)) {
      const w = queue.shift()!;
      rows += w.count;
      taken.push(w);
    }
    inFlight.set(orgId, (inFlight.get(orgId) ?? 0) + 1);
    const org = { orgId, orgSlug: taken[0]!.orgSlug };
    const start = performance.now();
    insertRows(app, org, `[${taken.map((w) => w.json).join(',')}]`)
      .then((ids) => {
        let at = 0;
        for (const w of taken) {
          w.resolve(ids.slice(at, at + w.count));
          at += w.count;
        }
        if (groupCommitTimings.hasSubscribers)
          groupCommitTimings.publish({ start, end: performance.now(), rows, requests: taken.length, waited: start - taken[0]!.at } satisfies GroupCommitTiming);
      })
      .catch((err) => (taken.length > 1 ? alone(org, taken) : taken[0]!.reject(err)))
      .then(() => onCommitted(org))
      .finally(() => {
        inFlight.set(orgId, inFlight.get(orgId)! - 1);
        flush(orgId);
      });
  };
  return (orgId: number, w: Waiting) => {
    const queue = waiting.get(orgId) ?? [];
    queue.push(w);
    waiting.set(orgId, queue);
    flush(orgId);
  };
}
