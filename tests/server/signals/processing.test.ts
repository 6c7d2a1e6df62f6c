import { eq, sql } from 'drizzle-orm';
import t from 'tap';
import { processPending } from '../../../server/signals/process.js';
import { signalGroups } from '../../../server/signals/tables.js';
import { signalApp } from './helpers.js';

const event = (raw: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ raw, ...extra });

t.test('extraction by JSONPath and by regular expression, both applied; unsafe or invalid patterns are refused when saved', async (t) => {
  const s = await signalApp(t);
  // Only the JSONPath: every user name in the payload.
  const user = await s.ok('POST', '/entity_type', { name: 'User', jpath: '$.actor.users[*].name', project_id: s.projectId });
  // JSONPath then regex: the ticket numbers inside the subject line only.
  const ticket = await s.ok('POST', '/entity_type', { name: 'Ticket', jpath: '$.subject', regular_expression: 'INC-(\\d+)', project_id: s.projectId });
  await s.ok('PUT', `/signals/${s.signal.id}`, { entity_type_ids: [s.email.id, user.id, ticket.id] });
  const res = await s.ingest(
    '/signals/instances',
    event({
      subject: 'INC-1042 and INC-7 reopened',
      body: 'INC-999 is elsewhere; mail Root@Example.com',
      actor: { users: [{ name: 'Alice' }, { name: ' alice ' }, { name: 'Bob' }] },
    }),
    { key: s.key },
  );
  t.equal(res.status, 202);
  await s.drain();
  const detail = await s.api('GET', `/signals/instances/${res.body.id}`);
  const by = (type: string) =>
    detail.body.entities
      .filter((e: any) => e.entity_type === type)
      .map((e: any) => e.value)
      .sort();
  t.same(by('Ticket'), ['1042', '7'], 'the regex runs inside the JSONPath result (INC-999 in body is not taken), group 1 kept');
  t.same(by('User'), ['Alice', 'Bob'], 'Alice and " alice " are one entity (normalized)');
  t.same(by('Email'), ['Root@Example.com'], 'a regex without JSONPath searches every value');

  // The same values in another event: the entities are reused, not created again.
  const before = (await s.counts()).entities;
  await s.ingest('/signals/instances', event({ subject: 'INC-7 again', actor: { users: [{ name: 'ALICE' }] } }), { key: s.key });
  await s.drain();
  t.equal((await s.counts()).entities, before, 'one entity per (type, normalized value)');

  const backref = await s.api('POST', '/entity_type', { name: 'Bad', regular_expression: '(a+)+\\1', project_id: s.projectId });
  t.equal(backref.status, 422, 'backreferences cannot run in linear time: refused');
  t.same(backref.body.detail[0].loc, ['body', 'regular_expression']);
  const badPath = await s.api('POST', '/entity_type', { name: 'Bad', jpath: '$..[?@.x', project_id: s.projectId });
  t.equal(badPath.status, 422);
  t.same(badPath.body.detail[0].loc, ['body', 'jpath']);

  // A pattern that backtracks exponentially in JavaScript's engine runs in linear time here.
  const evil = await s.ok('POST', '/entity_type', { name: 'Evil', regular_expression: '^(a+)+$', project_id: s.projectId });
  await s.ok('PUT', `/signals/${s.signal.id}`, { entity_type_ids: [evil.id] });
  const adversarial = await s.ingest('/signals/instances', event({ text: 'a'.repeat(50_000) + '!' }), { key: s.key });
  t.equal(adversarial.status, 202);
  await s.drain();
  const processed = await s.api('GET', `/signals/instances/${adversarial.body.id}`);
  t.ok(await s.caseOf(adversarial.body.id), 'a 50,000-character adversarial input was processed into its case');
  t.same(
    processed.body.entities.filter((e: any) => e.entity_type === 'Evil'),
    [],
    'the pattern does not match it, and nothing hung on the way',
  );
});

t.test('snooze until expiry; deduplicate within a window, then a new case after it', async (t) => {
  const s = await signalApp(t);
  const future = new Date(Date.now() + 3600_000).toISOString();
  const snooze = await s.ok('POST', '/signals/filters', {
    name: 'Snooze the canary host',
    action: 'snooze',
    expiration: future,
    expression: [{ model: 'Entity', field: 'value', op: '==', value: 'canary.example.com' }],
    project_id: s.projectId,
  });
  const dedup = await s.ok('POST', '/signals/filters', {
    name: 'One case per host per 10 minutes',
    action: 'deduplicate',
    window: 600,
    expression: [{ model: 'EntityType', field: 'name', op: '==', value: 'Host' }],
    project_id: s.projectId,
  });
  await s.ok('PUT', `/signals/${s.signal.id}`, { filter_ids: [snooze.id, dedup.id] });
  const bad = await s.api('POST', '/signals/filters', { name: 'x', expression: [{ model: 'Nope', field: 'value', op: '==', value: 1 }] });
  t.equal(bad.status, 422, 'an expression outside the grammar is refused');

  const canary = await s.ingest('/signals/instances', event({ host: 'canary.example.com', summary: 'canary down' }), { key: s.key });
  await s.drain();
  const snoozed = await s.api('GET', `/signals/instances/${canary.body.id}`);
  t.equal(snoozed.body.filter_action, 'snooze');
  t.equal(snoozed.body.case_id, null, 'a snoozed signal opens no case');

  const first = await s.ingest('/signals/instances', event({ host: 'web-1.example.com', summary: 'web-1 slow' }), { key: s.key });
  const second = await s.ingest('/signals/instances', event({ host: 'WEB-1.example.com', summary: 'web-1 slow again' }), { key: s.key });
  const other = await s.ingest('/signals/instances', event({ host: 'web-2.example.com', summary: 'web-2 slow' }), { key: s.key });
  await s.drain();
  const [a, b, c] = await Promise.all([first, second, other].map((r) => s.api('GET', `/signals/instances/${r.body.id}`)));
  t.equal(b!.body.filter_action, 'deduplicate');
  t.equal(b!.body.case_id, a!.body.case_id, 'same host within the window: one case');
  t.not(c!.body.case_id, a!.body.case_id, 'another host: its own case');

  // The window passes (the group was last seen 11 minutes ago): the next event opens a new case.
  await s.database.db
    .update(signalGroups)
    .set({ last_seen: sql`now() - interval '11 minutes'` })
    .where(eq(signalGroups.id, a!.body.group_id));
  const later = await s.ingest('/signals/instances', event({ host: 'web-1.example.com', summary: 'web-1 slow once more' }), { key: s.key });
  await s.drain();
  const d = await s.api('GET', `/signals/instances/${later.body.id}`);
  t.equal(d.body.filter_action, 'none');
  t.not(d.body.case_id, a!.body.case_id, 'after the window a new case');

  // The snooze expires: the canary opens a case again.
  await s.ok('PUT', `/signals/filters/${snooze.id}`, { expiration: new Date(Date.now() - 1000).toISOString() });
  const after = await s.ingest('/signals/instances', event({ host: 'canary.example.com', summary: 'canary down again' }), { key: s.key });
  await s.drain();
  const e = await s.api('GET', `/signals/instances/${after.body.id}`);
  t.equal(e.body.filter_action, 'none');
  t.ok(e.body.case_id, 'an expired snooze no longer applies');
});

t.test('200 identical events sent at once make exactly one case, however many workers process them', async (t) => {
  const s = await signalApp(t);
  const same = event({ summary: 'Payment gateway 502s', host: 'pay-gw.example.com' }, { dedup_key: 'pay-gw/502' });
  const sent = await Promise.all(Array.from({ length: 200 }, () => s.ingest('/signals/instances', same, { key: s.key })));
  t.same([...new Set(sent.map((r) => r.status))], [202]);
  // Besides the queue's own workers, eight loops taking one instance per transaction race on the open group.
  await Promise.all(Array.from({ length: 8 }, () => processPending(s.database.db, s.config, { orgId: s.orgId, orgSlug: 'default' }, 1)));
  await s.drain();
  const counts = await s.counts();
  t.equal(counts.instances, 200);
  t.equal(counts.cases, 1, 'exactly one case');
  const [group] = await s.database.db.select().from(signalGroups);
  t.equal(group!.count, 200, 'every event joined the one open group');

  const batch = await s.ingest('/signals/instances/batch', { items: Array.from({ length: 50 }, () => same) }, { key: s.key });
  t.equal(batch.status, 202);
  t.equal(batch.body.ids.length, 50);
  await s.drain();
  t.equal((await s.counts()).cases, 1, 'the batch form joins the same case');

  const resolve = await s.ingest('/signals/instances', { raw: {}, dedup_key: 'pay-gw/502', event_action: 'resolve' }, { key: s.key });
  t.equal(resolve.status, 202);
  await s.drain();
  t.same(await s.casesByStatus(), { Closed: 1 }, 'resolve closes');
});
