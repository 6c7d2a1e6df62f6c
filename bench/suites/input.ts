/**
 * Review F21: how long the app takes to refuse a JSON body nested 10,000, 50,000 and 500,000 deep
 * (POST /auth/postoauthlogin, public), and the longest GET /api/v1/healthcheck a parallel client saw
 * meanwhile. The health client runs in a worker thread, so its timing does not wait on the server's
 * event loop. Each depth is sent ROUNDS times, one at a time.
 * Target: every deep body refused (400), and no healthcheck slower than HEALTH_TARGET_MS.
 */
import { request } from 'node:http';
import { Worker } from 'node:worker_threads';
import { benchDatabaseUrl, ensureDatabase } from '../lib/database.js';
import { startApp } from '../lib/server.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';

const LEVELS = [10_000, 50_000, 500_000];
const ROUNDS = 20;
const HEALTH_TARGET_MS = 100;

/** Asks for the healthcheck every 5 ms until told to stop, then posts every latency (ms); the first one (warming up) is left out. */
const HEALTH_CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
let stop = false;
parentPort.on('message', () => (stop = true));
(async () => {
  await (await fetch(workerData + '/api/v1/healthcheck')).arrayBuffer();
  parentPort.postMessage('ready');
  const ms = [];
  while (!stop) {
    const t0 = performance.now();
    const res = await fetch(workerData + '/api/v1/healthcheck');
    await res.arrayBuffer();
    ms.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 5));
  }
  parentPort.postMessage(ms);
})();
`;

function post(baseUrl: string, path: string, body: string) {
  return new Promise<number>((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function measure(baseUrl: string, levels: number) {
  const body = `{"token":"x","nested":${'['.repeat(levels)}${']'.repeat(levels)}}`;
  const worker = new Worker(HEALTH_CLIENT, { eval: true, workerData: baseUrl });
  await new Promise((resolve) => worker.once('message', resolve));
  const health = new Promise<number[]>((resolve) => worker.once('message', resolve));
  const refuse: number[] = [];
  const statuses = new Set<number>();
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    statuses.add(await post(baseUrl, '/api/v1/default/auth/postoauthlogin', body));
    refuse.push(performance.now() - t0);
  }
  worker.postMessage('stop');
  const ms = await health;
  await worker.terminate();
  return { body: body.length, refuse, statuses: [...statuses], health: ms };
}

const suite: Suite = {
  name: 'input',
  description: 'refusing deeply nested JSON bodies, and the healthcheck meanwhile (review F21)',
  async run() {
    const url = benchDatabaseUrl();
    await ensureDatabase(url);
    const { app, baseUrl } = await startApp(url);
    let passed = true;
    const rows: (string | number)[][] = [];
    try {
      for (const levels of LEVELS) {
        const m = await measure(baseUrl, levels);
        const worst = Math.max(...m.health);
        const ok = m.statuses.length === 1 && m.statuses[0] === 400 && worst <= HEALTH_TARGET_MS;
        passed &&= ok;
        const sorted = [...m.refuse].sort((a, b) => a - b);
        rows.push([levels, m.body, m.statuses.join(','), sorted[Math.floor(sorted.length / 2)]!, sorted.at(-1)!, m.health.length, worst, ok ? 'ok' : 'MISSED']);
      }
    } finally {
      await app.close();
    }
    printTable(['levels', 'body bytes', 'status', 'refuse p50 ms', 'refuse max ms', 'healthchecks', 'health max ms', `target ${HEALTH_TARGET_MS} ms`], rows);
    return { passed };
  },
};
export default suite;
