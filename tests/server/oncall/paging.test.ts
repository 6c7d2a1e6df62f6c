import t from 'tap';
import { sql } from 'drizzle-orm';
import { oncallApp, linksOf, pathOf } from './helpers.js';
import { sendPreshiftPreps } from '../../../server/oncall/preshift.js';
import { drainJobs } from '../../../server/core/jobs/define.js';
import { signalApp } from '../signals/helpers.js';

t.test("spec flags page: a priority's commander, a case's assignee, a signal definition's service; closing resolves", async (t) => {
  const o = await oncallApp(t);
  const priorities = (await o.api('GET', '/incident_priorities?itemsPerPage=-1')).body.items;
  const sev1 = priorities.find((p: any) => p.page_commander);
  t.ok(sev1, 'a seeded priority pages its commander');
  const incident = await o.createIncident({ title: 'Payments down', incident_priority: { id: sev1.id }, commander_email: 'cmd@example.com' });
  await o.drainOncall();
  const mail = o.outbox.find((m) => m.to === 'cmd@example.com' && m.subject.includes('Payments down'));
  t.ok(mail, 'the commander is paged by e-mail');
  const link = pathOf(linksOf(mail!.text).acknowledge);
  t.equal((await o.request({ method: 'POST', url: link, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' })).status, 200);
  const events = (await o.api('GET', `/iaos/${incident.id}`)).body.events.map((e: any) => e.description);
  t.ok(
    events.some((d: string) => /^Paged cmd@example.com/.test(d)),
    'the page is on the timeline',
  );
  t.ok(
    events.some((d: string) => /acknowledged by cmd@example.com/.test(d)),
    'and who acknowledged it',
  );
  await o.api('PUT', `/iaos/${incident.id}`, { ...(await o.api('GET', `/iaos/${incident.id}`)).body, status: 'Closed' });
  const pages = (await o.api('GET', `/oncall/pages?filter=${encodeURIComponent(JSON.stringify([{ field: 'incident_id', op: '==', value: incident.id }]))}`))
    .body.items;
  t.same(
    pages.map((p: any) => p.state),
    ['resolved'],
    'closing the incident resolved its page',
  );

  // A case priority with page_assignee pages the assignee.
  const critical = (await o.api('GET', '/case_priorities?itemsPerPage=-1')).body.items.find((p: any) => p.page_assignee);
  const fraud = await o.ok('POST', '/cases', {
    title: 'Fraud spike',
    project_id: o.projectId,
    case_priority: { id: critical.id },
    assignee_email: 'analyst@example.com',
  });
  await o.drainOncall();
  t.ok(
    o.outbox.some((m) => m.to === 'analyst@example.com' && m.subject.includes('Fraud spike')),
    'the assignee is paged',
  );
  // A change paging does not depend on queues no paging check; a new assignee does, and is paged.
  const checks = async () =>
    (
      await o.exec<{ n: number }>(
        sql`select count(*)::int as n from pgboss.job where name = 'oncall-case-paging' and data->'case_ids' @> ${JSON.stringify([fraud.id])}::jsonb`,
      )
    )[0]!.n;
  const before = await checks();
  await o.ok('PUT', `/cases/${fraud.id}`, { description: 'Chargebacks from one merchant' });
  await o.ok('PUT', `/cases/${fraud.id}`, { title: 'Fraud spike at one merchant' });
  t.equal(await checks(), before, 'no paging check for a new description or title');
  await o.ok('PUT', `/cases/${fraud.id}`, { assignee_email: 'second@example.com' });
  t.equal(await checks(), before + 1, 'one for a new assignee');
  await o.drainOncall();
  t.ok(
    o.outbox.some((m) => m.to === 'second@example.com' && m.subject.includes('Fraud spike at one merchant')),
    'who is paged',
  );
});

t.test("a Restricted incident's page names it without its title, on every channel", async (t) => {
  const o = await oncallApp(t);
  const sev1 = (await o.api('GET', '/incident_priorities?itemsPerPage=-1')).body.items.find((p: any) => p.page_commander);
  const incident = await o.createIncident({
    title: 'Breach of the billing vault',
    visibility: 'Restricted',
    incident_priority: { id: sev1.id },
    commander_email: 'cmd@example.com',
  });
  await o.drainOncall();
  const mail = o.outbox.find((m) => m.to === 'cmd@example.com');
  t.ok(mail, 'the commander is paged');
  t.match(mail!.subject, `${incident.name} (restricted: sign in to see it)`, 'the page names the incident and says it is restricted');
  t.notOk(`${mail!.subject}\n${mail!.text}`.includes('billing vault'), 'its title is in neither the subject nor the text');
  const pages = (await o.api('GET', '/oncall/pages?itemsPerPage=-1')).body.items.filter((p: any) => p.incident_id === incident.id);
  t.ok(pages.length && pages.every((p: any) => !p.title.includes('billing vault')), 'nor on the page record');
});

t.test("handoff prefilled from the schedule's shift change; pre-shift prep to the next person", async (t) => {
  const o = await oncallApp(t);
  const schedule = await o.ok('POST', '/oncall/schedules', { ...o.weekly(['ana@example.com', 'bo@example.com']), prep_lead_minutes: 60 });
  // Mondays 09:00 Berlin hand over; 2026-03-09 was a Monday (weeks since 2020-01-06: 322, even: ana).
  const prefill = (await o.api('GET', `/oncall/handoffs/prefill_from_schedule?schedule_id=${schedule.id}&at=2026-03-12T10:00:00Z`)).body;
  t.match(prefill, {
    handover_from: 'ana@example.com',
    handover_to: 'bo@example.com',
    start_time: '2026-03-09T08:00:00.000Z',
    end_time: '2026-03-16T08:00:00.000Z',
    shift_type: 'Primary',
  });
  const sent = await sendPreshiftPreps(o.app, new Date('2026-03-16T07:30:00Z'));
  t.equal(sent, 1);
  t.match(o.outbox.at(-1), { to: 'bo@example.com', subject: /starts at 2026-03-16 08:00 UTC/ });
  t.equal(await sendPreshiftPreps(o.app, new Date('2026-03-16T07:40:00Z')), 0, 'once per shift');
  const preps = (await o.api('GET', '/oncall/preshift_preps')).body.items;
  t.match(preps, [{ handover_to: 'bo@example.com', sent: true }]);
  t.same(await o.exec(sql`select count(*)::int as n from oncall_preshift_preps`), [{ n: 1 }]);
});

t.test("a signal definition's on-call service is paged when its case opens", async (t) => {
  const s = await signalApp(t);
  const policy = await s.ok('POST', '/oncall/escalation_policies', {
    name: 'Edge',
    steps: [{ timeout_minutes: 5, targets: [{ type: 'person', email: 'edge@example.com' }] }],
  });
  const service = await s.ok('POST', '/services', { name: 'edge', type: 'firewatch-oncall', external_id: String(policy.id) });
  await s.ok('PUT', `/signals/${s.signal.id}`, { oncall_service_id: service.id });
  const res = await s.ingest('/signals/instances', { raw: { title: 'CDN 5xx burst', host: 'edge-1' } }, { key: s.key });
  t.equal(res.status, 202);
  await s.drain();
  for (const name of ['oncall-case-paging', 'oncall-escalate', 'oncall-deliver']) await drainJobs(s.app, 30_000, { name, concurrency: 1 });
  const page = s.outbox.find((m) => m.to === 'edge@example.com');
  t.ok(page, "the service's on-call is paged");
  const caseRow = await s.caseOf(res.body.id);
  t.match(page?.subject, caseRow.name, 'about the case the signal opened');
});
