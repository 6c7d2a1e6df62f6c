import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { spawnedServerDatabase } from '../../helpers.js';
import { signIn, startServerProcess } from '../reliability/server-child.js';

const ADMIN = { FIREWATCH_ADMIN_EMAIL: 'signals-kill9@example.com', FIREWATCH_ADMIN_PASSWORD: 'password-signals-kill9' };
const CLIENTS = 8;
const BEFORE_KILL = 300;
const SERIES = 120;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const delivery = (n: number) => ({
  version: '4',
  status: 'firing',
  receiver: 'firewatch',
  alerts: [
    {
      status: 'firing',
      labels: { alertname: 'HighErrorRate', instance: `api-${n % SERIES}.prod.example.com:9100` },
      annotations: { summary: `Error rate on api-${n % SERIES}` },
      fingerprint: (n % SERIES).toString(16).padStart(16, '0'),
    },
  ],
});

t.test('kill -9 while signals are accepted and processed: every accepted signal is processed once the server is back, one case per series', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-signals-kill9-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = await spawnedServerDatabase(t, dir);
  const env = { ...db, ...ADMIN, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ADMIN_DIST: 'dist/no-admin-in-tests' };

  const first = startServerProcess(env);
  t.teardown(() => void first.child.kill('SIGKILL'));
  const base = await first.listening();
  const token = await signIn(base, ADMIN.FIREWATCH_ADMIN_EMAIL, ADMIN.FIREWATCH_ADMIN_PASSWORD);
  const api = async (b: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${b}/api/v1/default${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await res.json()) as any;
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const project = await api(base, 'POST', '/projects', { name: 'Ops' });
  const host = await api(base, 'POST', '/entity_type', {
    name: 'Host',
    jpath: '$.labels.instance',
    regular_expression: '^([a-z0-9.-]+?)(?::\\d+)?$',
    project_id: project.id,
  });
  const signal = await api(base, 'POST', '/signals', { name: 'Prometheus', project_id: project.id, entity_type_ids: [host.id] });

  const accepted: number[] = [];
  let killed = false;
  let failure: unknown = null;
  // Each client sends until the kill; an answer other than 202 before it fails the test.
  const client = async (c: number) => {
    for (let n = c; !killed; n += CLIENTS) {
      try {
        const res = await fetch(`${base}/api/v1/default/signals/alertmanager`, {
          method: 'POST',
          headers: { authorization: `Bearer ${signal.ingest_key}`, 'content-type': 'application/json' },
          body: JSON.stringify(delivery(n)),
        });
        if (res.status === 202) accepted.push(...((await res.json()) as { ids: number[] }).ids);
        else if (!killed) throw new Error(`answered ${res.status}: ${await res.text()}`);
      } catch (err) {
        if (!killed) throw err;
      }
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, c) => client(c).catch((err: unknown) => void (failure ??= err)));
  // The kill comes once enough signals were accepted, however long that takes on a loaded machine
  // (the test's own timeout is the bound), or at once if a client failed.
  while (accepted.length < BEFORE_KILL && failure === null) await sleep(5);
  killed = true;
  first.child.kill('SIGKILL');
  await first.exited;
  await Promise.all(clients);
  if (failure) throw failure;
  t.ok(accepted.length >= BEFORE_KILL, `${accepted.length} signals accepted before the kill`);

  const restartedAt = Date.now();
  const second = startServerProcess(env);
  t.teardown(() => void second.child.kill('SIGKILL'));
  const again = await second.listening();
  const all = async () => {
    const items: any[] = [];
    for (let page = 1; ; page++) {
      const res = await api(again, 'GET', `/signals/${signal.id}/instances?page=${page}&itemsPerPage=100`);
      items.push(...res.items);
      if (res.items.length < 100) return items;
    }
  };
  // Until every accepted signal shows processed: a condition, not a number of tries.
  const processed = (rows: any[]) => {
    const byId = new Map(rows.map((r) => [r.id, r]));
    return accepted.every((id) => byId.get(id)?.processed_at);
  };
  let rows = await all();
  while (!processed(rows)) {
    await sleep(100);
    rows = await all();
  }
  t.comment(
    `${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}: ${accepted.length} accepted, ${rows.length} stored, ${rows.filter((r) => r.processed_at && Date.parse(r.processed_at) >= restartedAt - 1000).length} of them processed only after the restart`,
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  t.same(
    accepted.filter((id) => !byId.get(id)),
    [],
    'every accepted signal is stored',
  );
  t.same(
    accepted.filter((id) => !byId.get(id)?.processed_at),
    [],
    'and processed after the restart',
  );
  const casesPerSeries = new Map<string, Set<number>>();
  for (const r of rows) if (r.case_id) casesPerSeries.set(r.dedup_key, (casesPerSeries.get(r.dedup_key) ?? new Set()).add(r.case_id));
  t.same(
    [...casesPerSeries].filter(([, c]) => c.size > 1),
    [],
    'no series has two cases',
  );
  second.child.kill('SIGTERM');
  t.equal(await second.exited, 0, 'the restarted server shuts down cleanly');
});
