import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/**
 * The frame of every on-call stand-in: a server on 127.0.0.1 (a free port), every request recorded,
 * and answers scripted ahead (`fail`): the next calls get an error or a 429 with Retry-After, as the
 * real services send them.
 */
export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}
export interface Scripted {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}
export type Handler = (req: Recorded, res: ServerResponse) => void;

export interface StandIn {
  url: string;
  requests: Recorded[];
  /** The next matching requests get these answers, in order. */
  fail(path: RegExp, ...answers: Scripted[]): void;
  close(): Promise<void>;
}

export const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

export async function startStandIn(handle: Handler): Promise<StandIn> {
  const requests: Recorded[] = [];
  const scripted: { path: RegExp; answer: Scripted }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const rec: Recorded = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      requests.push(rec);
      const i = scripted.findIndex((s) => s.path.test(rec.path));
      if (i >= 0) {
        const { answer } = scripted.splice(i, 1)[0]!;
        return send(res, answer.status, answer.body, answer.headers);
      }
      handle(rec, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    fail: (path, ...answers) => scripted.push(...answers.map((answer) => ({ path, answer }))),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
