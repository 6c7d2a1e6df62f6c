import { and, eq, sql } from 'drizzle-orm';
import tap from 'tap';
import { openDatabase, rowsOf, type Db } from '../../../server/core/db/client.js';
import { importDispatch } from '../../../server/import/dispatch/run.js';
import { decryptSecret, loadSecretKeys } from '../../../server/plugins/secrets.js';
import { incidents, organizations, pluginInstances, signalInstances } from '../../../server/schema.js';
import { testApp } from '../../helpers.js';
import { dispatchSource } from './dispatch-source.js';

// The Dispatch source is always PostgreSQL; Firewatch (DATABASE_URL) is PostgreSQL or, unset, PGlite.
const base = process.env.DISPATCH_SOURCE_URL || process.env.DATABASE_URL;
const skip = base ? false : 'the Dispatch source is a PostgreSQL database: set DISPATCH_SOURCE_URL or DATABASE_URL to run these tests';
const options = { dryRun: false, signalsDays: 30, trialDays: 14 };

async function orgId(db: Db, slug: string) {
  const [org] = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.slug, slug));
  return org?.id;
}

async function run(db: Db, src: Parameters<typeof importDispatch>[1], extra: Partial<typeof options & { dispatchKey: string }> = {}) {
  await loadSecretKeys(db, 'test-secrets-key-test-secrets-key-42');
  return importDispatch(db, src, { ...options, ...extra });
}

tap.test('a dry run reports what it would create and what it cannot map, and writes nothing', { skip }, async (t) => {
  const { database } = await testApp(t);
  const { src } = await dispatchSource(t, base!);
  const report = await run(database.db, src, { dryRun: true });
  t.match(report.of('default', 'incident'), { source: 3, created: 3, skipped: 0 });
  t.match(report.of('default', 'event'), { source: 5, created: 4, skipped: 1 });
  t.match(report.of('acme', 'organization'), { created: 1 });
  t.match(report.of('acme', 'incident'), { source: 2, created: 1, skipped: 1 });
  const reasons = report.skipped.map((s) => `${s.organization} ${s.kind} ${s.id}: ${s.reason}`);
  t.ok(reasons.includes("acme incident 2: its status 'Paused' is not Active, Stable or Closed"));
  t.ok(reasons.includes("acme incident_participant_role 2: the role 'Chief Wizard' has no Firewatch counterpart"));
  t.ok(reasons.includes("acme membership carol@acme.example: the role 'Superhero' is not Owner, Manager, Admin or Member"));
  t.ok(reasons.some((r) => r.startsWith('default event 5: an event of signal 1')));
  t.match(report.of('default', 'search_filter'), { source: 3, created: 2, skipped: 1 });
  t.match(report.of('default', 'notification'), { source: 3, created: 2, skipped: 1 });
  t.match(report.of('default', 'report'), { source: 3, created: 2, skipped: 1 });
  t.ok(reasons.includes("default search_filter 3: its subject 'signal' is not incident or case"));
  t.ok(reasons.includes("default notification 3: its type 'sms' is not conversation or email"));
  t.ok(reasons.includes("default report 3: its type 'Weekly Report' is not Tactical Report or Executive Report"));
  t.match(report.toText(), /Not imported yet \(no Firewatch counterpart\): case_cost, /);
  t.equal(await orgId(database.db, 'acme'), undefined, 'no organization was created');
  t.same(await database.db.select().from(incidents), [], 'no incident was written');
});

tap.test('an imported incident reads through /iaos/{name} with its people, roles and original timeline', { skip }, async (t) => {
  const app = await testApp(t);
  const { src } = await dispatchSource(t, base!);
  await run(app.database.db, src);
  const token = await app.login('zed@example.com', { role: 'Admin' });
  const res = await app.request({ method: 'GET', url: '/api/v1/default/iaos/dispatch-default-default-1', token });
  t.equal(res.status, 200);
  const incident = res.body;
  t.match(incident, {
    title: 'Checkout is failing',
    status: 'Stable',
    visibility: 'Open',
    reported_at: '2024-03-01T10:00:00.000Z',
    stable_at: '2024-03-01T12:30:00.000Z',
  });
  t.match(incident, {
    incident_priority_name: 'High',
    incident_severity_name: 'Major',
    incident_type_name: 'Outage',
    commander_email: 'alice@example.com',
    reporter_email: 'bob@example.com',
  });
  const people = Object.fromEntries(
    incident.participants.map((p: { email: string; roles: { role: string; status: string }[] }) => [p.email, p.roles.map((r) => `${r.role}:${r.status}`)]),
  );
  t.same(people, {
    'alice@example.com': ['commander:Active'],
    'bob@example.com': ['reporter:Active'],
    'dana@example.com': ['scribe:Inactive', 'participant:Active'],
  });
  t.same(
    incident.events.map((e: { started_at: string; source: string; description: string; pinned: boolean }) => [e.started_at, e.source, e.description, e.pinned]),
    [
      ['2024-03-01T10:00:00.000Z', 'Incident Participant', 'Incident created', false],
      ['2024-03-01T10:15:00.000Z', 'Slack Plugin - Conversation Management', 'Rolled back deploy 118', true],
      ['2024-03-01T12:30:00.000Z', 'Dispatch Core App', 'Incident marked as Stable', false],
    ],
  );
  t.same(
    incident.tasks.map((x: { description: string; status: string; assignees: string[] }) => [x.description, x.status, x.assignees]),
    [
      ['Write the root cause analysis', 'Open', ['dana@example.com']],
      ['Add an alert on payment errors', 'Resolved', ['bob@example.com']],
    ],
  );
  t.match(incident.ticket, { name: 'PAY-42', weblink: 'https://jira.example.com/browse/PAY-42' });
  t.match(incident.storage, { weblink: 'https://drive.example.com/folder-1' });
  t.equal(incident.conference_url, 'https://zoom.example.com/j/1');
  t.same(
    incident.postmortems.map((d: { name: string }) => d.name),
    ['Checkout review'],
  );
  t.same(
    incident.tags.map((x: { name: string }) => x.name),
    ['checkout'],
  );
  t.same(
    incident.incident_costs.map((c: { amount: number }) => Number(c.amount)),
    [12500.5],
  );
  const escalated = await app.request({ method: 'GET', url: '/api/v1/default/iaos/dispatch-default-default-3', token });
  t.same(
    escalated.body.cases.map((c: { name: string }) => c.name),
    ['dispatch-default-default-case-1'],
    'the case escalated to it',
  );
});

tap.test('saved filters, who follows them, notifications and reports come across and work in Firewatch', { skip }, async (t) => {
  const app = await testApp(t);
  const { src } = await dispatchSource(t, base!);
  await run(app.database.db, src);
  const token = await app.login('zed@example.com', { role: 'Admin' });
  const get = async (path: string) => {
    const res = await app.request({ method: 'GET', url: `/api/v1/default${path}`, token });
    t.equal(res.status, 200, `GET ${path}`);
    return res.body.items as Record<string, unknown>[];
  };
  const filters = await get('/search/filters?itemsPerPage=50');
  t.same(
    filters.map((f) => [f.name, f.subject, f.enabled]).sort(),
    [
      ['Open phishing cases', 'case', false],
      ['Security incidents', 'incident', true],
    ],
    'two filters; the one over signals is left out',
  );
  const security = filters.find((f) => f.name === 'Security incidents')!;
  t.same(security.expression, [{ and: [{ model: 'IncidentType', field: 'name', op: '==', value: 'Security' }] }], 'the expression as Dispatch saved it');
  for (const f of filters) {
    const preview = await app.request({
      method: 'POST',
      url: '/api/v1/default/search/filters/preview',
      token,
      body: { subject: f.subject, expression: f.expression },
    });
    t.equal(preview.status, 200, `Firewatch's filter grammar takes '${String(f.name)}'`);
  }
  const byName = (items: Record<string, unknown>[], key = 'name') => Object.fromEntries(items.map((i) => [i[key], i]));
  const notifications = byName(await get('/notifications?itemsPerPage=50'));
  t.same(Object.keys(notifications).sort(), ['Executives', 'Security channel'], 'the SMS one is left out');
  t.match(notifications['Security channel'], {
    type: 'conversation',
    target: 'security-incidents',
    enabled: true,
    evergreen: true,
    evergreen_owner: 'alice@example.com',
    evergreen_reminder_interval: 30,
  });
  // The API names the filters an object follows ({id, name}).
  const followed = (o: Record<string, unknown> | undefined) => (o!.filters as { name: string }[]).map((f) => f.name).sort();
  t.same(followed(notifications['Security channel']), ['Security incidents']);
  t.same(followed(notifications.Executives), ['Open phishing cases', 'Security incidents']);
  const people = byName(await get('/individuals?itemsPerPage=50'), 'email');
  t.same(followed(people['alice@example.com']), ['Security incidents'], 'whom a filter follows: a person');
  t.same(followed(people['bob@example.com']), ['Open phishing cases', 'Security incidents']);
  t.same(followed(byName(await get('/services?itemsPerPage=50'))['payments-oncall']), ['Open phishing cases'], 'a service');
  t.same(followed(byName(await get('/teams?itemsPerPage=50')).Payments), ['Security incidents'], 'a team');

  const incident = await app.request({ method: 'GET', url: '/api/v1/default/iaos/dispatch-default-default-1', token });
  t.same(
    incident.body.reports.map((r: { type: string; author_email: string; created_at: string; details: unknown }) => [
      r.type,
      r.author_email,
      r.created_at,
      r.details,
    ]),
    [
      [
        'executive',
        'alice@example.com',
        '2024-03-01T12:45:00.000Z',
        { current_status: 'Stable', overview: 'Checkout failed for 2 h 30 min.', next_steps: 'Root cause analysis.' },
      ],
      [
        'tactical',
        'alice@example.com',
        '2024-03-01T10:30:00.000Z',
        { conditions: 'Card payments fail.', actions: 'Rolling back deploy 118.', needs: 'A payments engineer.' },
      ],
    ],
    "incident 1's reports, newest first, by their author",
  );
});

tap.test('restricted incidents stay restricted: a member sees one only as its participant', { skip }, async (t) => {
  const app = await testApp(t);
  const { src } = await dispatchSource(t, base!);
  await run(app.database.db, src);
  const outsider = await app.login('zed@example.com', { role: 'Member' });
  const insider = await app.login('alice@example.com', { role: 'Member' });
  const url = '/api/v1/default/iaos/dispatch-default-default-2';
  t.equal((await app.request({ method: 'GET', url, token: outsider })).status, 404);
  const seen = await app.request({ method: 'GET', url, token: insider });
  t.equal(seen.status, 200);
  t.equal(seen.body.visibility, 'Restricted');
  t.equal((await app.request({ method: 'GET', url: '/api/v1/default/iaos/dispatch-default-default-1', token: outsider })).status, 200);
});

tap.test('a re-run creates nothing and updates what changed in Dispatch', { skip }, async (t) => {
  const { database } = await testApp(t);
  const { src, raw } = await dispatchSource(t, base!);
  const first = await run(database.db, src);
  t.ok(first.total('created') > 40);
  const count = async (table: string) => Number(rowsOf<{ n: number }>(await database.db.execute(sql.raw(`select count(*)::int as n from ${table}`)))[0]!.n);
  const tables = [
    'incidents',
    'events',
    'incident_participants',
    'incident_roles',
    'tasks',
    'cases',
    'reports',
    'search_filters',
    'notifications',
    'import_map',
  ];
  const before = await Promise.all(tables.map(count));
  await raw.unsafe(`update dispatch_organization_default.incident set title = 'Checkout is failing in EU' where id = 1`);
  const second = await run(database.db, src);
  t.equal(second.total('created'), 0, 'nothing new');
  t.match(second.of('default', 'incident'), { updated: 1, unchanged: 2 });
  t.equal(second.total('updated'), 1, 'only the changed title');
  t.same(await Promise.all(tables.map(count)), before);
  const [row] = await database.db.select({ title: incidents.title }).from(incidents).where(eq(incidents.name, 'dispatch-default-default-1'));
  t.equal(row!.title, 'Checkout is failing in EU');
});

tap.test('plugin secrets come across with --dispatch-key; signal instances of the last N days only', { skip }, async (t) => {
  const { database } = await testApp(t);
  const { src } = await dispatchSource(t, base!);
  const report = await run(database.db, src, { dispatchKey: 'test-dispatch-key' });
  const acme = await orgId(database.db, 'default');
  const [jira] = await database.db
    .select()
    .from(pluginInstances)
    .where(and(eq(pluginInstances.organization_id, acme!), eq(pluginInstances.plugin_slug, 'jira-ticket')));
  t.match(jira, { enabled: false, configuration: { api_url: 'https://jira.example.test', username: 'bot', password: '********' } });
  t.equal(decryptSecret(database.db, jira!.secrets.password!), 's3cret-pass');
  t.match(report.of('default', 'signal_instance'), { source: 1, created: 1 });
  const longer = await run(database.db, src, { signalsDays: 120 });
  t.match(longer.of('default', 'signal_instance'), { source: 2, created: 1, unchanged: 1 });
  const instances = await database.db.select().from(signalInstances);
  t.ok(
    instances.every((i) => i.processed_at !== null),
    'none is left for the signal job to turn into a case again',
  );
});

tap.test('the same import into an embedded (PGlite) Firewatch', { skip }, async (t) => {
  const { src } = await dispatchSource(t, base!);
  const pglite = await openDatabase({ dataDir: 'memory://' });
  t.teardown(() => pglite.close());
  const report = await run(pglite.db, src);
  t.match(report.of('default', 'incident'), { created: 3 });
  t.match(report.of('default', 'event'), { created: 4 });
  const names = await pglite.db.select({ name: incidents.name, visibility: incidents.visibility }).from(incidents).orderBy(incidents.name);
  t.same(names, [
    { name: 'acme-default-1', visibility: 'Open' },
    { name: 'dispatch-default-default-1', visibility: 'Open' },
    { name: 'dispatch-default-default-2', visibility: 'Restricted' },
    { name: 'dispatch-default-default-3', visibility: 'Open' },
  ]);
  t.equal((await run(pglite.db, src)).total('created'), 0, 'a re-run creates nothing');
});
