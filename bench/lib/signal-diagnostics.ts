import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { groupCommitTimings, reserveTimings, type GroupCommitTiming } from '../../server/signals/ingest.js';
import { batchTimings, type BatchTiming } from '../../server/signals/process.js';

/** An interval on the epoch clock (ms), so worker threads' times (another performance.timeOrigin) compare. */
interface Span {
  start: number;
  end: number;
}

const epoch = (t: number) => performance.timeOrigin + t;
const overlaps = (a: Span, spans: Span[]) => spans.some((b) => b.start < a.end && a.start < b.end);
const pct = (values: number[], q: number) => {
  const s = [...values].sort((x, y) => x - y);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN;
};
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');

/** The event loop blocked this long (ms) or more counts as a stall. */
const STALL_MS = 10;

/**
 * Where an accept's latency goes, while the app is under load: event-loop delay, stalls (the loop
 * blocked ≥ STALL_MS) and whether they fell inside a processing transaction, each group commit's
 * queue wait and statement time, and the processor's transactions. `report` then places the slow
 * accepts (their scheduled send and answer, from bench/lib/paced.ts) among those.
 */
export function diagnose() {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const commits: (GroupCommitTiming & Span)[] = [];
  const batches: (BatchTiming & Span)[] = [];
  const stalls: Span[] = [];
  const reserves: Span[] = [];
  const onReserve = (m: unknown) => {
    const r = m as Span;
    reserves.push({ start: epoch(r.start), end: epoch(r.end) });
  };
  subscribe(reserveTimings.name, onReserve);
  const onCommit = (m: unknown) => {
    const c = m as GroupCommitTiming;
    commits.push({ ...c, start: epoch(c.start), end: epoch(c.end) });
  };
  const onBatch = (m: unknown) => {
    const b = m as BatchTiming;
    batches.push({ ...b, start: epoch(b.start), end: epoch(b.end) });
  };
  subscribe(groupCommitTimings.name, onCommit);
  subscribe(batchTimings.name, onBatch);
  let last = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    if (now - last >= STALL_MS) stalls.push({ start: epoch(last), end: epoch(now) });
    last = now;
  }, 1);
  const started = Date.now();

  return {
    /** One line of findings; `slow` are the accepts over the target (epoch ms, from their scheduled send). */
    report(slow: Span[]): string {
      clearInterval(tick);
      delay.disable();
      unsubscribe(groupCommitTimings.name, onCommit);
      unsubscribe(batchTimings.name, onBatch);
      unsubscribe(reserveTimings.name, onReserve);
      const seconds = (Date.now() - started) / 1000;
      const busy = batches.reduce((s, b) => s + (b.end - b.start), 0);
      const statement = commits.map((c) => c.end - c.start);
      const slowCommits = commits.filter((c) => c.end - c.start > 30);
      return [
        `event loop delay p50 ${ms(delay.percentile(50) / 1e6)} p99 ${ms(delay.percentile(99) / 1e6)} max ${ms(delay.max / 1e6)} ms`,
        `stalls ≥ ${STALL_MS} ms: ${stalls.length} (${ms(stalls.reduce((s, x) => s + x.end - x.start, 0))} ms, ${stalls.filter((s) => overlaps(s, batches)).length} during processing)`,
        `group commits: ${commits.length}, ${(commits.reduce((s, c) => s + c.rows, 0) / Math.max(1, commits.length)).toFixed(1)} rows, statement p50 ${ms(pct(statement, 0.5))} p99 ${ms(pct(statement, 0.99))} max ${ms(Math.max(...statement))} ms, queued p99 ${ms(
          pct(
            commits.map((c) => c.waited),
            0.99,
          ),
        )} ms; ${slowCommits.length} over 30 ms (${slowCommits.filter((c) => overlaps(c, batches)).length} during processing)`,
        `processing: ${batches.length} transactions, ${(batches.reduce((s, b) => s + b.instances, 0) / Math.max(1, batches.length)).toFixed(0)} instances each, p50 ${ms(
          pct(
            batches.map((b) => b.end - b.start),
            0.5,
          ),
        )} max ${ms(Math.max(...batches.map((b) => b.end - b.start)))} ms, running ${((busy / 1000 / seconds) * 100).toFixed(0)}% of the time (both partitions summed)`,
        `rate-bucket reservations: ${reserves.length}, p50 ${ms(
          pct(
            reserves.map((r) => r.end - r.start),
            0.5,
          ),
        )} max ${ms(Math.max(...reserves.map((r) => r.end - r.start)))} ms`,
        `slow accepts: ${slow.length}, during processing ${slow.filter((s) => overlaps(s, batches)).length}, with a stall ${slow.filter((s) => overlaps(s, stalls)).length}, with a commit over 30 ms ${slow.filter((s) => overlaps(s, slowCommits)).length}, with a reservation ${slow.filter((s) => overlaps(s, reserves)).length}`,
      ].join('; ');
    },
  };
}
