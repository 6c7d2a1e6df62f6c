import type { WebSocket } from 'ws';
import type { Database } from '../core/db/client.js';
import { listen } from '../core/jobs/wakeup.js';
import { isEnded, sessionIsOpen, SESSIONS_CHANNEL, type EndedSessions } from '../core/sessions.js';

/** The close code and reason a socket gets when its session ends (4000–4999 are the application's). */
export const SESSION_ENDED_CLOSE = { code: 4001, reason: 'Your session has ended. Please sign in again.' } as const;

export interface SessionSockets {
  /** Keeps `socket` until it closes; it is closed when its session ends (sign-out, a password change elsewhere). */
  track(sid: string, userId: number, socket: WebSocket): void;
  /** Open sockets tracked (for tests and metrics). */
  size(): number;
  stop(): Promise<void>;
}

/**
 * Closes signed-in sockets whose session ends. A socket outlives the ticket that opened it, so without this
 * a signed-out or password-changed session would keep receiving live changes and chat answers. Ended sessions
 * are announced on SESSIONS_CHANNEL at commit, so a sign-out in one app process closes sockets in all of them.
 */
export async function startSessionSockets(database: Database, onError: (err: unknown) => void): Promise<SessionSockets> {
  const open = new Map<WebSocket, { sid: string; userId: number }>();
  const close = (ended: EndedSessions) => {
    for (const [socket, s] of open) {
      if (!isEnded(ended, s.sid, s.userId)) continue;
      open.delete(socket);
      socket.close(SESSION_ENDED_CLOSE.code, SESSION_ENDED_CLOSE.reason);
    }
  };
  const unlisten = await listen(database, SESSIONS_CHANNEL, (payload) => {
    try {
      close(JSON.parse(payload) as EndedSessions);
    } catch (err) {
      onError(err);
    }
  });
  return {
    track(sid, userId, socket) {
      open.set(socket, { sid, userId });
      socket.once('close', () => open.delete(socket));
      // The session may have ended between the ticket's use and now; its announcement would then have found no socket.
      sessionIsOpen(database.db, sid).then(
        (alive) => {
          if (!alive && open.delete(socket)) socket.close(SESSION_ENDED_CLOSE.code, SESSION_ENDED_CLOSE.reason);
        },
        (err: unknown) => onError(err),
      );
    },
    size: () => open.size,
    stop: unlisten,
  };
}
