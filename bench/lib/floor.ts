import { cpus, loadavg } from 'node:os';
import type postgres from 'postgres';
import { SCOPE_SQL, settle } from '../../server/core/db/tenant.js';
import { combineRounds, load, verify, type BenchRequest, type LoadOptions, type LoadResult } from './load.js';
import { printTable } from './table.js';

/** One scenario measured through the app and through the floor (a bare route running the same SQL). */
export interface FloorScenario {
  name: string;
  app: BenchRequest[];
  floor: BenchRequest[];
  /**
   * More references on the floor's server, measured in the same alternating rounds and shown with
   * their own ratio, for information: the targets are judged against `floor` only.
   */
  more?: { server: string; requests: BenchRequest[] }[];
  /** Null when an answer looks right (a full page, a full record), else what is wrong. */
  check: (body: unknown) => string | null;
  /** What must be equal in the app's and the floor's answer to the same question (ids, totals). */
  key: (body: Record<string, unknown>) => string;
}

export interface FloorTargets {
  p99Ms: number;
  /** The app's requests per second over the floor's, at least (omitted: no throughput target). */
  floorRatio?: number;
}

/**
 * Checks every request of both servers once, checks that they answer the same, then loads each in
 * turn. Returns the table rows (floor, the other references, then app) and whether the app met the
 * targets.
 */
export async function appVsFloor(appBase: string, floorBase: string, s: FloorScenario, opts: LoadOptions, targets: FloorTargets) {
  const sides = [
    { server: 'app', base: appBase, requests: s.app },
    { server: 'floor', base: floorBase, requests: s.floor },
    ...(s.more ?? []).map((m) => ({ ...m, base: floorBase })),
  ];
  for (const side of sides) {
    await verify(side.base, side.requests, s.check);
    if (side.server !== 'app') await sameAnswer(appBase, s.app[1]!, side.base, side.requests[1]!, s.key);
  }
  // Alternating rounds (the first of each warms up), so load drift on the shared box hits every side.
  const rounds: LoadResult[][] = sides.map(() => []);
  for (let i = 0; i < opts.rounds; i++) {
    const round = { ...opts, duration: opts.duration / opts.rounds, warmup: i === 0 ? opts.warmup : 0 };
    for (const [k, side] of sides.entries()) rounds[k]!.push(await load(side.base, side.requests, round));
  }
  const [a, f, ...others] = rounds.map((r) => combineRounds(r, opts.duration)) as [LoadResult, LoadResult, ...LoadResult[]];
  const ratio = a.rps / f.rps;
  const failures = [a, f, ...others].reduce((n, r) => n + r.failures, 0);
  const misses = [
    failures ? `${failures} failed requests` : '',
    a.p99 > targets.p99Ms ? `p99 > ${targets.p99Ms} ms` : '',
    targets.floorRatio !== undefined && ratio < targets.floorRatio ? `< ${targets.floorRatio * 100}% of floor` : '',
  ].filter(Boolean);
  const rows: (string | number)[][] = [
    row(s.name, 'floor', f, ''),
    ...others.map((o, k) => row(s.name, sides[k + 2]!.server, o, `(app: ${((a.rps / o.rps) * 100).toFixed(0)}% of it)`)),
    row(s.name, 'app', a, misses.length ? `MISS (${misses.join(', ')})` : 'PASS', ratio),
  ];
  return { rows, passed: misses.length === 0 };
}

function row(name: string, server: string, r: LoadResult, result: string, ratio?: number): (string | number)[] {
  return [
    name,
    server,
    r.p50,
    r.p99,
    Math.round(r.rps),
    r.nodeCpuMs.toFixed(2),
    r.pgCpuMs === null ? '–' : r.pgCpuMs.toFixed(2),
    ratio === undefined ? '' : `${(ratio * 100).toFixed(0)}%`,
    result,
  ];
}

/** The settings and the machine's load, then the table of appVsFloor rows. */
export function printFloorTable(opts: LoadOptions, targets: string, rows: (string | number)[][]) {
  console.log(
    `loopback, ${opts.connections} connections, ${opts.warmup} s warm-up + ${opts.duration} s measured per line in ${opts.rounds} alternating rounds (p50: median round, p99: worst round); ${targets}`,
  );
  console.log(
    `machine: ${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} at the end (others' work competes for the same cores)\n`,
  );
  console.log('node ms/req: CPU of this process per request (server, load generator); pg ms/req: CPU of all PostgreSQL processes per request\n');
  printTable(['scenario', 'server', 'p50 ms', 'p99 ms', 'req/s', 'node ms/req', 'pg ms/req', 'vs floor', 'result'], rows);
}

/** The floor must answer what the app answers, or it is not a floor for the same work. */
async function sameAnswer(appBase: string, appReq: BenchRequest, floorBase: string, floorReq: BenchRequest, key: FloorScenario['key']) {
  const get = async (base: string, r: BenchRequest) => (await (await fetch(base + r.path, { headers: r.headers })).json()) as Record<string, unknown>;
  const [a, f] = await Promise.all([get(appBase, appReq), get(floorBase, floorReq)]);
  if (key(a) !== key(f)) throw new Error(`The floor and the app disagree on ${appReq.path}: ${key(a)} vs ${key(f)}.`);
}

/** Who a floor's tenant transaction runs as, as the app's scope statement takes it. */
export interface FloorTenant {
  org: number;
  user: number;
  role: string;
  /** The plan mode the app picks for the request (oneListPlan in server/engine/list-query.ts). */
  genericPlans: boolean;
}

/**
 * A statement sent by hand the way the app's list route sends its page: BEGIN READ ONLY, the tenant
 * scope (the app's own SCOPE_SQL: role, organization, membership check, plan mode), the statement and
 * COMMIT, queued in one tick so postgres.js writes them together on one connection. Row level security
 * and the plans are then the app's; only the app's Node work is missing.
 */
export async function inTenantFloor(
  sql: postgres.Sql,
  tenant: FloorTenant,
  statement: string,
  params: postgres.ParameterOrJSON<never>[],
): Promise<postgres.Row[]> {
  const tx = await sql.reserve();
  try {
    // COMMIT after a failure rolls back.
    const [, scope, rows] = await settle([
      tx.unsafe('begin read only').execute(),
      tx
        .unsafe(SCOPE_SQL, [String(tenant.org), String(tenant.user), tenant.role, tenant.genericPlans ? 'force_generic_plan' : ''], { prepare: true })
        .execute(),
      tx.unsafe(statement, params, { prepare: true }).execute(),
      tx.unsafe('commit').execute(),
    ]);
    if (!scope[0]!.verified) throw new Error('The bench caller is no longer a member.');
    return rows;
  } finally {
    tx.release();
  }
}
