import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

export interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A local HTTP peer on 127.0.0.1 for one test (a Slack or Teams webhook, a workflow engine, a webhook
 * receiver): `answer` decides each reply; every request is kept in `received`.
 */
export async function localServer(t: Test, answer: (req: Received, res: ServerResponse) => void | Promise<void> = (_r, res) => void res.end('ok')) {
  const received: Received[] = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const r = { method: req.method!, path: req.url!, headers: req.headers, body };
    received.push(r);
    await answer(r, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { received, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** Waits (polling every 50 ms, up to `ms`) until `check` returns a truthy value, and returns it. */
export async function until<T>(what: string, check: () => Promise<T> | T, ms = 20_000): Promise<Exclude<T, false | null | undefined | 0 | ''>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v as Exclude<T, false | null | undefined | 0 | ''>;
    if (Date.now() > deadline) throw new Error(`still waiting for ${what} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
