import { EventEmitter } from 'node:events';
import { sql } from 'drizzle-orm';
import type { RequestContext } from '../core/context.js';
import type { Database } from '../core/db/client.js';
import { listen } from '../core/jobs/wakeup.js';
import { startSessionSockets, type SessionSockets } from './session-sockets.js';

/**
 * Live changes of incidents and cases. A transaction that changes one notifies this channel with
 * `{org, incident_id, case_id}`; PostgreSQL delivers it at commit to every app process listening on
 * the database (nothing if it rolls back), and each process tells the sockets watching that record.
 * The frame carries only ids: the page fetches the record again through the API, which applies the
 * caller's visibility.
 */
export const LIVE_CHANNEL = 'firewatch_live';

export interface LiveChange {
  orgId: number;
  incident_id: number | null;
  case_id: number | null;
}

/** Notifications already queued by a transaction (one per record is enough). */
const queued = new WeakMap<object, Set<string>>();

/** Queues the notice that `target` changed, sent when the caller's transaction commits. */
export async function notifyChange(ctx: Pick<RequestContext, 'orgId' | 'tx'>, target: { incident_id?: number | null; case_id?: number | null }) {
  const change: LiveChange = { orgId: ctx.orgId, incident_id: target.incident_id ?? null, case_id: target.case_id ?? null };
  if (change.incident_id === null && change.case_id === null) return;
  const key = `${change.incident_id}:${change.case_id}`;
  let sent = queued.get(ctx.tx);
  if (!sent) queued.set(ctx.tx, (sent = new Set()));
  if (sent.has(key)) return;
  sent.add(key);
  await ctx.tx.execute(sql`select pg_notify(${LIVE_CHANNEL}, ${JSON.stringify(change)})`);
}

/** This app's feed of committed changes ('change' events); `stop` ends the listening. */
export interface LiveFeed {
  events: EventEmitter<{ change: [LiveChange] }>;
  /** Signed-in sockets, closed when their session ends. */
  sessions: SessionSockets;
  stop(): Promise<void>;
}

export async function startLiveFeed(database: Database, onError: (err: unknown) => void): Promise<LiveFeed> {
  const events = new EventEmitter<{ change: [LiveChange] }>();
  // Every open page is a listener.
  events.setMaxListeners(0);
  const unlisten = await listen(database, LIVE_CHANNEL, (payload) => {
    try {
      const change = JSON.parse(payload) as LiveChange;
      if (typeof change.orgId === 'number') events.emit('change', change);
    } catch (err) {
      onError(err);
    }
  });
  const sessions = await startSessionSockets(database, onError);
  return {
    events,
    sessions,
    stop: async () => {
      await unlisten();
      await sessions.stop();
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Committed incident and case changes, from every app process on the database. */
    live: LiveFeed;
  }
}
