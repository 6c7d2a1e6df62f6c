/**
 * Outgoing webhooks (issue 21): how soon the first delivery attempt reaches a receiver after its
 * event, and what a kill -9 in the middle of sending loses. A real server process (server/server.ts,
 * its production job settings) on a PostgreSQL database of this suite's own, a local receiver that
 * checks every signature with the `standardwebhooks` library.
 *
 * 1. Latency: incidents created one after another (~5 a second); for each, the first attempt's
 *    arrival minus the event's time (the payload's `timestamp`, set in the writer's transaction).
 * 2. kill -9: the receiver holds each request 1.5 s, so attempts are in flight; after 12 have
 *    arrived the server is killed with SIGKILL while clients keep creating incidents. Every incident
 *    acknowledged with 201 must be delivered after the restart, every delivery end Delivered, and a
 *    message seen twice must carry the same webhook-id and body (a redelivery, not a second event).
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { Webhook } from 'standardwebhooks';
import { benchDatabaseUrl, connect } from '../lib/database.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';
import { signIn, startServerProcess } from '../../tests/server/reliability/server-child.js';

const LATENCY_EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 100);
const KILL_AFTER = 12;
const HOLD_MS = 1500;
const ADMIN = { FIREWATCH_ADMIN_EMAIL: 'webhooks-bench@bench.local', FIREWATCH_ADMIN_PASSWORD: 'password-webhooks-bench' };
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Arrival {
  id: string;
  at: number;
  body: string;
  incidentId: number;
  eventAt: number;
}

/** A fresh database beside the bench's (its name + _webhooks), so migrations never touch the shared one. */
async function freshDatabase() {
  const url = new URL(benchDatabaseUrl());
  const name = `${decodeURIComponent(url.pathname.slice(1))}_webhooks`;
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const admin = connect(maintenance.toString(), 1);
  try {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  url.pathname = `/${name}`;
  return url.toString();
}

async function receiver() {
  const arrivals: Arrival[] = [];
  let verifier: Webhook | null = null;
  let bad = 0;
  let hold = 0;
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const at = Date.now();
    try {
      verifier!.verify(body, req.headers as Record<string, string>);
    } catch {
      bad++;
      res.writeHead(400).end();
      return;
    }
    const payload = JSON.parse(body) as { timestamp: string; data: { id: number } };
    arrivals.push({ id: String(req.headers['webhook-id']), at, body, incidentId: payload.data.id, eventAt: Date.parse(payload.timestamp) });
    if (hold) await sleep(hold);
    res.writeHead(200).end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    arrivals,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    useSecret: (secret: string) => (verifier = new Webhook(secret)),
    holdFor: (ms: number) => (hold = ms),
    bad: () => bad,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

async function run(): Promise<{ passed: boolean }> {
  const databaseUrl = await freshDatabase();
  // info: the harness reads the 'Server listening at' line.
  const env = { DATABASE_URL: databaseUrl, ...ADMIN, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ADMIN_DIST: 'dist/no-admin-in-bench' };
  const hooks = await receiver();
  let server = startServerProcess(env);
  try {
    let base = await server.listening();
    const token = await signIn(base, ADMIN.FIREWATCH_ADMIN_EMAIL, ADMIN.FIREWATCH_ADMIN_PASSWORD);
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}/api/v1/default${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = (await res.json()) as any;
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const project = await api('POST', '/projects', { name: 'Webhooks bench' });
    const endpoint = await api('POST', '/webhooks/endpoints', { url: hooks.url, events: ['incident.created'], description: 'bench receiver' });
    hooks.useSecret(endpoint.secret);

    // 1. First attempt after the event.
    for (let n = 0; n < LATENCY_EVENTS; n++) {
      await api('POST', '/iaos', { title: `Latency ${n}`, project_id: project.id });
      await sleep(200);
    }
    const deadline = Date.now() + 60_000;
    while (new Set(hooks.arrivals.map((a) => a.incidentId)).size < LATENCY_EVENTS && Date.now() < deadline) await sleep(50);
    const firstById = new Map<string, Arrival>();
    for (const a of hooks.arrivals) if (!firstById.has(a.id)) firstById.set(a.id, a);
    const delays = [...firstById.values()].map((a) => Math.max(0, a.at - a.eventAt)).sort((a, b) => a - b);
    const latencyLoad = load();
    const p95 = quantile(delays, 0.95);
    printTable(
      ['events', 'first attempts', 'p50 ms', 'p95 ms', 'max ms', 'target p95 ms', 'load average'],
      [[LATENCY_EVENTS, delays.length, quantile(delays, 0.5), p95, delays.at(-1) ?? NaN, 1000, latencyLoad]],
    );

    // 2. kill -9 in the middle of sending.
    const before = hooks.arrivals.length;
    hooks.holdFor(HOLD_MS);
    const acknowledged: number[] = [];
    let killed = false;
    const client = async (c: number) => {
      for (let n = 0; !killed; n++) {
        try {
          const res = await fetch(`${base}/api/v1/default/iaos`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ title: `Kill ${c}-${n}`, project_id: project.id }),
          });
          if (res.status === 201) acknowledged.push(((await res.json()) as { id: number }).id);
          else if (!killed) throw new Error(`create answered ${res.status}: ${await res.text()}`);
        } catch (err) {
          if (!killed) throw err;
        }
      }
    };
    const clients = Array.from({ length: 4 }, (_, c) => client(c));
    const started = Date.now();
    while (hooks.arrivals.length - before < KILL_AFTER && Date.now() - started < 120_000) await sleep(5);
    killed = true;
    server.child.kill('SIGKILL');
    await server.exited;
    await Promise.all(clients);
    const killedAt = Date.now();
    const arrivedBeforeKill = hooks.arrivals.length - before;
    hooks.holdFor(0);

    server = startServerProcess(env);
    base = await server.listening();
    const restartedAt = Date.now();
    const deliveredIds = () => new Set(hooks.arrivals.map((a) => a.incidentId));
    const pending = async () => {
      const page = await api(
        'GET',
        `/webhooks/deliveries?itemsPerPage=1&filter=${encodeURIComponent(JSON.stringify([{ field: 'status', op: '!=', value: 'Delivered' }]))}`,
      );
      return page.total as number;
    };
    let notDelivered = -1;
    const waitUntil = Date.now() + 240_000;
    for (;;) {
      const seen = deliveredIds();
      if (acknowledged.every((id) => seen.has(id))) {
        notDelivered = await pending();
        if (notDelivered === 0) break;
      }
      if (Date.now() > waitUntil) break;
      await sleep(250);
    }
    const seen = deliveredIds();
    const lost = acknowledged.filter((id) => !seen.has(id)).length;
    const byId = new Map<string, Arrival[]>();
    for (const a of hooks.arrivals) byId.set(a.id, [...(byId.get(a.id) ?? []), a]);
    const redelivered = [...byId.values()].filter((list) => list.length > 1);
    const sameBody = redelivered.every((list) => list.every((a) => a.body === list[0]!.body));
    const idsPerIncident = new Map<number, Set<string>>();
    for (const a of hooks.arrivals) idsPerIncident.set(a.incidentId, (idsPerIncident.get(a.incidentId) ?? new Set()).add(a.id));
    const twoIds = [...idsPerIncident.values()].filter((s) => s.size > 1).length;
    const afterRestart = hooks.arrivals.filter((a) => a.at >= restartedAt).length;
    const lastAt = Math.max(...hooks.arrivals.map((a) => a.at));
    printTable(
      [
        'acked before kill',
        'arrived before kill',
        'arrived after restart',
        'redelivered (same webhook-id)',
        'same body',
        'events with 2 ids',
        'lost',
        'not Delivered',
        'bad signatures',
        'all in after restart s',
        'load average',
      ],
      [
        [
          acknowledged.length,
          arrivedBeforeKill,
          afterRestart,
          redelivered.length,
          sameBody ? 'yes' : 'NO',
          twoIds,
          lost,
          notDelivered,
          hooks.bad(),
          ((lastAt - restartedAt) / 1000).toFixed(1),
          load(),
        ],
      ],
    );
    console.log(
      `\nmachine: ${cpus().length} CPUs; killed ${((killedAt - started) / 1000).toFixed(1)} s into the burst; the default JOB_LEASE_SECONDS and WEBHOOK_RETRY_SECONDS bound how soon an attempt cut off by the kill runs again.`,
    );
    server.child.kill('SIGTERM');
    await server.exited;
    const passed =
      p95 <= 1000 &&
      delays.length === LATENCY_EVENTS &&
      lost === 0 &&
      notDelivered === 0 &&
      sameBody &&
      twoIds === 0 &&
      hooks.bad() === 0 &&
      redelivered.length > 0;
    if (!redelivered.length) console.log('no attempt was cut off by the kill, so nothing was redelivered: the kill did not land mid-send');
    return { passed };
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await hooks.close();
  }
}

const suite: Suite = {
  name: 'webhooks',
  description: `outgoing webhooks against a local Standard Webhooks receiver: first attempt after the event (${LATENCY_EVENTS} incidents, target p95 ≤ 1 s), then kill -9 mid-send (0 lost, redeliveries keep their webhook-id)`,
  run,
};
export default suite;
