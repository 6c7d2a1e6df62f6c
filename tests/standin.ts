import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}
/** What a stand-in's server is closed by: a tap test, or a Playwright file's list of teardowns. */
export interface Owner {
  teardown(fn: () => unknown): void;
}

export type Handler = (req: Seen, res: ServerResponse) => void;

/**
 * A local service stand-in on 127.0.0.1 (a free port, the kernel's choice): records every request,
 * answers `limited` requests with 429 and Retry-After before handing the rest to `handle`.
 */
export async function standIn(t: Owner, handle: Handler) {
  const seen: Seen[] = [];
  const state = { limited: 0, retryAfter: '1' };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        /* form or text */
      }
      const s = { method: req.method!, path: req.url!, headers: req.headers, body };
      seen.push(s);
      if (state.limited > 0) {
        state.limited--;
        return send(res, 429, { message: 'Rate limit exceeded' }, { 'retry-after': state.retryAfter });
      }
      handle(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { url, seen, state };
}

export function send(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}
