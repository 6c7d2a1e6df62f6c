import autocannon from 'autocannon';
import { readdirSync, readFileSync } from 'node:fs';

/** One request the load generator sends; a scenario cycles through a list of them. */
export interface BenchRequest {
  path: string;
  headers?: Record<string, string>;
}

export interface LoadOptions {
  /** Seconds of measured load (after the warm-up). */
  duration: number;
  /** Seconds of unmeasured load first (JIT, prepared statements, buffer cache). */
  warmup: number;
  connections: number;
  /**
   * appVsFloor splits each side's measured seconds into this many rounds, alternating app and floor,
   * so a change in the machine's load between the two does not land on one side only.
   */
  rounds: number;
}

export interface LoadResult {
  p50: number;
  p99: number;
  rps: number;
  requests: number;
  /** Responses that were not 2xx, plus socket errors and timeouts: any of these spoils the figure. */
  failures: number;
  /**
   * CPU time per request, in ms, during the measured run: this process (the server under test, the
   * idle other server and the load generator's worker, whose share is the same for app and floor) and
   * every PostgreSQL process on the machine (null where /proc cannot tell).
   */
  nodeCpuMs: number;
  pgCpuMs: number | null;
}

/**
 * CPU (user + system, ms) used so far by each process named postgres, by pid, from /proc (of `only`
 * those pids when given: one database's backends); null off Linux.
 */
export function postgresCpuMs(only?: string[]): Map<string, number> | null {
  let pids: string[];
  try {
    pids = only ?? readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return null;
  }
  const used = new Map<string, number>();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).startsWith('postgres')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime, stime (man 5 proc, fields 14 and 15); clock ticks are 1/100 s on Linux
      used.set(pid, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // the process ended meanwhile
    }
  }
  return used;
}

/**
 * PostgreSQL CPU between two samples: each process's growth (a new one from zero). A process that
 * ended in between (another helper's connection) is left out rather than subtracted: summing all
 * processes made the figure negative when a busy one went away.
 */
export function postgresCpuBetween(before: Map<string, number> | null, after: Map<string, number> | null): number | null {
  if (!before || !after) return null;
  let ms = 0;
  for (const [pid, used] of after) ms += Math.max(0, used - (before.get(pid) ?? 0));
  return ms;
}

export const defaultLoad = (): LoadOptions => ({
  duration: Number(process.env.BENCH_DURATION ?? 10),
  warmup: Number(process.env.BENCH_WARMUP ?? 2),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
  rounds: Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2)),
});

/**
 * Sends every request once and checks it succeeds and looks like a list page, so a scenario never
 * measures how fast the server says 401 or 422.
 */
export async function verify(baseUrl: string, requests: BenchRequest[], check: (body: unknown, req: BenchRequest) => string | null) {
  for (const req of requests) {
    const res = await fetch(baseUrl + req.path, { headers: req.headers });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`GET ${req.path} answered ${res.status}: ${text.slice(0, 300)}`);
    const problem = check(JSON.parse(text), req);
    if (problem) throw new Error(`GET ${req.path}: ${problem}`);
  }
}

function run(baseUrl: string, requests: BenchRequest[], connections: number, duration: number) {
  return autocannon({
    url: baseUrl,
    connections,
    duration,
    // The load generator runs in its own worker thread so it does not share an event loop with the
    // server under test (both live in this process).
    workers: 1,
    requests: requests.map((r) => ({ method: 'GET' as const, path: r.path, headers: r.headers })),
  });
}

/** autocannon over a URL list (each connection cycles through it): p50/p99 latency in ms and requests per second. */
export async function load(baseUrl: string, requests: BenchRequest[], opts: LoadOptions): Promise<LoadResult> {
  if (opts.warmup > 0) await run(baseUrl, requests, opts.connections, opts.warmup);
  const pg0 = postgresCpuMs();
  const cpu0 = process.cpuUsage();
  const r = await run(baseUrl, requests, opts.connections, opts.duration);
  const cpu = process.cpuUsage(cpu0);
  const pg1 = postgresCpuMs();
  const perRequest = (ms: number) => ms / Math.max(1, r.requests.total);
  return {
    nodeCpuMs: perRequest((cpu.user + cpu.system) / 1000),
    pgCpuMs: pg0 === null || pg1 === null ? null : perRequest(postgresCpuBetween(pg0, pg1)!),
    p50: r.latency.p50,
    p99: r.latency.p99,
    rps: r.requests.total / opts.duration,
    requests: r.requests.total,
    failures: r.non2xx + r.errors + r.timeouts,
  };
}

/**
 * Several rounds of one server as one result: requests per second and CPU per request over all of
 * them; p50 the median round's, p99 the worst round's (percentiles of separate runs do not add up, so
 * the tail is taken at its most pessimistic).
 */
export function combineRounds(rounds: LoadResult[], seconds: number): LoadResult {
  const requests = rounds.reduce((n, r) => n + r.requests, 0);
  const weighted = (value: (r: LoadResult) => number) => rounds.reduce((sum, r) => sum + value(r) * r.requests, 0) / Math.max(1, requests);
  const p50s = rounds.map((r) => r.p50).sort((x, y) => x - y);
  return {
    p50: p50s[Math.floor((p50s.length - 1) / 2)]!,
    p99: Math.max(...rounds.map((r) => r.p99)),
    rps: requests / seconds,
    requests,
    failures: rounds.reduce((n, r) => n + r.failures, 0),
    nodeCpuMs: weighted((r) => r.nodeCpuMs),
    pgCpuMs: rounds.some((r) => r.pgCpuMs === null) ? null : weighted((r) => r.pgCpuMs!),
  };
}
