import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, countDistinct, eq, isNotNull } from 'drizzle-orm';
import t from 'tap';
import { signalInstances } from '../../../server/signals/tables.js';
import { cases } from '../../../server/cases/tables.js';
import { signalApp } from './helpers.js';

/**
 * A real Alertmanager (Debian's prometheus-alertmanager, 0.25) sends one group of ALERTS alerts to
 * Firewatch through its webhook and through its opsgenie_configs (api_url pointed at Firewatch),
 * unchanged. The alerts are pushed through Alertmanager's own API, as Prometheus does.
 */
/** Issue 35's figure: well past the 1,000 a request could carry before (Alertmanager dropped the rest). */
const ALERTS = 1_500;
const binary = ['prometheus-alertmanager', 'alertmanager'].find((b) => spawnSync('which', [b]).status === 0);
const skip =
  !binary && process.env.CI !== 'true' ? 'prometheus-alertmanager is not installed (apt-get install prometheus-alertmanager); CI runs this test' : false;
{
  t.test(
    `a real Alertmanager: ${ALERTS.toLocaleString('en')} alerts of one group stored, one case per group, resolve closes, no failed notifications`,
    { skip },
    async (t) => {
      t.ok(binary, 'prometheus-alertmanager is installed');
      if (!binary) return;
      const s = await signalApp(t);
      const og = await s.ok('POST', '/signals', { name: 'Opsgenie route', project_id: s.projectId });
      await s.app.listen({ host: '127.0.0.1', port: 0 });
      const firewatch = `http://127.0.0.1:${(s.app.server.address() as { port: number }).port}/api/v1/default`;
      const amPort = await freePort();
      const dir = mkdtempSync(join(tmpdir(), 'firewatch-am-'));
      t.teardown(() => rmSync(dir, { recursive: true, force: true }));
      writeFileSync(
        join(dir, 'alertmanager.yml'),
        `route:
  receiver: firewatch
  group_by: [alertname]
  group_wait: 200ms
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: firewatch
    webhook_configs:
      - url: ${firewatch}/signals/alertmanager
        send_resolved: true
        http_config:
          authorization: { type: Bearer, credentials: ${s.key} }
    opsgenie_configs:
      - api_key: ${og.ingest_key}
        api_url: ${firewatch}/signals/opsgenie/
        send_resolved: true
`,
      );
      const am = spawn(
        binary,
        [
          `--config.file=${join(dir, 'alertmanager.yml')}`,
          `--storage.path=${join(dir, 'data')}`,
          `--web.listen-address=127.0.0.1:${amPort}`,
          '--cluster.listen-address=',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let log = '';
      am.stderr.on('data', (b: Buffer) => (log = (log + b.toString()).slice(-20_000)));
      t.teardown(() => void am.kill('SIGTERM'));
      const api = `http://127.0.0.1:${amPort}`;
      await until(
        async () => (await fetch(`${api}/-/ready`).catch(() => null))?.ok === true,
        30_000,
        () => log,
      );

      const push = async (endsAt: Date) => {
        const alerts = Array.from({ length: ALERTS }, (_, i) => ({
          labels: { alertname: 'NodeDown', instance: `node-${i}.prod.example.com:9100`, severity: 'page' },
          annotations: { summary: `node-${i} is down` },
          startsAt: new Date(Date.now() - 60_000).toISOString(),
          endsAt: endsAt.toISOString(),
        }));
        const res = await fetch(`${api}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(alerts) });
        t.equal(res.status, 200, 'Alertmanager took the alerts');
      };
      const db = s.database.db;
      // Distinct alerts (dedup keys) processed: Alertmanager re-sends a group's alerts at each group_interval while it grows.
      const stored = async (signalId: number) =>
        (
          await db
            .select({ n: countDistinct(signalInstances.dedup_key) })
            .from(signalInstances)
            .where(and(eq(signalInstances.signal_id, signalId), isNotNull(signalInstances.processed_at)))
        )[0]!.n;
      const casesOf = async (signalId: number) =>
        db
          .selectDistinct({ id: cases.id, status: cases.status })
          .from(signalInstances)
          .innerJoin(cases, eq(cases.id, signalInstances.case_id))
          .where(eq(signalInstances.signal_id, signalId));

      await push(new Date(Date.now() + 3600_000));
      await until(
        async () => (await stored(s.signal.id)) >= ALERTS && (await stored(og.id)) >= 1,
        120_000,
        () => log,
      );
      t.equal(await stored(s.signal.id), ALERTS, 'every alert of the group stored, through the webhook');
      const [sent] = await db.select({ raw: signalInstances.raw }).from(signalInstances).where(eq(signalInstances.signal_id, og.id)).limit(1);
      t.match(
        sent!.raw,
        { message: String, alias: /^[0-9a-f]{64}$/, source: String },
        "Alertmanager's Opsgenie alert as it sent it (alias: a hash of the group key)",
      );
      t.same(
        (await casesOf(s.signal.id)).map((c) => c.status),
        ['New'],
        'one case for the group',
      );
      t.same(
        (await casesOf(og.id)).map((c) => c.status),
        ['New'],
        'one case through opsgenie_configs (one Opsgenie alert per group)',
      );

      await push(new Date(Date.now() - 1_000));
      const closed = async (id: number) => (await casesOf(id)).every((c) => c.status === 'Closed');
      await until(
        async () => (await closed(s.signal.id)) && (await closed(og.id)),
        120_000,
        () => log,
      );
      t.ok((await closed(s.signal.id)) && (await closed(og.id)), 'the resolve closed both cases');

      const metrics = await (await fetch(`${api}/metrics`)).text();
      const failed = [...metrics.matchAll(/^alertmanager_notifications_failed_total\{[^}]*integration="(\w+)"[^}]*\} (\d+)/gm)];
      t.same(
        Object.fromEntries(failed.filter(([, i]) => i === 'webhook' || i === 'opsgenie').map(([, i, n]) => [i, Number(n)])),
        { opsgenie: 0, webhook: 0 },
        'alertmanager_notifications_failed_total is 0 for both integrations',
      );
      await s.app.close();
    },
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function until(check: () => Promise<boolean>, timeoutMs: number, log: () => string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms; Alertmanager's log:\n${log().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
