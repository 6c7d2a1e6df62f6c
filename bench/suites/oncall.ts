/**
 * Issue 37: 1,000 pages escalating at once. An organization with a two-step policy whose people are
 * reached by webhook (a local receiver records when each message arrives). PAGES pages are opened in
 * one transaction (their step 1 goes out at once), then all fall due for step 2 at the same moment, as
 * when one outage pages a thousand services and nobody answers within the timeout. Measured per page:
 * - notified: when its step-2 notification was written, minus its due time;
 * - delivered: when the receiver got the step-2 webhook, minus its due time.
 * The target: every page delivered within TARGET_S of its due time (the slowest one).
 *
 * The floor, in the same run and to the same receiver: the same step done by hand without the app, the
 * least any implementation must do. In one transaction it moves the floor's PAGES pages (made like the
 * app's) to step 2, records their notifications and writes their link tokens; then it POSTs the
 * webhooks FLOOR_PARALLEL at a time with fetch, and records them sent in one statement.
 */
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { randomBytes } from 'node:crypto';
import { sql as dsql } from 'drizzle-orm';
import { createOrganization } from '../../server/accounts/service.js';
import { users } from '../../server/schema.js';
import { systemActor } from '../../server/core/context.js';
import { runInTenant } from '../../server/core/tenancy.js';
import { enqueueJob } from '../../server/core/jobs/define.js';
import { escalateJob } from '../../server/oncall/escalation.js';
import { hashToken } from '../../server/oncall/delivery.js';
import { triggerPage } from '../../server/oncall/pages.js';
import { oncallChannels, oncallEscalationPolicies } from '../../server/oncall/tables.js';
import { projects } from '../../server/core/db/projects.js';
import { benchDatabaseUrl, connect, ensureDatabase } from '../lib/database.js';
import { startApp } from '../lib/server.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';

const PAGES = Number(process.env.BENCH_ONCALL_PAGES ?? 1000);
const TARGET_S = 5;
/** Seconds from the moment they are made due until they fall due: the wake-up job is queued for then. */
const LEAD_S = 3;
/** Webhooks the floor has in flight: as many as the app's two delivery workers (16 each). */
const FLOOR_PARALLEL = 32;

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function receiver() {
  const got = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { page: { id: number; step: number } };
      got.set(`${body.page.id}:${body.page.step}`, Date.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { got, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`, close: () => new Promise((r) => server.close(r)) };
}

async function waitFor(what: string, done: () => boolean, seconds = 300) {
  const until = Date.now() + seconds * 1000;
  while (!done()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function run(): Promise<{ passed: boolean }> {
  const url = benchDatabaseUrl();
  await ensureDatabase(url);
  const { app } = await startApp(url);
  const sql = connect(url, 2);
  const hook = await receiver();
  try {
    const email = `oncall-bench@${randomBytes(4).toString('hex')}.bench`;
    const [user] = await app.db.insert(users).values({ email }).returning();
    const org = await createOrganization(
      app.db,
      { name: 'On-call bench', description: 'on-call bench', slug: `bench-oncall-${randomBytes(4).toString('hex')}` },
      user!.id,
      14,
    );
    const tenant = <T>(fn: Parameters<typeof runInTenant<T>>[3]) => runInTenant(app.db, app.config, systemActor({ orgId: org.id, orgSlug: org.slug }), fn);
    let policyId = 0;
    const ids = await tenant(async (ctx) => {
      const [project] = await ctx.tx
        .select()
        .from(projects)
        .where(dsql`${projects.organization_id} = ${org.id}`)
        .limit(1);
      const [policy] = await ctx.tx
        .insert(oncallEscalationPolicies)
        .values({
          organization_id: org.id,
          name: 'Bench',
          steps: [
            { timeout_minutes: 5, targets: [{ type: 'person', email: 'first@bench.test' }] },
            { timeout_minutes: 5, targets: [{ type: 'person', email: 'second@bench.test' }] },
          ],
        })
        .returning();
      policyId = policy!.id;
      await ctx.tx
        .insert(oncallChannels)
        .values(['first@bench.test', 'second@bench.test'].map((e) => ({ organization_id: org.id, email: e, kind: 'webhook' as const, address: hook.url })));
      const out: number[] = [];
      for (let i = 0; i < PAGES; i++)
        out.push(
          (await triggerPage(ctx, { key: `bench-${i}`, title: `Service ${i} down`, escalation_policy_id: policy!.id, project_id: project?.id ?? null })).id,
        );
      return out;
    });
    await waitFor('step 1 of every page', () => ids.every((id) => hook.got.has(`${id}:0`)));

    // All fall due for step 2 at once; the wake-up job is queued for that moment, as a step's timeout queues it.
    const due = await tenant(async (ctx) => {
      const [row] = await sql`update oncall_pages set next_at = now() + make_interval(secs => ${LEAD_S}) where organization_id = ${org.id} returning next_at`;
      await enqueueJob(ctx, escalateJob, {}, { startAfterSeconds: LEAD_S });
      return new Date(row!.next_at as string).getTime();
    });
    await waitFor('step 2 of every page', () => ids.every((id) => hook.got.has(`${id}:1`)));
    const notified = (await sql`select extract(epoch from created_at) * 1000 as ms from oncall_notifications where organization_id = ${org.id} and step = 1`)
      .map((r) => Number(r.ms) - due)
      .sort((a, b) => a - b);
    const delivered = ids.map((id) => hook.got.get(`${id}:1`)! - due).sort((a, b) => a - b);
    const appLoad = loadavg()[0]!.toFixed(1);

    const floor = await floorRun(sql, org.id, policyId, hook);
    const row = (name: string, v: number[], load: string) => [
      name,
      v.length,
      (quantile(v, 0.5) / 1000).toFixed(2),
      (quantile(v, 0.95) / 1000).toFixed(2),
      (v.at(-1)! / 1000).toFixed(2),
      load,
    ];
    printTable(
      ['line', 'pages', 'p50 s', 'p95 s', 'max s', 'load'],
      [
        row('app: notified (step written)', notified, appLoad),
        row('app: delivered (webhook received)', delivered, appLoad),
        row('floor: step written (one transaction)', floor.written, floor.load),
        row('floor: delivered', floor.delivered, floor.load),
      ],
    );
    const ratio = (q: number) => (quantile(delivered, q) / Math.max(1, quantile(floor.delivered, q))).toFixed(1);
    console.log(
      `\napp / floor, delivered: p50 ${ratio(0.5)}×, p95 ${ratio(0.95)}×, max ${(delivered.at(-1)! / Math.max(1, floor.delivered.at(-1)!)).toFixed(1)}×`,
    );
    const passed = delivered.at(-1)! <= TARGET_S * 1000;
    console.log(`target: every page delivered within ${TARGET_S} s of its due time: ${passed ? 'met' : 'MISSED'}`);
    return { passed };
  } finally {
    await hook.close();
    await sql.end();
    await app.close();
  }
}

/** The floor (see the top): PAGES pages of the same policy, stepped and delivered by hand. */
async function floorRun(sql: ReturnType<typeof connect>, orgId: number, policyId: number, hook: Awaited<ReturnType<typeof receiver>>) {
  const run = randomBytes(4).toString('hex');
  const [policy] = await sql`select steps from oncall_escalation_policies where organization_id = ${orgId} and id = ${policyId}`;
  await sql`insert into oncall_pages (organization_id, key, title, escalation_policy_id, provider, steps, repeat, step, round, next_step, next_round, next_at)
    select ${orgId}, 'floor-' || ${run} || '-' || i, 'Service ' || i || ' down', ${policyId}, 'firewatch-oncall', ${sql.json(policy!.steps)}, 0, 0, 0, 1, 0, now() + interval '1 hour'
    from generate_series(1, ${PAGES}) i`;
  const [channel] = await sql`select id, address from oncall_channels where organization_id = ${orgId} and email = 'second@bench.test'`;
  const start = Date.now();
  const written: number[] = [];
  const messages = await sql.begin(async (tx) => {
    const pages = await tx`update oncall_pages set step = 1, next_step = null, next_round = null, next_at = null, updated_at = now()
      where organization_id = ${orgId} and key like ${`floor-${run}-%`} and state = 'triggered' returning id, key, title`;
    const notes = await tx`insert into oncall_notifications (organization_id, page_id, step, round, email, channel_id, kind, due_at)
      select ${orgId}, id, 1, 0, 'second@bench.test', ${channel!.id}, 'webhook', now() from unnest(${pages.map((p) => p.id as number)}::int[]) id returning id, page_id`;
    const tokens = notes.map(() => ({ acknowledge: randomBytes(24).toString('base64url'), resolve: randomBytes(24).toString('base64url') }));
    await tx`insert into oncall_page_tokens (organization_id, page_id, email, action, token_hash, expires_at)
      select ${orgId}, page_id, 'second@bench.test', action, hash, now() + interval '24 hours'
      from unnest(${notes.flatMap((n) => [n.page_id, n.page_id])}::int[], ${notes.flatMap(() => ['acknowledge', 'resolve'])}::text[],
        ${tokens.flatMap((t) => [hashToken(t.acknowledge), hashToken(t.resolve)])}::text[]) as x(page_id, action, hash)`;
    const byId = new Map(pages.map((p) => [p.id as number, p]));
    return notes.map((n, i) => ({ id: n.id as number, page: byId.get(n.page_id as number)!, links: tokens[i]! }));
  });
  const committed = Date.now() - start;
  for (let i = 0; i < messages.length; i++) written.push(committed);
  let next = 0;
  const lane = async () => {
    while (next < messages.length) {
      const m = messages[next++]!;
      const res = await fetch(channel!.address as string, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'page.triggered',
          page: { id: m.page.id, key: m.page.key, title: m.page.title, state: 'triggered', step: 1 },
          links: m.links,
        }),
      });
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: FLOOR_PARALLEL }, lane));
  await sql`update oncall_notifications set status = 'sent', sent_at = now(), updated_at = now() where organization_id = ${orgId} and id = any(${messages.map((m) => m.id)}::int[])`;
  const delivered = messages.map((m) => hook.got.get(`${m.page.id}:1`)! - start).sort((a, b) => a - b);
  return { written, delivered, load: loadavg()[0]!.toFixed(1) };
}

const suite: Suite = { name: 'oncall', description: `${PAGES} pages fall due for their second step at once; each notified within ${TARGET_S} s`, run };
export default suite;
