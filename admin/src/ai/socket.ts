import { useCallback, useEffect, useRef, useState } from 'react';
import { organization } from '../core/org.js';
// The landing page opens it outside <Admin> (no react-admin context): the data provider itself, not its hook.
import { dataProvider } from '../core/dataProvider.js';

export interface Frame {
  type: string;
  id?: string | number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- frames carry many shapes; each handler reads its own fields
  data?: Record<string, any>;
}

export const NOT_CONNECTED = 'WebSocket is not connected';
/** A request that waited for the connection in vain (spec §8). */
export const NOT_ESTABLISHED = 'WebSocket connection not established';

/** The error frame's messages joined, as notifications show them. */
export const detailText = (data: Record<string, unknown> | undefined) =>
  ((data?.detail as { msg: string }[] | undefined) ?? []).map((d) => d.msg).join(' ') || 'Something has gone wrong.';

/**
 * The live socket (GET /api/v1/{organization}/ws?ticket=… or ?key=…), reconnecting with exponential
 * backoff (1 s doubling to 30 s) whenever it drops. `send` throws 'WebSocket is not connected' while
 * it is down; `request` waits a little for the connection, then resolves with the reply that echoes
 * its id (or the error frame).
 */
export function useLiveSocket(auth: { token?: string | null; anonKey?: string | null }, onFrame: (frame: Frame) => void) {
  const socket = useRef<WebSocket | null>(null);
  const handler = useRef(onFrame);
  handler.current = onFrame;
  const pending = useRef(new Map<string, (f: Frame) => void>());
  /** Requests made while the socket is (re)connecting wait for its 'ready' frame. */
  const readyWaiters = useRef(new Set<() => void>());
  const [connected, setConnected] = useState(false);
  const { token, anonKey } = auth;

  useEffect(() => {
    let stopped = false;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let delay = 1000;
    const again = () => {
      retry = setTimeout(() => void open(), delay);
      delay = Math.min(delay * 2, 30_000);
    };
    const open = async () => {
      let query = anonKey ? `key=${encodeURIComponent(anonKey)}` : '';
      if (token) {
        // The session token never goes into a URL (URLs end up in logs): each connection gets a single-use ticket.
        try {
          const { ticket } = (await dataProvider.action<{ ticket: string }>('auth', { path: 'ws-ticket' })).data;
          query = `ticket=${encodeURIComponent(ticket)}`;
        } catch {
          if (!stopped) again();
          return;
        }
      }
      if (stopped) return;
      const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
      const ws = new WebSocket(`${scheme}://${window.location.host}/api/v1/${organization}/ws${query ? `?${query}` : ''}`);
      socket.current = ws;
      // A new socket (e.g. once the visitor's key arrives) is not usable until it says 'ready'.
      setConnected(false);
      ws.onmessage = (event) => {
        let frame: Frame;
        try {
          frame = JSON.parse(String(event.data)) as Frame;
        } catch {
          return;
        }
        if (frame.type === 'ready') {
          delay = 1000;
          setConnected(true);
          for (const wake of readyWaiters.current) wake();
          readyWaiters.current.clear();
        }
        const key = frame.id === undefined ? undefined : String(frame.id);
        const waiter = key ? pending.current.get(key) : undefined;
        handler.current(frame);
        if (waiter && key && !frame.type.startsWith('chat_')) {
          pending.current.delete(key);
          waiter(frame);
        }
      };
      ws.onclose = () => {
        setConnected(false);
        if (stopped) return;
        again();
      };
    };
    void open();
    return () => {
      stopped = true;
      clearTimeout(retry);
      socket.current?.close();
    };
  }, [token, anonKey]);

  const send = useCallback((type: string, data: unknown, id = `${type}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}`) => {
    if (socket.current?.readyState !== WebSocket.OPEN) throw new Error(NOT_CONNECTED);
    socket.current.send(JSON.stringify({ type, id, data }));
    return id;
  }, []);

  /** Sends once connected (waiting up to 10 s, e.g. while the page's socket opens) and resolves with the reply. */
  const request = useCallback(
    async (type: string, data: unknown) => {
      if (socket.current?.readyState !== WebSocket.OPEN) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => {
            readyWaiters.current.delete(wake);
            reject(new Error(NOT_ESTABLISHED));
          }, 10_000);
          const wake = () => {
            clearTimeout(timer);
            resolve();
          };
          readyWaiters.current.add(wake);
        });
      }
      return new Promise<Frame>((resolve, reject) => {
        try {
          const id = send(type, data);
          pending.current.set(id, resolve);
        } catch (err) {
          reject(err);
        }
      });
    },
    [send],
  );

  return { connected, send, request };
}
