import type { Test } from 'tap';
import { sql } from 'drizzle-orm';
import { incidentApp } from '../incidents/helpers.js';
import { drainJobs } from '../../../server/core/jobs/define.js';
import { systemActor, type RequestContext } from '../../../server/core/context.js';
import { runInTenant } from '../../../server/core/tenancy.js';
import { LOOPBACK_STAND_INS, rowsOf } from '../../helpers.js';
import type { FastifyInstance } from 'fastify';

const QUEUES = ['oncall-escalate', 'oncall-deliver', 'oncall-external-page', 'oncall-external-resolve', 'oncall-case-paging'];

/** An incident app with on-call shortcuts: a weekly schedule, a two-step policy, a service on it. */
export async function oncallApp(t: Test, env: Record<string, string> = {}) {
  // The services' stand-ins listen on 127.0.0.1.
  const base = await incidentApp(t, { ...LOOPBACK_STAND_INS, ...env });
  const ok = async (method: string, path: string, body?: unknown, status = [200, 201]) => {
    const res = await base.api(method, path, body);
    if (!status.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const orgId = (await base.api('GET', '/organizations')).body.items.find((o: any) => o.slug === 'default').id as number;
  const tenantOf =
    (app: FastifyInstance) =>
    <T>(fn: (ctx: RequestContext) => Promise<T>) =>
      runInTenant(app.db, app.config, systemActor({ orgId, orgSlug: 'default' }), fn);
  /** Runs a statement on the privileged connection (moving a page's due time: the clock, not the code, is what a test cannot wait for). */
  const exec = async <T = Record<string, unknown>>(q: ReturnType<typeof sql>) => rowsOf<T>(await base.database.db.execute(q));
  /** Waits until no on-call job that is due now waits or runs (those queued for later, a step's timeout, stay). */
  const drainOncall = async () => {
    await drainJobs(base.app);
    for (let i = 0; i < 600; i++) {
      const [due] = await exec<{
        n: number;
        failed: number;
      }>(sql`select count(*) filter (where state in ('created', 'retry', 'active') and start_after <= now())::int as n,
          count(*) filter (where state = 'failed')::int as failed
        from pgboss.job where name like 'oncall-%'`);
      if (due!.failed) throw new Error(`${due!.failed} on-call job(s) failed`);
      if (!due!.n) return;
      for (const name of QUEUES) base.app.queue.notify(name);
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('on-call jobs still pending after 30 s');
  };
  const weekly = (members: string[]) => ({
    name: 'Primary',
    time_zone: 'Europe/Berlin',
    layers: [{ name: 'Weekly', start: '2020-01-06T09:00', rotation: 'weekly', length: 1, members }],
  });
  return { ...base, ok, orgId, tenantOf, exec, drainOncall, weekly };
}

/** The acknowledge and resolve links of a page mail. */
export const linksOf = (text: string) => ({
  acknowledge: /Acknowledge: (\S+)/.exec(text)?.[1] ?? '',
  resolve: /Resolve: (\S+)/.exec(text)?.[1] ?? '',
});
export const pathOf = (url: string) => new URL(url).pathname;
