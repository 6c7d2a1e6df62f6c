import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, inArray, lt, ne, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Executor } from './db/client.js';
import { sessions, socketTickets } from './db/tables.js';

/** How long a socket ticket can wait before it is used (once). */
export const SOCKET_TICKET_TTL_MS = 60_000;

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `30m`, `12h`, `7d` (JWT_EXPIRES_IN's form) or a number of seconds, in milliseconds. */
export function durationMs(value: string | number): number {
  if (typeof value === 'number') return value * 1000;
  const m = /^(\d+)([smhd])$/.exec(value);
  if (!m) throw new Error(`Not a duration: ${value}`);
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/** Opens a session for the user and returns its token, which names the session in `sid`. */
export async function startSession(
  app: FastifyInstance,
  user: { id: number; email: string },
  expiresIn: string | number = app.config.JWT_EXPIRES_IN,
): Promise<string> {
  const sid = randomBytes(18).toString('base64url');
  // The user's expired sessions go as a new one starts, so the table holds about one row per live session.
  await app.db.delete(sessions).where(and(eq(sessions.user_id, user.id), lt(sessions.expires_at, new Date())));
  await app.db.insert(sessions).values({ id: sid, user_id: user.id, expires_at: new Date(Date.now() + durationMs(expiresIn)) });
  return app.jwt.sign({ sub: String(user.id), email: user.email, sid }, { expiresIn });
}

/**
 * The channel that announces ended sessions, `{"sid"}` or `{"userId", "keep"}`, and revoked API keys,
 * `{"apiKeyIds"}`: PostgreSQL delivers it at commit to every app process, which closes the open sockets
 * they opened (server/live/session-sockets.ts).
 */
export const SESSIONS_CHANNEL = 'firewatch_sessions';
export type EndedSessions = { sid: string } | { userId: number; keep: string | null } | { apiKeyIds: number[] };

/** Whether a session named by (sid, userId) is among those `ended` names. */
export const isEnded = (ended: EndedSessions, sid: string, userId: number) =>
  'sid' in ended ? ended.sid === sid : 'userId' in ended ? ended.userId === userId && ended.keep !== sid : false;

export async function announce(db: Executor, ended: EndedSessions) {
  await db.execute(sql`select pg_notify(${SESSIONS_CHANNEL}, ${JSON.stringify(ended)})`);
  forgetSessions((sid, userId) => isEnded(ended, sid, userId));
}

/** Ends one session (signing out). */
export async function endSession(db: Executor, sid: string) {
  await db.delete(sessions).where(eq(sessions.id, sid));
  await announce(db, { sid });
}

/** Ends every session of a user but `keep` (after a password change). Also drops expired sessions. */
export async function endOtherSessions(db: Executor, userId: number, keep: string | null) {
  await db.delete(sessions).where(keep ? and(eq(sessions.user_id, userId), ne(sessions.id, keep)) : eq(sessions.user_id, userId));
  await db.delete(sessions).where(lt(sessions.expires_at, new Date()));
  await announce(db, { userId, keep });
}

/** Whether the session is open (a socket checks again once it is registered, so a sign-out in between is not missed). */
export async function sessionIsOpen(db: Executor, sid: string): Promise<boolean> {
  return (await sessionEnds(db, sid)) !== null;
}

/** When the open session ends (its token's `exp`, give or take a second), or null if it is not open. */
export async function sessionEnds(db: Executor, sid: string): Promise<Date | null> {
  const [row] = await db
    .select({ expires_at: sessions.expires_at })
    .from(sessions)
    .where(and(eq(sessions.id, sid), gt(sessions.expires_at, new Date())));
  return row?.expires_at ?? null;
}

/** Of these sessions, the ones still open (one statement, for the sockets' periodic check). */
export async function openSessions(db: Executor, sids: string[]): Promise<Set<string>> {
  if (!sids.length) return new Set();
  const rows = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(inArray(sessions.id, sids), gt(sessions.expires_at, new Date())));
  return new Set(rows.map((r) => r.id));
}

const hashTicket = (ticket: string) => createHash('sha256').update(ticket).digest('hex');

/** A single-use ticket that opens the organization's socket as this session's user. */
export async function issueSocketTicket(db: Executor, caller: { sid: string; userId: number; orgId: number }): Promise<string> {
  const ticket = randomBytes(24).toString('base64url');
  await db.delete(socketTickets).where(lt(socketTickets.expires_at, new Date()));
  await db.insert(socketTickets).values({
    ticket_hash: hashTicket(ticket),
    session_id: caller.sid,
    organization_id: caller.orgId,
    user_id: caller.userId,
    expires_at: new Date(Date.now() + SOCKET_TICKET_TTL_MS),
  });
  return ticket;
}

/** Uses a ticket up: its user and session if it is for this organization and still fresh, else null. One DELETE, so a ticket opens one socket. */
export async function useSocketTicket(db: Executor, orgId: number, ticket: string): Promise<{ userId: number; sid: string } | null> {
  const [row] = await db
    .delete(socketTickets)
    .where(and(eq(socketTickets.ticket_hash, hashTicket(ticket)), eq(socketTickets.organization_id, orgId), gt(socketTickets.expires_at, new Date())))
    .returning({ userId: socketTickets.user_id, sid: socketTickets.session_id });
  return row ?? null;
}

/**
 * The tenancy plugin's membership caches, keyed by session, so that signing out or changing a password
 * takes effect at once in this process (other processes may keep an entry for its few seconds).
 */
type Forget = (matches: (sid: string, userId: number) => boolean) => void;
const forgetters = new Set<Forget>();
export function onForgetSessions(forget: Forget) {
  forgetters.add(forget);
  return () => void forgetters.delete(forget);
}
function forgetSessions(matches: (sid: string, userId: number) => boolean) {
  for (const forget of forgetters) forget(matches);
}
