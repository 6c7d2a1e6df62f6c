/**
 * Issue 5: the server's memory with 1,000 idle live sockets. The real app runs in a child process
 * (this same file, started with FW_SOCKET_BENCH_CHILD=1) so the clients' memory is not counted; the
 * parent opens anonymous-key sockets on loopback, waits for each `ready` frame, and asks the child for
 * its RSS and heap after a forced GC, before and after.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { benchDatabaseUrl, ensureDatabase } from '../lib/database.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 1000);

interface Memory {
  rss: number;
  heapUsed: number;
}

if (process.env.FW_SOCKET_BENCH_CHILD) {
  const { startApp } = await import('../lib/server.js');
  const { app, baseUrl } = await startApp(process.env.FW_SOCKET_BENCH_DB!);
  process.on('message', (msg: string) => {
    if (msg === 'memory') {
      (globalThis as { gc?: () => void }).gc?.();
      const m = process.memoryUsage();
      process.send!({ rss: m.rss, heapUsed: m.heapUsed } satisfies Memory);
    } else if (msg === 'stop') void app.close().then(() => process.exit(0));
  });
  process.send!({ baseUrl });
}

function ask<T>(child: ChildProcess, msg: string): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as T));
    child.send(msg);
  });
}

export async function run(): Promise<{ passed: boolean }> {
  const url = benchDatabaseUrl();
  await ensureDatabase(url);
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, FW_SOCKET_BENCH_CHILD: '1', FW_SOCKET_BENCH_DB: url },
    execArgv: ['--import', 'tsx', '--expose-gc'],
  });
  const sockets: WebSocket[] = [];
  try {
    const { baseUrl } = await new Promise<{ baseUrl: string }>((resolve, reject) => {
      child.once('message', (m) => resolve(m as { baseUrl: string }));
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const res = await fetch(`${baseUrl}/api/v1/default/auth/anonymous`, { method: 'POST' });
    const { key } = (await res.json()) as { key: string };
    const wsUrl = `${baseUrl.replace('http', 'ws')}/api/v1/default/ws?key=${key}`;
    // Warm up one socket so the baseline includes the socket code paths.
    const open = () =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(wsUrl);
        ws.once('message', () => resolve(ws));
        ws.once('error', reject);
      });
    (await open()).close();
    await new Promise((r) => setTimeout(r, 500));
    const before = await ask<Memory>(child, 'memory');
    const started = performance.now();
    for (let i = 0; i < SOCKETS; i += 50) sockets.push(...(await Promise.all(Array.from({ length: Math.min(50, SOCKETS - i) }, open))));
    const openSeconds = (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 1000));
    const after = await ask<Memory>(child, 'memory');
    const mb = (n: number) => n / 1024 / 1024;
    printTable(
      ['measure', 'value'],
      [
        ['idle sockets', sockets.length],
        ['opened in s', openSeconds],
        ['server RSS before, MB', mb(before.rss)],
        ['server RSS with sockets, MB', mb(after.rss)],
        ['server heap before, MB', mb(before.heapUsed)],
        ['server heap with sockets, MB', mb(after.heapUsed)],
        ['RSS per socket, KB', (after.rss - before.rss) / 1024 / sockets.length],
        ['heap per socket, KB', (after.heapUsed - before.heapUsed) / 1024 / sockets.length],
      ],
    );
    return { passed: sockets.length === SOCKETS };
  } finally {
    for (const s of sockets) s.terminate();
    child.send('stop');
    await new Promise((r) => child.once('exit', r));
  }
}

const suite: Suite = {
  name: 'ai-sockets',
  description: `server memory with ${SOCKETS.toLocaleString('en-US')} idle live sockets (anonymous key, real app in a child process)`,
  run,
};
export default suite;
