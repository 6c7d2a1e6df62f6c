import t from 'tap';
import { fixture, signalApp } from './helpers.js';
import { sql } from 'drizzle-orm';
import { until } from '../workflows/receivers.js';
import { listen } from '../../../server/core/jobs/wakeup.js';
import { SOURCES_CHANNEL } from '../../../server/signals/sources.js';

const event = (raw: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ raw, ...extra });

t.test('every entity sub-route of spec §7 answers; cases, incidents, tasks and instances follow the signal links', async (t) => {
  const s = await signalApp(t);
  // One case per alert, so that the group's two alerts give the entity two cases to follow.
  t.equal((await s.api('PUT', `/signals/${s.signal.id}`, { grouping: 'alert' })).status, 200);
  const firing = await s.ingest('/signals/alertmanager', fixture('alertmanager-firing.json'), { key: s.key });
  t.equal(firing.status, 202);
  await s.drain();
  const [email] = (await s.api('GET', '/entity/type/Email')).body.items;
  t.equal(email.value, 'oncall-payments@example.com');

  const seen = await s.api('GET', `/entity/${email.id}/cases`);
  t.equal(seen.body.total, 2, 'seen in both cases of the group');
  t.equal(seen.body.open, 2, 'both open');
  const caseId = seen.body.items[0].id;
  const caseName = seen.body.items[0].name;
  // A task on one of its cases, and the case escalated to an incident.
  t.equal((await s.api('POST', '/tasks', { description: 'Check the payments API', case_id: caseId, project_id: s.projectId })).status, 201);
  const escalated = await s.api('PUT', `/cases/${caseId}/escalate`, {});
  t.ok(escalated.status < 300, `escalate: ${escalated.status}`);

  const sub = async (name: string, suffix = '') => {
    const res = await s.api('GET', `/entity/${email.id}/${name}${suffix}`);
    t.equal(res.status, 200, `/entity/{id}/${name}${suffix}`);
    return res.body.items as any[];
  };
  const all = [
    'cases',
    'incidents',
    'signal_instances',
    'commits',
    'tickets',
    'individuals',
    'conversations',
    'documents',
    'tasks',
    'conferences',
    'weblinks',
    'emails',
    'eccs_projects',
    'text_submissions',
    'file_submissions',
    'youtube_transcripts',
  ];
  for (const name of all) await sub(name);
  t.equal((await sub('signal_instances')).length, 2);
  // Spec §3 fields: an entity's name and signal instances, an entity type's signals.
  const record = (await s.api('GET', `/entity/${email.id}`)).body;
  t.equal(record.name, 'oncall-payments@example.com');
  t.same(
    record.signal_instances.map((i: any) => i.signal_id),
    [s.signal.id, s.signal.id],
    'the instances it was extracted from',
  );
  const emailType = (await s.api('GET', `/entity_type/${s.email.id}`)).body;
  t.same(emailType.signals, [{ id: s.signal.id, name: 'Prod alerts' }], 'the definitions that extract the type');
  const unused = await s.ok('POST', '/entity_type', { name: 'Unused', jpath: '$.x', project_id: s.projectId });
  t.same(unused.signals ?? (await s.api('GET', `/entity_type/${unused.id}`)).body.signals, [], 'a type no definition uses lists none');
  t.equal((await s.api('PUT', `/entity/${email.id}`, { ...record, description: 'payments on-call' })).status, 200, 'a record sent back whole is accepted');
  t.equal((await sub('signal_instances', '/1')).length, 2, 'within the last day');
  t.same(
    (await sub('tasks')).map((x) => x.description),
    ['Check the payments API'],
  );
  const incidents = await sub('incidents');
  t.equal(incidents.length, 1, 'the incident its case became');
  t.equal((await s.api('GET', `/entity/${email.id}/nothing`)).status, 422, 'an unknown sub-resource is refused');
  t.equal((await s.api('GET', `/entity/999999/cases`)).status, 404);

  for (const name of ['cases', 'incidents', 'signal_instances', 'commits', 'tickets']) {
    const res = await s.api('GET', `/entity_type/${s.email.id}/${name}/1`);
    t.equal(res.status, 200, `/entity_type/{id}/${name}/1`);
  }
  t.equal((await s.api('GET', `/entity_type/${s.host.id}/cases/1`)).body.items.length, 2, 'cases of any host');

  const byClass = await s.api('GET', '/entity/class/email');
  t.same(
    byClass.body.items.map((e: any) => e.value),
    ['oncall-payments@example.com'],
    'e-mail addresses whatever their type',
  );
  t.same((await s.api('GET', '/entity/class/domain')).body.items.map((e: any) => e.value).sort(), ['api-1.prod.example.com', 'api-2.prod.example.com']);

  const subscribed = await s.api('POST', `/entity/${email.id}/subscribe`);
  t.equal(subscribed.status, 200);
  t.equal(subscribed.body.message, 'Entity subscribed successfully.');
  // The next case naming it mails the subscriber.
  await s.ingest('/signals/instances', event({ summary: 'Payments queue stuck', owner: 'oncall-payments@example.com' }), { key: s.key });
  await s.drain();
  const notice = await until('the subscriber e-mail', () => s.outbox.find((m) => m.subject.includes('oncall-payments@example.com seen in case')));
  t.equal(notice.to, 'commander@example.com');
  t.not(caseName, undefined);
});

t.test('back-test a pattern over the last instances; re-extract past instances as a job with progress', async (t) => {
  const s = await signalApp(t);
  for (let i = 0; i < 12; i++)
    await s.ingest('/signals/instances', event({ summary: `disk ${i}`, ticket: i % 3 === 0 ? `INC-${100 + i}` : 'none' }), { key: s.key });
  await s.drain();
  const draft = await s.api('POST', '/entity_type/backtest', { jpath: '$.ticket', regular_expression: 'INC-(\\d+)' });
  t.equal(draft.status, 200);
  t.equal(draft.body.total, 12);
  t.equal(draft.body.matched, 4, 'this pattern matches 4 of the last 12');
  t.same(draft.body.top_values.map((v: any) => v.value).sort(), ['100', '103', '106', '109']);
  const unsafe = await s.api('POST', '/entity_type/backtest', { regular_expression: '(a+)+\\1' });
  t.equal(unsafe.status, 422, 'a pattern RE2 cannot run in linear time is refused');
  t.same(unsafe.body.detail[0].loc, ['body', 'regular_expression']);

  // A new type added to the definition after the fact: nothing linked until re-processed.
  const ticket = await s.ok('POST', '/entity_type', { name: 'Ticket', jpath: '$.ticket', regular_expression: 'INC-(\\d+)', project_id: s.projectId });
  await s.ok('PUT', `/signals/${s.signal.id}`, { entity_type_ids: [s.email.id, s.host.id, ticket.id] });
  t.equal((await s.api('GET', `/entity_type/${ticket.id}/backtest`)).body.matched, 4);
  t.equal((await s.api('GET', '/entity/type/Ticket')).body.items.length, 0);
  t.equal((await s.api('GET', `/entity_type/${ticket.id}/process`)).status, 404, 'never processed yet');
  const run = await s.api('PUT', `/entity_type/${ticket.id}/process`);
  t.equal(run.status, 202);
  const done = await until('the re-extraction', async () => {
    s.app.queue.notify('signals-reextract');
    const r = await s.api('GET', `/entity_type/${ticket.id}/process`);
    return r.body.status === 'completed' && r.body;
  });
  t.same([done.total, done.processed, done.matched, done.percent], [12, 12, 4, 100]);
  t.equal((await s.api('GET', '/entity/type/Ticket')).body.items.length, 4, 'the entities now exist');
  t.equal((await s.api('GET', `/entity_type/${ticket.id}/signal_instances/1`)).body.items.length, 4, 'linked to their instances');

  // The pattern narrows; re-processing replaces the links rather than adding to them.
  await s.ok('PUT', `/entity_type/${ticket.id}`, { regular_expression: 'INC-(10[0-3])' });
  await s.api('PUT', `/entity_type/${ticket.id}/process`);
  await until('the second run', async () => {
    s.app.queue.notify('signals-reextract');
    const r = await s.api('GET', `/entity_type/${ticket.id}/process`);
    return r.body.status === 'completed' && r.body.id !== done.id && r.body;
  });
  t.equal((await s.api('GET', `/entity_type/${ticket.id}/signal_instances/1`)).body.items.length, 2, 'INC-100 and INC-103 only');
});

t.test('the editor preview extracts from a pasted payload without storing it', async (t) => {
  const s = await signalApp(t);
  const res = await s.api('POST', '/signals/preview', { raw: fixture('pagerduty-trigger.json', 'x'), entity_type_ids: [s.email.id, s.host.id] });
  t.equal(res.status, 200);
  t.equal(res.body.title, 'DISK at 99% on machine prod-datapipe03.example.com');
  t.same(res.body.entities.map((e: any) => [e.entity_type, e.value]).sort(), [
    ['Email', 'dana.ops@example.com'],
    ['Host', 'prod-datapipe03.example.com'],
  ]);
  t.equal((await s.counts()).instances, 0);
});

t.test('per-source rate limit: 429 in the PagerDuty style with Retry-After; what was accepted is kept; key rotation with a grace period', async (t) => {
  const s = await signalApp(t);
  await s.ok('PUT', `/signals/${s.signal.id}`, {});
  await s.database.db.execute((await import('drizzle-orm')).sql`update signals set rate_limit_per_minute = 3 where id = ${s.signal.id}`);
  const sent = [];
  for (let i = 0; i < 5; i++) sent.push(await s.ingest('/signals/pagerduty/v2/enqueue', { ...fixture('pagerduty-trigger.json', s.key), dedup_key: `k${i}` }));
  t.same(
    sent.map((r) => r.status),
    [202, 202, 202, 429, 429],
    'three a minute',
  );
  const limited = sent[3]!;
  t.equal(limited.body.status, 'throttle event');
  t.match(limited.body.message, /arriving too quickly/);
  t.equal(limited.body.detail[0].type, 'rate_limited');
  t.ok(Number(limited.headers['retry-after']) >= 1, 'Retry-After in seconds');
  t.equal((await s.counts()).instances, 3, 'the accepted three are stored, the refused ones not');
  await s.drain();
  t.equal((await s.counts()).cases, 3);

  const rotated = await s.api('POST', `/signals/${s.signal.id}/rotate_key`, { grace_hours: 1 });
  t.equal(rotated.status, 200);
  t.not(rotated.body.ingest_key, s.key);
  await s.database.db.execute((await import('drizzle-orm')).sql`update signals set rate_limit_per_minute = null where id = ${s.signal.id}`);
  t.equal((await s.ingest('/signals/alertmanager', fixture('alertmanager-firing.json'), { key: rotated.body.ingest_key })).status, 202, 'the new key works');
  t.equal(
    (await s.ingest('/signals/alertmanager', fixture('alertmanager-firing.json'), { key: s.key })).status,
    202,
    'the old one still, during the grace period',
  );
  const now = await s.api('POST', `/signals/${s.signal.id}/rotate_key`, { grace_hours: 0 });
  t.equal(
    (await s.ingest('/signals/alertmanager', fixture('alertmanager-firing.json'), { key: rotated.body.ingest_key })).status,
    401,
    'without grace the previous key stops at once',
  );
  t.equal((await s.ingest('/signals/alertmanager', fixture('alertmanager-firing.json'), { key: now.body.ingest_key })).status, 202);
  await s.drain();
});

t.test('a key changed by another app process stops working here as soon as the change is announced', async (t) => {
  const s = await signalApp(t);
  t.equal((await s.ingest('/signals/alertmanager', fixture('alertmanager-firing.json'), { key: s.key })).status, 202, 'known to this process');
  // Another process rotates the key: a plain write to the definition, announced at its commit. This
  // listener is registered after the app's, on the same connection, so the app has heard it first.
  let heard!: () => void;
  const announced = new Promise<void>((r) => (heard = r));
  const stop = await listen(s.database, SOURCES_CHANNEL, () => heard());
  t.teardown(stop);
  await s.database.db.execute(sql`update signals set ingest_key_hash = ${'0'.repeat(64)} where id = ${s.signal.id}`);
  await announced;
  t.equal((await s.ingest('/signals/alertmanager', fixture('alertmanager-firing.json'), { key: s.key })).status, 401, 'refused at once');
  await s.drain();
});
