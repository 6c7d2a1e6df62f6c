import { systemActor } from '../../../server/core/context.js';
import t, { type Test } from 'tap';
import { incidentApp } from '../incidents/helpers.js';
import { smtpMailbox } from '../core/smtp-mailbox.js';
import { localServer, until } from '../workflows/receivers.js';
import { sql } from 'drizzle-orm';
import { LOOPBACK_STAND_INS, rowsOf } from '../../helpers.js';
import { sendDailyReports } from '../../../server/notifications/dispatch.js';
import { created } from '../factories.js';

async function setup(t: Test) {
  const mailbox = await smtpMailbox(t);
  const base = await incidentApp(t, { JOB_POLL_SECONDS: '0.5', SMTP_URL: mailbox.url, ...LOOPBACK_STAND_INS });
  const filter = async (name: string, expression: unknown, subject = 'incident', api = base.api) => {
    return created('filter', await api('POST', '/search/filters', { name, expression, subject })).id as number;
  };
  const notification = async (body: Record<string, unknown>, api = base.api) => {
    return created('notification', await api('POST', '/notifications', { type: 'email', ...body })) as Record<string, any>;
  };
  /** Waits until the notification queue has nothing left to run. */
  const settled = () =>
    until('notifications to be sent', async () => {
      base.app.queue.notify('notifications');
      const counts = await base.app.queue.countJobs('notifications');
      return counts.created + counts.retry + counts.active === 0;
    });
  return { ...base, mailbox, filter, notification, settled };
}

t.test('a notification with two matching filters sends once; a non-matching change sends nothing', async (t) => {
  const { api, createIncident, filter, notification, mailbox, settled } = await setup(t);
  const database = await filter('Database', [{ field: 'title', op: 'ilike', value: '%database%' }]);
  const active = await filter('Active', [{ field: 'status', op: '==', value: 'Active' }]);
  const closed = await filter('Closed', [{ field: 'status', op: '==', value: 'Closed' }]);
  await notification({ name: 'DB on-call', target: 'dba@example.com', filters: [database, active] });
  await notification({ name: 'Closures', target: 'closures@example.com', filters: [closed] });

  const incident = await createIncident({ title: 'Database down' });
  await settled();
  await until('the mail', () => mailbox.received.length >= 1);
  await settled();
  t.equal(mailbox.received.length, 1, 'one mail although both filters match');
  t.match(mailbox.received[0], /To: dba@example.com/);
  t.match(mailbox.received[0], new RegExp(`Subject: Incident ${incident.name} created: Database down`));
  t.match(mailbox.received[0], /Matched: Active, Database/);

  const unrelated = await createIncident({ title: 'Checkout slow' });
  await settled();
  t.equal(mailbox.received.length, 2, 'an active incident matches the Active filter');
  const changed = await api('PUT', `/iaos/${unrelated.id}`, { description: 'Only the description changes.' });
  t.equal(changed.status, 200);
  await settled();
  t.equal(mailbox.received.length, 3, 'a change to a matching incident sends again');

  const edited = await api('PUT', `/search/filters/${active}`, { expression: [{ field: 'status', op: '==', value: 'Stable' }] });
  t.equal(edited.status, 200);
  const plain = await createIncident({ title: 'Checkout down' });
  await settled();
  t.equal(mailbox.received.length, 3, 'the edited filter (recompiled) no longer matches: nothing sent');
  t.notOk(
    mailbox.received.some((m) => m.includes('closures@example.com')),
    'the non-matching notification never sent',
  );

  const disabled = await api('PUT', `/notifications/${(await api('GET', '/notifications?q=DB')).body.items[0].id}`, { enabled: false });
  t.equal(disabled.status, 200);
  await api('PUT', `/iaos/${incident.id}`, { description: 'Still down.' });
  await settled();
  t.equal(mailbox.received.length, 3, 'a disabled notification sends nothing');
  t.ok(plain.id);
});

t.test('cases notify too, through a Slack-compatible conversation plugin', async (t) => {
  const { api, projectId, filter, notification, settled } = await setup(t);
  const peer = await localServer(t);
  const plugin = await api('POST', '/plugins/instances', {
    plugin_slug: 'slack-webhook',
    title: 'Security chat',
    configuration: { webhook_url: `${peer.url}/services/T1/B1/x` },
    project_id: projectId,
  });
  t.equal(plugin.status, 201);
  const phishing = await filter('Phishing', [{ field: 'title', op: 'ilike', value: '%phish%' }], 'case');
  await notification({ name: 'Security', type: 'conversation', target: 'Security chat', filters: [phishing] });
  const kase = await api('POST', '/cases', { title: 'Phishing mail reported', project_id: projectId });
  t.equal(kase.status, 201, JSON.stringify(kase.body));
  await api('POST', '/cases', { title: 'Laptop lost', project_id: projectId });
  await settled();
  await until('the Slack message', () => peer.received.length >= 1);
  await settled();
  t.equal(peer.received.length, 1, 'only the matching case is posted');
  t.match(JSON.parse(peer.received[0]!.body).text, new RegExp(`Case ${kase.body.name} "Phishing mail reported" was created`));
});

t.test("other organizations' filters never fire", async (t) => {
  const { api, request, organization, createIncident, filter, notification, mailbox, settled } = await setup(t);
  const acme = await organization('acme');
  const acmeApi = (method: string, path: string, payload?: unknown) =>
    request({ method: method as never, url: `/api/v1/acme${path}`, token: acme.token, ...(payload !== undefined ? { payload: payload as never } : {}) });
  const acmeEverything = await filter('Everything', [{ field: 'id', op: '>', value: 0 }], 'incident', acmeApi);
  await notification({ name: 'Acme all', target: 'acme@example.com', filters: [acmeEverything] }, acmeApi);
  const stolen = await api('POST', '/notifications', { name: 'Thief', target: 'thief@example.com', filters: [acmeEverything] });
  t.equal(stolen.status, 422, "a notification cannot follow another organization's filter");
  const ours = await filter('Redis', [{ field: 'title', op: 'ilike', value: 'redis%' }]);
  await notification({ name: 'Ours', target: 'ours@example.com', filters: [ours] });

  await createIncident({ title: 'Checkout down' });
  await settled();
  t.equal(mailbox.received.length, 0, "acme's match-everything filter did not fire for the default organization");

  const acmeProject = await acmeApi('POST', '/projects', { name: 'Acme ops', annual_employee_cost: 1, business_year_hours: 2080 });
  t.equal(acmeProject.status, 201);
  const acmeIncident = await acmeApi('POST', '/iaos', { title: 'Redis down at acme', project_id: acmeProject.body.id });
  t.equal(acmeIncident.status, 201);
  await settled();
  await until('the acme mail', () => mailbox.received.length >= 1);
  await settled();
  t.equal(mailbox.received.length, 1, 'only acme was notified of its own incident');
  t.match(mailbox.received[0], /To: acme@example.com/);
});

t.test('the filter preview counts what matched over the last 30 days', async (t) => {
  const { api, createIncident, database } = await setup(t);
  for (const title of ['Redis down', 'Redis slow', 'Checkout down']) await createIncident({ title });
  const old = await createIncident({ title: 'Redis ancient' });
  await database.db.execute(sql`update incidents set reported_at = now() - interval '40 days' where id = ${old.id}`);
  const res = await api('POST', '/search/filters/preview', { subject: 'incident', expression: [{ field: 'title', op: 'ilike', value: 'redis%' }] });
  t.equal(res.status, 200, JSON.stringify(res.body));
  t.equal(res.body.total, 2, 'two in the last 30 days; the 40-day-old one is not counted');
  t.same(res.body.items.map((i: any) => i.title).sort(), ['Redis down', 'Redis slow']);
  const saved = await api('POST', '/search/filters', { name: 'Down', expression: [{ field: 'title', op: 'ilike', value: '%down' }] });
  const byId = await api('GET', `/search/filters/${saved.body.id}/preview`);
  t.equal(byId.body.total, 2);
  const bad = await api('POST', '/search/filters/preview', { expression: [{ field: 'nope', op: '==', value: 1 }] });
  t.equal(bad.status, 422);
  t.equal(bad.body.detail[0].loc[1], 'expression');
  t.equal((await api('GET', '/search/filters/999999/preview')).status, 404);
});

t.test('the preview leaves out restricted incidents the caller cannot open', async (t) => {
  const { api, login, createIncident } = await setup(t);
  await createIncident({ title: 'Redis down' });
  await createIncident({ title: 'Redis breach', visibility: 'Restricted' });
  const member = await login('member@example.com', { role: 'Member' });
  const expression = [{ field: 'title', op: 'ilike', value: 'redis%' }];
  t.equal((await api('POST', '/search/filters/preview', { expression })).body.total, 2, 'the commander sees both');
  const asMember = await api('POST', '/search/filters/preview', { expression }, member);
  t.equal(asMember.status, 200);
  t.equal(asMember.body.total, 1, 'a member outside it does not count the restricted one');
  t.same(
    asMember.body.items.map((i: any) => i.title),
    ['Redis down'],
  );
});

t.test('the daily report sends each notification its last 24 hours once', async (t) => {
  const { app, createIncident, filter, notification, mailbox, settled } = await setup(t);
  await createIncident({ title: 'Redis down' });
  await createIncident({ title: 'Checkout down' });
  await settled();
  const redis = await filter('Redis', [{ field: 'title', op: 'ilike', value: 'redis%' }]);
  const down = await filter('Down', [{ field: 'title', op: 'ilike', value: '%down' }]);
  await notification({ name: 'Daily', target: 'daily@example.com', filters: [redis, down] });
  await notification({ name: 'Nothing', target: 'none@example.com', filters: [await filter('None', [{ field: 'title', op: '==', value: 'no such' }])] });
  const before = mailbox.received.length;
  t.equal(await sendDailyReports(app, app.mailer), 1, 'one report: the notification with matches');
  await until('the report', () => mailbox.received.length > before);
  const report = mailbox.received.at(-1)!;
  t.match(report, /To: daily@example.com/);
  t.match(report, /Daily: 2 matched in the last 24 hours/);
});

t.test('a filter evaluated in memory matches exactly the rows its SQL matches', async (t) => {
  const { app, api, createIncident } = await setup(t);
  const type = await api('POST', '/tag_types', { name: 'Layer' });
  t.equal(type.status, 201, JSON.stringify(type.body));
  const other = await api('POST', '/tag_types', { name: 'Urgency' });
  const tag = async (name: string, tag_type_id: number) => {
    const res = await api('POST', '/tags', { name, tag_type_id });
    t.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id as number;
  };
  const redisTag = await tag('Redis', type.body.id);
  const cacheTag = await tag('cache-layer', type.body.id);
  const urgent = await tag('urgent', other.body.id);
  const made = [
    await createIncident({ title: 'Redis 50% down', tags: [redisTag, urgent] }),
    await createIncident({ title: 'redis slow', tags: [cacheTag] }),
    await createIncident({ title: 'cache_miss storm' }),
  ];
  const stable = await api('PUT', `/iaos/${made[1]!.id}`, { status: 'Stable' });
  t.equal(stable.status, 200);
  const expressions: unknown[] = [
    [{ field: 'title', op: 'ilike', value: 'redis%' }],
    [{ field: 'title', op: 'like', value: 'Redis 50\\% %' }],
    [{ field: 'title', op: 'ilike', value: '%CACHE\\_miss%' }],
    [{ field: 'title', op: 'not_ilike', value: '%storm%' }],
    // Unanchored and anchored ends, doubled and escaped wildcards, the match-anything pattern.
    [{ field: 'title', op: 'ilike', value: '%50\\% DOWN' }],
    [{ field: 'title', op: 'ilike', value: '%%slow' }],
    [{ field: 'title', op: 'like', value: 'redis_slow' }],
    [{ field: 'title', op: 'ilike', value: '%' }],
    [{ field: 'title', op: 'ilike', value: 'r%s%' }],
    [{ field: 'title', op: 'not_ilike', value: '%\\_%' }],
    [{ field: 'stable_at', op: 'is_null' }],
    [{ field: 'stable_at', op: '>', value: '2000-01-01T00:00:00Z' }],
    { not: [{ field: 'stable_at', op: '>', value: '2000-01-01T00:00:00Z' }] },
    [{ field: 'status', op: 'in', value: ['Stable', 'Closed'] }],
    [{ field: 'status', op: 'not_in', value: ['Stable'] }],
    [{ field: 'incident_priority_id', op: 'not_in', value: [1] }],
    [{ field: 'commander_email', op: '!=', value: 'someone@example.com' }],
    [{ field: 'id', op: '>=', value: made[1]!.id }],
    [{ field: 'reported_at', op: '>', value: '2000-01-01T00:00:00Z' }],
    {
      or: [
        { field: 'stable_at', op: 'is_not_null' },
        { field: 'title', op: '==', value: 'cache_miss storm' },
      ],
    },
    {
      or: [
        { field: 'title', op: 'ilike', value: '%storm' },
        { field: 'incident_type_id', op: '==', value: 1 },
      ],
    },
    // The record's tags, read with its row.
    [{ model: 'Tag', field: 'name', op: '==', value: 'Redis' }],
    [{ model: 'Tag', field: 'name', op: '==', value: 'redis' }],
    [{ model: 'Tag', field: 'name', op: 'ilike', value: '%CACHE%' }],
    [{ model: 'Tag', field: 'name', op: 'in', value: ['urgent', 'none'] }],
    [{ model: 'Tag', field: 'id', op: 'in', value: [cacheTag, urgent] }],
    [{ model: 'TagType', field: 'name', op: '==', value: 'Layer' }],
    { not: [{ model: 'TagType', field: 'name', op: 'in', value: ['Layer'] }] },
    {
      or: [
        { model: 'Tag', field: 'id', op: '==', value: redisTag },
        { field: 'title', op: 'ilike', value: '%storm' },
      ],
    },
    // A computed field: evaluated in SQL, in the same statement.
    [
      { field: 'incident_type_name', op: 'is_null' },
      { field: 'title', op: 'ilike', value: 'redis%' },
    ],
  ];
  const { matchRecord } = await import('../../../server/notifications/matching.js');
  const { runInTenant } = await import('../../../server/core/tenancy.js');
  const [org] = rowsOf(await app.db.execute(sql`select id from organizations where slug = 'default'`)) as { id: number }[];
  const filters = expressions.map((expression, i) => ({ id: 900_000 + i, subject: 'incident' as const, expression, updated_at: new Date() }));
  const inMemory = new Map<number, Set<number>>(filters.map((f) => [f.id, new Set()]));
  for (const incident of made) {
    const result = await runInTenant(app.db, app.config, systemActor({ orgId: Number(org!.id), orgSlug: 'default' }), (ctx) =>
      matchRecord(ctx, 'incident', incident.id, filters),
    );
    for (const id of result!.matched) inMemory.get(id)!.add(incident.id);
  }
  for (const [i, expression] of expressions.entries()) {
    const bySql = await api('POST', '/search/filters/preview', { subject: 'incident', expression });
    t.equal(bySql.status, 200, JSON.stringify(bySql.body));
    t.same([...inMemory.get(900_000 + i)!].sort(), bySql.body.items.map((r: any) => r.id).sort(), `same rows: ${JSON.stringify(expression)}`);
  }
});
