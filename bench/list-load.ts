/**
 * The incident list through the real app alone (no floor), for comparing two versions of the code in
 * alternating runs on a busy machine, where the incidents suite's floor ratio is noise:
 *
 *   BENCH_DATABASE_URL=... npx tsx bench/list-load.ts            # req/s, p99, the process's CPU per request
 *   BENCH_PROFILE=/tmp/list.cpuprofile npx tsx bench/list-load.ts  # also a CPU profile of the load only
 *
 * Needs the incidents suite's seed. The same 40 requests as the suite's list scenario (a Member of each
 * bench organization, pages 1 to 4 of the client's default query), BENCH_CONNECTIONS at a time for
 * BENCH_DURATION seconds after a 2 s warm-up; the CPU figure includes the load generator's thread.
 */
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { startSession } from '../server/core/sessions.js';
import { benchDatabaseUrl, connect } from './lib/database.js';
import { summarize } from './lib/cpu-profile.js';
import { defaultLoad, load } from './lib/load.js';
import { startApp } from './lib/server.js';

const url = benchDatabaseUrl();
const { app, baseUrl } = await startApp(url);
const sql = connect(url, 1);
const orgs = await sql`
  select o.slug, u.id as "userId", u.email from organizations o join users u on u.email = 'responder@' || o.slug || '.bench'
  where o.slug like 'bench-%' order by o.slug`;
if (!orgs.length) throw new Error('No bench organizations: run `npm run bench -- incidents` once to seed them.');
const tokens = await Promise.all(orgs.map((o) => startSession(app, { id: o.userId as number, email: o.email as string }, '1h')));
const since = new Date(Date.now() - 365 * 86400_000).toISOString().slice(0, 10);
const status = (value: string) => ({ model: 'Incident', field: 'status', op: '==', value });
const filter = encodeURIComponent(
  JSON.stringify({ and: [{ or: [status('Active'), status('Stable')] }, { model: 'Incident', field: 'reported_at', op: '>=', value: since }] }),
);
const requests = Array.from({ length: 40 }, (_, k) => ({
  path: `/api/v1/${orgs[k % orgs.length]!.slug}/iaos?page=${1 + (k % 4)}&itemsPerPage=25&sortBy[]=reported_at&descending[]=true&filter=${filter}`,
  headers: { authorization: `Bearer ${tokens[k % orgs.length]}` },
}));
const opts = { ...defaultLoad(), rounds: 1 };
// The warm-up apart, so a profile covers the measured seconds only.
await load(baseUrl, requests, { ...opts, duration: opts.warmup || 2, warmup: 0 });
const profileTo = process.env.BENCH_PROFILE;
const session = profileTo ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const cpu0 = process.cpuUsage();
const result = await load(baseUrl, requests, { ...opts, warmup: 0 });
const cpu = process.cpuUsage(cpu0);
console.log(
  `list: ${result.rps.toFixed(0)} req/s, p99 ${result.p99} ms, node ${((cpu.user + cpu.system) / 1000 / result.requests).toFixed(2)} ms/req, ${result.failures} failures; load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
if (session && profileTo) {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(profileTo, JSON.stringify(profile));
  summarize(profile as never, 40);
}
await app.close();
await sql.end();
process.exit(0);
