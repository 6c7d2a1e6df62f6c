import type { WebSocket } from 'ws';
import { existingApiKeys } from '../core/api-keys.js';
import type { Database } from '../core/db/client.js';
import { listen } from '../core/jobs/wakeup.js';
import { isEnded, openSessions, sessionEnds, SESSIONS_CHANNEL, type EndedSessions } from '../core/sessions.js';

/** The close code and reason a socket gets when its session ends (4000–4999 are the application's). */
export const SESSION_ENDED_CLOSE = { code: 4001, reason: 'Your session has ended. Please sign in again.' } as const;
/** …when its session runs out (the token's `exp`). */
export const SESSION_EXPIRED_CLOSE = { code: 4001, reason: 'Your session has expired. Please sign in again.' } as const;
/** …when the API key that opened it is revoked (deleted, or its project or organization deleted). */
export const API_KEY_REVOKED_CLOSE = { code: 4001, reason: 'The API key was revoked.' } as const;

/**
 * How often the open sockets' sessions and keys are checked against the database: what no announcement
 * reaches (a key deleted with its organization, a session row removed by hand, a notification lost while
 * the listening connection reconnected) closes its sockets within this time.
 */
export const SOCKET_CHECK_MS = 15_000;

/** setTimeout's longest delay (about 24.8 days); a later end is timed again when this one fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface SessionSockets {
  /**
   * Keeps `socket` until it closes; it is closed when its session ends (sign-out, a password change
   * elsewhere) and when the session runs out.
   */
  track(sid: string, userId: number, socket: WebSocket): void;
  /** Keeps a socket an API key opened; it is closed when the key is revoked. */
  trackApiKey(keyId: number, socket: WebSocket): void;
  /** Open sockets tracked (for tests and metrics). */
  size(): number;
  /** Checks every tracked socket's session or key against the database now; resolves to the number closed. */
  check(): Promise<number>;
  stop(): Promise<void>;
}

type SessionOwner = { sid: string; userId: number; timer?: NodeJS.Timeout };
type Owner = SessionOwner | { apiKeyId: number };

/**
 * Closes signed-in sockets whose session ends or whose API key is revoked. A socket outlives the ticket
 * (or the key check) that opened it, so without this a signed-out, expired or password-changed session,
 * or a revoked key, would keep receiving live changes and chat answers. Ended sessions and revoked keys are
 * announced on SESSIONS_CHANNEL at commit, so a sign-out in one app process closes sockets in all of them;
 * a session's end is timed on the socket; a periodic check (SOCKET_CHECK_MS) catches what was not announced.
 */
export async function startSessionSockets(database: Database, onError: (err: unknown) => void, opts: { checkMs?: number } = {}): Promise<SessionSockets> {
  const open = new Map<WebSocket, Owner>();
  const closeSocket = (socket: WebSocket, why: { code: number; reason: string }) => {
    const owner = open.get(socket);
    if (!owner) return false;
    open.delete(socket);
    if ('timer' in owner) clearTimeout(owner.timer);
    socket.close(why.code, why.reason);
    return true;
  };
  const close = (ended: EndedSessions) => {
    const keys = 'apiKeyIds' in ended ? new Set(ended.apiKeyIds) : null;
    for (const [socket, owner] of open) {
      if ('apiKeyId' in owner ? keys?.has(owner.apiKeyId) : isEnded(ended, owner.sid, owner.userId))
        closeSocket(socket, 'apiKeyId' in owner ? API_KEY_REVOKED_CLOSE : SESSION_ENDED_CLOSE);
    }
  };
  const unlisten = await listen(database, SESSIONS_CHANNEL, (payload) => {
    try {
      close(JSON.parse(payload) as EndedSessions);
    } catch (err) {
      onError(err);
    }
  });

  /** Closes the socket when its session runs out (re-timed when the end is beyond one timer's reach). */
  const timeEnd = (socket: WebSocket, owner: SessionOwner, ends: Date) => {
    const wait = ends.getTime() - Date.now();
    if (wait <= 0) return void closeSocket(socket, SESSION_EXPIRED_CLOSE);
    owner.timer = setTimeout(() => timeEnd(socket, owner, ends), Math.min(wait, MAX_TIMER_MS));
    owner.timer.unref();
  };

  const check = async () => {
    const sids = new Set<string>();
    const keyIds = new Set<number>();
    for (const owner of open.values()) {
      if ('apiKeyId' in owner) keyIds.add(owner.apiKeyId);
      else sids.add(owner.sid);
    }
    const [liveSessions, liveKeys] = await Promise.all([openSessions(database.db, [...sids]), existingApiKeys(database.db, [...keyIds])]);
    let closed = 0;
    for (const [socket, owner] of open) {
      if ('apiKeyId' in owner ? liveKeys.has(owner.apiKeyId) || !keyIds.has(owner.apiKeyId) : liveSessions.has(owner.sid) || !sids.has(owner.sid)) continue;
      if (closeSocket(socket, 'apiKeyId' in owner ? API_KEY_REVOKED_CLOSE : SESSION_ENDED_CLOSE)) closed++;
    }
    return closed;
  };
  let checking = false;
  const checker = setInterval(() => {
    if (checking || !open.size) return;
    checking = true;
    check()
      .catch(onError)
      .finally(() => (checking = false));
  }, opts.checkMs ?? SOCKET_CHECK_MS);
  checker.unref();

  const keep = (socket: WebSocket, owner: Owner) => {
    open.set(socket, owner);
    socket.once('close', () => {
      if (open.get(socket) === owner) open.delete(socket);
      if ('timer' in owner) clearTimeout(owner.timer);
    });
  };
  return {
    track(sid, userId, socket) {
      const owner: SessionOwner = { sid, userId };
      keep(socket, owner);
      // The session may have ended between the ticket's use and now; its announcement would then have found no socket.
      sessionEnds(database.db, sid).then(
        (ends) => {
          if (open.get(socket) !== owner) return;
          if (!ends) closeSocket(socket, SESSION_ENDED_CLOSE);
          else timeEnd(socket, owner, ends);
        },
        (err: unknown) => onError(err),
      );
    },
    trackApiKey(keyId, socket) {
      const owner: Owner = { apiKeyId: keyId };
      keep(socket, owner);
      // The key may have been revoked between its check and now.
      existingApiKeys(database.db, [keyId]).then(
        (live) => {
          if (!live.has(keyId)) closeSocket(socket, API_KEY_REVOKED_CLOSE);
        },
        (err: unknown) => onError(err),
      );
    },
    size: () => open.size,
    check,
    async stop() {
      clearInterval(checker);
      for (const owner of open.values()) if ('timer' in owner) clearTimeout(owner.timer);
      await unlisten();
    },
  };
}
