import t from 'tap';
import { getTableName, sql, type Table } from 'drizzle-orm';
import { systemActor, type RequestContext } from '../../../server/core/context.js';
import { runInTenant } from '../../../server/core/tenancy.js';
import { createCases } from '../../../server/cases/service.js';
import { LOOPBACK_STAND_INS, rowsOf } from '../../helpers.js';
import { incidentApp } from '../incidents/helpers.js';
import { smtpMailbox } from '../core/smtp-mailbox.js';
import { localServer, until } from '../workflows/receivers.js';

/**
 * The request context with its statements counted: every select, insert, update, delete and raw
 * statement on the transaction, every privileged step (the job queue's inserts), and the tables the
 * selects read from.
 */
function counted(ctx: RequestContext) {
  const seen = { statements: 0, reads: [] as string[] };
  const tx = new Proxy(ctx.tx, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      if (!['select', 'selectDistinct', 'insert', 'update', 'delete', 'execute'].includes(String(key))) return value.bind(target);
      return (...args: unknown[]) => {
        seen.statements++;
        const built = value.apply(target, args);
        if (key !== 'select' && key !== 'selectDistinct') return built;
        const from = built.from.bind(built);
        built.from = (table: unknown, ...rest: unknown[]) => {
          try {
            seen.reads.push(getTableName(table as Table));
          } catch {
            seen.reads.push('(subquery)');
          }
          return from(table, ...rest);
        };
        return built;
      };
    },
  });
  return { ctx: { ...ctx, tx, asSystem: (fn: Parameters<RequestContext['asSystem']>[0]) => (seen.statements++, ctx.asSystem(fn)) } as RequestContext, seen };
}

t.test('a batch of cases: each subscriber reads its configuration once, and every case still gets its webhook and notification', async (t) => {
  const mailbox = await smtpMailbox(t);
  const { app, api, projectId, drain } = await incidentApp(t, {
    JOB_POLL_SECONDS: '0.5',
    WEBHOOK_RETRY_SECONDS: '0',
    SMTP_URL: mailbox.url,
    ...LOOPBACK_STAND_INS,
  });
  const receiver = await localServer(t);
  t.equal((await api('POST', '/webhooks/endpoints', { url: `${receiver.url}/hooks`, events: ['case.created'] })).status, 201);
  const filter = await api('POST', '/search/filters', { name: 'Batch', expression: [{ field: 'title', op: 'ilike', value: '%batch%' }], subject: 'case' });
  t.equal(filter.status, 201);
  t.equal((await api('POST', '/notifications', { type: 'email', name: 'Batches', target: 'soc@example.com', filters: [filter.body.id] })).status, 201);

  const [org] = rowsOf(await app.db.execute(sql`select id from organizations where slug = 'default'`)) as { id: number }[];
  const create = (titles: string[]) =>
    runInTenant(app.db, app.config, systemActor({ orgId: Number(org!.id), orgSlug: 'default' }), async (ctx) => {
      const c = counted(ctx);
      const ids = await createCases(
        c.ctx,
        titles.map((title) => ({ title, project_id: projectId })),
      );
      return { ids, ...c.seen };
    });
  // The first event compiles the followed filter (its cache); the measured ones start warm.
  const warm = await create(['Warm-up batch']);
  const one = await create(['Batch of one']);
  const twelve = await create(Array.from({ length: 12 }, (_, i) => `Batch case ${i + 1}`));
  t.equal(twelve.ids.length, 12);
  const reads = (table: string, seen: { reads: string[] }) => seen.reads.filter((r) => r === table).length;
  t.equal(reads('webhook_endpoints', twelve), 1, 'the webhook endpoints are read once for the twelve cases');
  t.equal(reads('webhook_endpoints', one), 1);
  t.equal(twelve.statements, one.statements, `twelve cases take as many statements as one (${one.statements}): no listener reads or queues once per case`);

  const all = [...warm.ids, ...one.ids, ...twelve.ids];
  await drain();
  const hooks = await until('a webhook per case', () => {
    app.queue.notify('webhook-delivery');
    return receiver.received.length >= all.length && receiver.received;
  });
  await until('a notification per case', () => {
    app.queue.notify('notifications');
    return mailbox.received.length >= all.length;
  });
  const delivered = hooks.map((h) => JSON.parse(h.body) as { type: string; data: { id: number; title: string } });
  t.same(
    delivered.map((d) => d.data.id).sort((a, b) => a - b),
    [...all].sort((a, b) => a - b),
    'one case.created webhook per case, each carrying its own case',
  );
  t.ok(
    delivered.every((d) => d.type === 'case.created' && /batch/i.test(d.data.title)),
    'with its type and row',
  );
  const names = await Promise.all(all.map(async (id) => (await api('GET', `/cases/${id}`)).body.name as string));
  for (const name of names) {
    t.equal(mailbox.received.filter((m) => m.includes(`Subject: Case ${name} created`)).length, 1, `one mail for case ${name}`);
  }
  t.equal(mailbox.received.length, all.length, 'and no more');
});
