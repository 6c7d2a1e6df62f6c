import { Worker } from 'node:worker_threads';

/**
 * An open-loop load at a fixed rate: request i is sent at start + i / rate whatever the answers so far
 * (up to 256 sockets), and its latency counts from that scheduled time, so a server that falls behind
 * is charged for the wait (no coordinated omission). autocannon's overallRate is not used for this: each
 * of its connections sends its per-second quota back to back when its one-second timer fires, and the
 * timers of all connections fire together, so its "rate" is one burst a second.
 * Runs in a worker thread (plain JavaScript, no loader), so the load generator does not share the
 * event loop of the server under test in this process.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { url, requests, rate, seconds, slowMs } = workerData;
const target = new URL(url);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const total = Math.max(1, Math.round(rate * seconds));
const latencies = [];
const slow = [];
let failures = 0, sent = 0, done = 0, ended = false;
const start = performance.now();
const finish = () => {
  if (ended) return;
  ended = true;
  agent.destroy();
  parentPort.postMessage({ latencies, slow, failures: failures + (total - done), answered: done, seconds: (performance.now() - start) / 1000 });
};
const settle = () => { if (++done === total) finish(); };
setTimeout(finish, (seconds + 60) * 1000).unref();
function send(i) {
  const scheduled = start + (i * 1000) / rate;
  const r = requests[i % requests.length];
  const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: r.headers, agent }, (res) => {
    res.resume();
    res.on('end', () => {
      const now = performance.now();
      latencies.push(now - scheduled);
      if (now - scheduled > slowMs) slow.push({ start: performance.timeOrigin + scheduled, end: performance.timeOrigin + now });
      if (res.statusCode >= 300) failures++;
      settle();
    });
  });
  req.on('error', () => { failures++; settle(); });
  req.end(r.body);
}
const tick = () => {
  const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000) + 1);
  while (sent < due) send(sent++);
  if (sent < total) setTimeout(tick, 1);
};
tick();
`;

export interface PacedResult {
  /** Requests answered (2xx or not), of rate × seconds sent. */
  answered: number;
  /** From the first send to the last answer: longer than asked when the server fell behind. */
  seconds: number;
  failures: number;
  p50: number;
  p99: number;
  /** The requests slower than `slowMs`: from their scheduled send to their answer, epoch ms. */
  slow: { start: number; end: number }[];
}

export function paced(
  url: string,
  requests: { headers: Record<string, string>; body: string }[],
  rate: number,
  seconds: number,
  slowMs = Infinity,
): Promise<PacedResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { url, requests, rate, seconds, slowMs } });
    worker.once('error', reject);
    worker.once('message', (m: { latencies: number[]; slow: PacedResult['slow']; failures: number; answered: number; seconds: number }) => {
      const sorted = m.latencies.sort((a, b) => a - b);
      const at = (q: number) => (sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!) : NaN);
      resolve({ answered: m.answered, seconds: m.seconds, failures: m.failures, p50: at(0.5), p99: at(0.99), slow: m.slow });
      void worker.terminate();
    });
  });
}
