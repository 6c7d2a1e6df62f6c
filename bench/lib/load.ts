import autocannon from 'autocannon';

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
}

export interface LoadResult {
  p50: number;
  p99: number;
  rps: number;
  requests: number;
  /** Responses that were not 2xx, plus socket errors and timeouts: any of these spoils the figure. */
  failures: number;
}

export const defaultLoad = (): LoadOptions => ({
  duration: Number(process.env.BENCH_DURATION ?? 10),
  warmup: Number(process.env.BENCH_WARMUP ?? 2),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
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
  const r = await run(baseUrl, requests, opts.connections, opts.duration);
  return {
    p50: r.latency.p50,
    p99: r.latency.p99,
    rps: r.requests.total / opts.duration,
    requests: r.requests.total,
    failures: r.non2xx + r.errors + r.timeouts,
  };
}
