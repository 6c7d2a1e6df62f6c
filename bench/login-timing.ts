/**
 * How long a wrong-password sign-in takes for an account with a password, an account without one, and
 * an unknown e-mail (review F15: the answer's timing must not tell them apart). Embedded PGlite, through
 * app.inject; figures printed, never asserted. `npx tsx bench/login-timing.ts [rounds]` (default 25).
 */
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/core/config.js';
import { openDatabase } from '../server/core/db/client.js';
import { users } from '../server/schema.js';

const rounds = Math.min(Number(process.argv[2] ?? 25), 200);
const database = await openDatabase({ dataDir: 'memory://' });
const config = loadConfig({
  LOG_LEVEL: 'warn',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
  ADMIN_DIST: 'dist/no-admin-in-bench',
  FIREWATCH_ADMIN_EMAIL: 'owner@example.com',
  FIREWATCH_ADMIN_PASSWORD: 'the-owner-password',
  LOGIN_RATE_LIMIT: '100000',
});
const app = await buildApp({ config, database, mailer: async () => {} });
await database.db.insert(users).values({ email: 'no-password@example.com' });

const cases = {
  'account with a password': 'owner@example.com',
  'account without a password': 'no-password@example.com',
  'unknown e-mail': 'nobody@example.com',
};
const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
const login = (email: string) => app.inject({ method: 'POST', url: '/api/v1/default/auth/login', payload: { email, password: 'not-the-password' } });
for (const email of Object.values(cases)) await login(email); // warm-up (the dummy hash, statement plans)
// Interleaved, so a slow moment of the machine falls on every case alike.
for (let i = 0; i < rounds; i++) {
  for (const [name, email] of Object.entries(cases)) {
    const start = process.hrtime.bigint();
    const res = await login(email);
    times[name]!.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (res.statusCode !== 401) throw new Error(`${name}: expected 401, got ${res.statusCode}`);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`wrong-password sign-in, ${rounds} rounds, median ms`);
for (const [name, xs] of Object.entries(times)) console.log(`  ${name.padEnd(28)} ${median(xs).toFixed(1)}`);
await app.close();
await database.close();
