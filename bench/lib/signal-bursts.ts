/**
 * Bursts of new alerts (issue 35), after the sustained lines: Alertmanager sends 2,000 new alerts at
 * once, as 40 group webhooks of 50.
 *  - 40 groups: one case per group (the default grouping); every case should be open within 5 s of
 *    the burst's end.
 *  - 2,000 per-alert cases (a definition grouping per alert): cases/s, beside a floor that opens the
 *    same number of cases by hand in the same run (one transaction per 500, the processing batch:
 *    the case rows and their two timeline entries, one insert each). Target: 500 cases/s, or at least
 *    70% of the floor's rate where this machine cannot reach 500.
 */
import type postgres from 'postgres';
import { newIngestKey } from '../../server/signals/resources.js';
import { SCOPE_SQL } from '../../server/core/db/tenant.js';

const ALERTS = 2000;
const GROUPS = 40;
const TARGET_LAST_CASE_S = 5;
const TARGET_CASES_S = 500;
const TARGET_FLOOR_SHARE = 0.7;
const TIMEOUT_MS = 180_000;

type Org = { id: number };

function webhooks(run: string) {
  return Array.from({ length: GROUPS }, (_, g) =>
    JSON.stringify({
      version: '4',
      status: 'firing',
      receiver: 'firewatch',
      groupKey: `{}:{alertname="Burst${run}", shard="${g}"}`,
      alerts: Array.from({ length: ALERTS / GROUPS }, (_, i) => ({
        status: 'firing',
        labels: { alertname: `Burst${run}`, shard: String(g), instance: `node-${g}-${i}.prod.example.com:9100` },
        annotations: { summary: `node-${g}-${i} down` },
        fingerprint: `${run}-${g}-${i}`,
      })),
    }),
  );
}

/** Sends the 40 webhooks at once; the time from the first send to the last 202. */
async function burst(baseUrl: string, key: string, bodies: string[]) {
  const start = performance.now();
  const statuses = await Promise.all(
    bodies.map((body) =>
      fetch(`${baseUrl}/api/v1/default/signals/alertmanager`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body,
      }).then((r) => r.status),
    ),
  );
  return { start, end: performance.now(), failed: statuses.filter((s) => s !== 202).length };
}

/** Waits until the definition's instances all point at a case; the time that happened (performance.now()). */
async function lastCase(sql: postgres.Sql, signalId: number, expected: number) {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const [row] = await sql`select count(*) filter (where case_id is not null)::int as linked, count(distinct case_id)::int as cases
      from signal_instances where signal_id = ${signalId}`;
    if (row!.linked >= ALERTS) return { at: performance.now(), cases: row!.cases as number };
    if (Date.now() > deadline)
      throw new Error(`${row!.linked} of ${ALERTS} alerts had a case (${row!.cases} cases, ${expected} expected) after ${TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The floor: 2,000 cases (and their two timeline entries each) inserted by hand, 500 a transaction. */
async function floorCases(sql: postgres.Sql, org: Org, projectId: number) {
  const start = performance.now();
  const tag = Date.now().toString(36);
  for (let b = 0; b < ALERTS / 500; b++) {
    await sql.begin(async (tx: postgres.TransactionSql) => {
      await tx.unsafe(SCOPE_SQL, [String(org.id), '', '', '']);
      const rows = Array.from({ length: 500 }, (_, i) => ({ name: `FLOOR-${tag}-${b * 500 + i}`, title: `node-${b}-${i} down` }));
      const ids = await tx`insert into cases (organization_id, project_id, name, title)
        select ${org.id}, ${projectId}, r.name, r.title from jsonb_to_recordset(${tx.json(rows as never)}::jsonb) as r(name text, title text) returning id`;
      await tx`insert into events (organization_id, case_id, type, source, description)
        select ${org.id}, c.id, 'Other', s.source, s.source || ' entry' from jsonb_array_elements_text(${tx.json(ids.map((r) => String(r.id)) as never)}::jsonb) as r(id_text)
        cross join (values ('Case Participant'), ('Signal')) as s(source)
        join cases c on c.organization_id = ${org.id} and c.id = r.id_text::int`;
    });
  }
  return (performance.now() - start) / 1000;
}

export async function signalBursts(sql: postgres.Sql, baseUrl: string, org: Org, projectId: number) {
  const define = async (name: string, grouping: string) => {
    const secret = newIngestKey();
    const [signal] = await sql`insert into signals (organization_id, project_id, name, ingest_key_hash, grouping, rate_limit_per_minute)
      values (${org.id}, ${projectId}, ${name}, ${secret.hash}, ${grouping}, 100000000) returning id`;
    return { id: signal!.id as number, key: secret.key };
  };
  const rows: (string | number)[][] = [];
  const misses: string[] = [];
  const run = Date.now().toString(36);

  const grouped = await define(`burst 40 groups ${run}`, 'group');
  console.error('burst: 2,000 alerts in 40 groups…');
  const g = await burst(baseUrl, grouped.key, webhooks(`g${run}`));
  const gl = await lastCase(sql, grouped.id, GROUPS);
  const toLast = (gl.at - g.end) / 1000;
  rows.push([
    'app: 2,000 alerts in 40 groups',
    Math.round(ALERTS / ((g.end - g.start) / 1000)),
    gl.cases,
    (gl.cases / ((gl.at - g.start) / 1000)).toFixed(1),
    toLast.toFixed(2),
    g.failed,
  ]);
  if (toLast > TARGET_LAST_CASE_S || gl.cases !== GROUPS || g.failed)
    misses.push(`40-group burst: last case ${toLast.toFixed(2)} s after the burst (target ${TARGET_LAST_CASE_S} s), ${gl.cases} cases`);

  console.error('burst: floor, 2,000 cases by hand…');
  const floorS = await floorCases(sql, org, projectId);
  rows.push(['floor: 2,000 cases by hand', '', ALERTS, Math.round(ALERTS / floorS), floorS.toFixed(2), 0]);

  const single = await define(`burst per alert ${run}`, 'alert');
  console.error('burst: 2,000 alerts as 2,000 per-alert cases…');
  const s = await burst(baseUrl, single.key, webhooks(`a${run}`));
  const sl = await lastCase(sql, single.id, ALERTS);
  const casesPerS = sl.cases / ((sl.at - s.start) / 1000);
  rows.push([
    'app: 2,000 per-alert cases',
    Math.round(ALERTS / ((s.end - s.start) / 1000)),
    sl.cases,
    Math.round(casesPerS),
    ((sl.at - s.end) / 1000).toFixed(2),
    s.failed,
  ]);
  const share = casesPerS / (ALERTS / floorS);
  const notes = [
    `per-alert cases: ${Math.round(casesPerS)} cases/s = ${(share * 100).toFixed(0)}% of the floor's ${Math.round(ALERTS / floorS)} (target ${TARGET_CASES_S}/s, or ${TARGET_FLOOR_SHARE * 100}% of the floor)`,
  ];
  if ((casesPerS < TARGET_CASES_S && share < TARGET_FLOOR_SHARE) || sl.cases !== ALERTS || s.failed)
    misses.push(`per-alert burst: ${Math.round(casesPerS)} cases/s, ${(share * 100).toFixed(0)}% of the floor, ${sl.cases} cases`);
  return { rows, notes, misses, headers: ['burst', 'accepted/s', 'cases', 'cases/s', 'last case after burst end (s)', 'failed requests'] };
}
