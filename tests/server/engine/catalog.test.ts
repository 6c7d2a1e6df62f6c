import { sql } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { incidentParticipants, incidents, okrs, projects } from '../../../server/schema.js';
import { testApp, type TestApp } from '../../helpers.js';
import { created } from '../factories.js';

/** What is not plain CRUD in the catalog: defaults, flags, two-id deletes, recommendations, OKRs, filters, forms. */

// One database for the file (a fresh one per test is slow on PGlite); each test gets its own organization.
let shared: Promise<TestApp> | undefined;
let orgs = 0;
async function setup(_t: Test) {
  shared ??= testApp(t);
  const app = await shared;
  const org = await app.organization(`catalog-${++orgs}`);
  const api = async (method: string, url: string, payload?: unknown) =>
    app.request({
      method: method as never,
      url: `/api/v1/${org.slug}${url}`,
      token: org.token,
      ...(payload === undefined ? {} : { payload: payload as never }),
    });
  const post = async (url: string, payload: unknown) => {
    return created(url, await api('POST', url, payload));
  };
  return { ...app, token: org.token, api, post, orgId: org.id };
}

/** An incident with one participant, written straight to the tables (incidents are not this file's subject). */
async function incidentWithParticipant(db: TestApp['database']['db'], orgId: number, n: number) {
  const [project] = await db
    .insert(projects)
    .values({ organization_id: orgId, name: `Feedback project ${n}` })
    .returning();
  const [incident] = await db
    .insert(incidents)
    .values({ organization_id: orgId, project_id: project!.id, name: `IAO-F${n}`, title: `Feedback incident ${n}` })
    .returning();
  const [participant] = await db
    .insert(incidentParticipants)
    .values({ organization_id: orgId, incident_id: incident!.id, email: `p${n}@example.com` })
    .returning();
  return { incident: incident!.id, participant: participant!.id };
}

t.test('server-side defaults of spec §3, through the API and in the database itself', async (t) => {
  const { post, database, orgId } = await setup(t);
  t.match(await post('/terms', { text: 'MTTR' }), { discoverable: true, count: 0 });
  t.match(await post('/commits', { commit_id: 'a1b2c3' }), { source: 'GitHub', sync_completed: false, sync_completed_at: null });
  t.match(await post('/notifications', { name: 'On-call channel', target: '#oncall' }), {
    type: 'conversation',
    enabled: true,
    evergreen: false,
    evergreen_reminder_interval: 90,
    filters: [],
  });
  t.match(await post('/search/filters', { name: 'Active', expression: { field: 'status', op: '==', value: 'Active' } }), {
    subject: 'incident',
    enabled: true,
  });
  t.match(await post('/incident_priorities', { name: 'P1' }), {
    enabled: true,
    default: false,
    view_order: 1,
    tactical_report_reminder: 24,
    executive_report_reminder: 24,
    page_commander: false,
    auto_post_to_status_page: false,
  });
  t.match(await post('/incident_types', { name: 'Security' }), {
    visibility: 'Open',
    enabled: true,
    default: false,
    exclude_from_metrics: false,
    custom_fields: [],
    repo_urls: [],
  });
  t.match(await post('/services', { name: 'Payments' }), { is_active: true, health_metrics: false, type: 'pagerduty-oncall' });
  t.match(await post('/individuals', { name: 'Ann', email: 'Ann@Example.com' }), { email: 'ann@example.com', is_active: true, is_external: false });
  t.match(await post('/incident_cost_types', { name: 'Response' }), { editable: true, default: false, details: {} });
  t.match(await post('/cost_models', { name: 'Default' }), { enabled: true, activities: [] });
  t.match(await post('/oncall/preshift_preps', { handover_to: 'bob@example.com' }), {
    sent: false,
    sent_at: null,
    accepted: false,
    handshake_completed: false,
  });

  // The defaults are the database's, not only the API's: a row written without them gets them too.
  const inserted = await database.db.execute(sql`insert into terms (organization_id, text) values (${orgId}, 'raw') returning discoverable`);
  const rows = (Array.isArray(inserted) ? inserted : (inserted as { rows: unknown[] }).rows) as { discoverable: boolean }[];
  t.equal(rows[0]!.discoverable, true, 'terms.discoverable defaults to true in the table');
  const raw = await database.db.execute(sql`insert into search_filters (organization_id, name, expression) values (${orgId}, 'raw', '{}') returning subject`);
  t.equal(((Array.isArray(raw) ? raw : (raw as { rows: unknown[] }).rows) as { subject: string }[])[0]!.subject, 'incident');
});

t.test('at most one default priority, severity or type per project', async (t) => {
  const { post, api } = await setup(t);
  const first = await post('/incident_severities', { name: 'Low', default: true });
  const second = await post('/incident_severities', { name: 'High', default: true });
  t.equal((await api('GET', `/incident_severities/${first.id}`)).body.default, false, 'the old default was cleared');
  t.equal((await api('GET', `/incident_severities/${second.id}`)).body.default, true);
  await api('PUT', `/incident_severities/${first.id}`, { default: true });
  t.equal((await api('GET', `/incident_severities/${second.id}`)).body.default, false, 'update moves the default back');
  const project = await post('/projects', { name: 'Other project' });
  const other = await post('/incident_severities', { name: 'Low', default: true, project_id: project.id });
  t.equal((await api('GET', `/incident_severities/${first.id}`)).body.default, true, "another project's default does not clear this one");
  t.equal(other.default, true);
});

t.test('flags stamp their times: sent, accepted, handshake, handoff and sync', async (t) => {
  const { post, api } = await setup(t);
  const prep = await post('/oncall/preshift_preps', { handover_to: 'bob@example.com', sent: true });
  t.ok(prep.sent_at, 'sent_at set when sent');
  const accepted = (await api('PUT', `/oncall/preshift_preps/${prep.id}`, { accepted: true, handshake_completed: true })).body;
  t.ok(accepted.accepted_at, 'accepted_at set');
  t.ok(accepted.handshake_completed_at, 'handshake_completed_at set');
  t.equal(accepted.sent_at, prep.sent_at, 'sent_at kept');
  const again = (await api('PUT', `/oncall/preshift_preps/${prep.id}`, { sent: true })).body;
  t.equal(again.sent_at, prep.sent_at, 'setting a flag that is already on keeps its time');
  const off = (await api('PUT', `/oncall/preshift_preps/${prep.id}`, { accepted: false })).body;
  t.equal(off.accepted_at, null, 'turning a flag off clears its time');
  const given = await post('/oncall/preshift_preps', { handover_to: 'bob@example.com', sent: true, sent_at: '2026-02-01T08:00:00Z' });
  t.equal(given.sent_at, '2026-02-01T08:00:00.000Z', 'a time in the body wins');

  const handoff = await post('/oncall/handoffs', { handover_from: 'ann@example.com', handover_to: 'bob@example.com' });
  t.equal(handoff.handoff_completed_at, null);
  t.ok((await api('PUT', `/oncall/handoffs/${handoff.id}`, { handoff_completed: true })).body.handoff_completed_at);
  const commit = await post('/commits', { commit_id: 'ff00' });
  t.ok((await api('PUT', `/commits/${commit.id}`, { sync_completed: true })).body.sync_completed_at);
});

t.test('feedback and service feedback delete with two ids; the second may be 0', async (t) => {
  const { post, api, database, orgId } = await setup(t);
  const a = await incidentWithParticipant(database.db, orgId, 1);
  const b = await incidentWithParticipant(database.db, orgId, 2);
  const mismatch = await api('POST', '/feedback', { rating: 'Very satisfied', incident_id: a.incident, participant_id: b.participant });
  t.equal(mismatch.status, 422, 'a participant of another incident');
  t.same(mismatch.body.detail[0].loc, ['body', 'participant_id']);
  const f1 = await post('/feedback', { rating: 'Very satisfied', participant_id: a.participant });
  t.equal(f1.incident_id, a.incident, 'the incident is taken from the participant');
  const answered = { id: a.participant, individual: { email: 'p1@example.com', name: null } };
  t.same(f1.participant, answered, 'the participant who gave it, as the spec nests one');
  t.same((await api('GET', `/feedback/${f1.id}`)).body.participant, answered);
  const listed = (await api('GET', '/feedback?itemsPerPage=50')).body.items.find((f: { id: number }) => f.id === f1.id);
  t.same(listed.participant, answered, 'in lists too');
  const sentBack = await api('PUT', `/feedback/${f1.id}`, { ...listed, feedback: 'Quick and clear.' });
  t.equal(sentBack.status, 200, JSON.stringify(sentBack.body));
  t.same(sentBack.body.participant, answered, 'a record sent back keeps it');
  const f2 = await post('/feedback', { rating: 'Very dissatisfied', incident_id: a.incident, participant_id: a.participant });

  const wrong = await api('DELETE', `/feedback/${f1.id}/${b.participant}`);
  t.equal(wrong.status, 404, 'the second id must be the participant who gave it');
  t.equal(wrong.body.detail[0].msg, `Feedback '${f1.id}' could not be found.`);
  t.equal((await api('GET', `/feedback/${f1.id}`)).status, 200, 'still there');
  t.equal((await api('DELETE', `/feedback/${f1.id}/${a.participant}`)).status, 204);
  t.equal((await api('GET', `/feedback/${f1.id}`)).status, 404);
  t.equal((await api('DELETE', `/feedback/${f2.id}/0`)).status, 204, '0 means whoever gave it');
  t.equal((await api('GET', `/feedback/${f2.id}`)).status, 404);
  const bad = await api('DELETE', `/feedback/${f2.id}/x`);
  t.equal(bad.status, 422);
  t.match(bad.body.detail[0].msg, /second id must be a whole number/);

  const service = await post('/services', { name: 'Payments' });
  const ann = await post('/individuals', { name: 'Ann', email: 'ann@example.com' });
  const bob = await post('/individuals', { name: 'Bob', email: 'bob@example.com' });
  const s1 = await post('/servicefeedback', { rating: 'Lots of effort', service_id: service.id, individual_contact_id: ann.id });
  const s2 = await post('/servicefeedback', { rating: 'No effort', service_id: service.id, individual_contact_id: bob.id });
  t.equal((await api('DELETE', `/servicefeedback/${s1.id}/${bob.id}`)).status, 404);
  t.equal((await api('DELETE', `/servicefeedback/${s1.id}/${ann.id}`)).status, 204);
  t.equal((await api('DELETE', `/servicefeedback/${s2.id}/0`)).status, 204);
  t.equal((await api('GET', '/servicefeedback')).body.total, 0);
  t.equal((await api('DELETE', `/servicefeedback/${s2.id}/0`)).status, 404, 'gone');
});

t.test('tag recommendations: tags whose names or terms occur in the object text, best first', async (t) => {
  const { post, api } = await setup(t);
  const type = await post('/tag_types', { name: 'Topic' });
  const tag = (name: string, extra: Record<string, unknown> = {}) => post('/tags', { name, tag_type_id: type.id, ...extra });
  await tag('database');
  await tag('Payments', { count: 9 });
  await tag('C++');
  await tag('data'); // a word inside "database" is not an occurrence
  await tag('outage', { discoverable: false });
  await tag('kubernetes');
  const doc = await post('/documents', { name: 'Database outage runbook', description: 'The database failed; payments were late. The C++ gateway retried.' });

  const res = await api('GET', `/tags/recommendations/Document/${doc.id}`);
  t.equal(res.status, 200);
  t.same(
    res.body.items.map((i: { name: string; score: number }) => [i.name, i.score]),
    [
      ['database', 2],
      ['Payments', 1],
      ['C++', 1],
    ],
    'by occurrences, then tag count; case-insensitive; whole words; discoverable only',
  );
  t.equal((await api('GET', `/tags/recommendations/documents/${doc.id}`)).body.items.length, 3, 'the model may be named by path');
  const missing = await api('GET', '/tags/recommendations/Document/99999');
  t.equal(missing.status, 404);
  t.equal(missing.body.detail[0].msg, "Document '99999' could not be found.");
  const unknown = await api('GET', `/tags/recommendations/Spaceship/${doc.id}`);
  t.equal(unknown.status, 404);
  t.equal(unknown.body.detail[0].msg, "Model 'Spaceship' could not be found.");
  const plain = await post('/documents', { name: 'Nothing relevant here' });
  t.same((await api('GET', `/tags/recommendations/Document/${plain.id}`)).body.items, []);
});

t.test("tag recommendations: a term's occurrence recommends the tags it stands for, ranked by matches", async (t) => {
  const { post, api } = await setup(t);
  const type = await post('/tag_types', { name: 'Technology' });
  const pg = await post('/terms', { text: 'PG' });
  const postgres = await post('/terms', { text: 'Postgres' });
  const k8s = await post('/terms', { text: 'k8s' });
  const hidden = await post('/terms', { text: 'ELB', discoverable: false });
  const tag = (name: string, terms: number[], extra: Record<string, unknown> = {}) => post('/tags', { name, tag_type_id: type.id, terms, ...extra });
  await tag('PostgreSQL', [pg.id, postgres.id]);
  await tag('Kubernetes', [k8s.id], { count: 50 });
  await tag('Load balancer', [hidden.id]);
  await tag('Redis', [], { count: 99 });
  t.equal((await api('POST', '/tags', { name: 'Broken', tag_type_id: type.id, terms: [4242] })).status, 422, 'a term must exist');

  const incidentText = 'PG replicas lagged behind; Postgres failover took 4 minutes. The k8s operator restarted the ELB. PG is back.';
  const doc = await post('/documents', { name: 'Replica lag', description: incidentText });
  const res = await api('GET', `/tags/recommendations/Document/${doc.id}`);
  t.equal(res.status, 200);
  t.same(
    res.body.items.map((i: { name: string; score: number; matched_terms: string[] }) => [i.name, i.score, i.matched_terms.sort()]),
    [
      ['PostgreSQL', 3, ['PG', 'Postgres']],
      ['Kubernetes', 1, ['k8s']],
    ],
    'no tag name occurs: both come through their terms; three matches rank above one; a term that is not discoverable recommends nothing',
  );

  // A match on the tag's own name counts too, and ranks above the same number of matches through terms.
  const named = await post('/documents', { name: 'Kubernetes upgrade', description: 'Upgrade of the PG operator.' });
  t.same(
    (await api('GET', `/tags/recommendations/Document/${named.id}`)).body.items.map((i: { name: string; score: number }) => [i.name, i.score]),
    [
      ['Kubernetes', 1],
      ['PostgreSQL', 1],
    ],
  );
  // Unlinking the term stops the recommendation.
  const postgresql = (await api('GET', `/tags?q=PostgreSQL`)).body.items[0];
  await api('PUT', `/tags/${postgresql.id}`, { terms: [] });
  t.same(
    (await api('GET', `/tags/recommendations/Document/${doc.id}`)).body.items.map((i: { name: string }) => i.name),
    ['Kubernetes'],
  );
});

t.test('standing incident roles carry renounced_at; a renounced one reads Inactive', async (t) => {
  const { post, api } = await setup(t);
  const ann = await post('/individuals', { name: 'Ann', email: 'ann@example.com' });
  const active = await post('/incident_roles', { role: 'liaison', individual_id: ann.id });
  t.match(active, { renounced_at: null, status: 'Active' });
  const renounced = await api('PUT', `/incident_roles/${active.id}`, { renounced_at: '2026-03-01T10:00:00Z' });
  t.equal(renounced.status, 200);
  t.match(renounced.body, { renounced_at: '2026-03-01T10:00:00.000Z', status: 'Inactive' });
  await post('/incident_roles', { role: 'scribe', individual_id: ann.id });
  const inactive = await api(
    'GET',
    `/incident_roles?filter=${encodeURIComponent(JSON.stringify({ and: [{ field: 'status', op: '==', value: 'Inactive' }] }))}`,
  );
  t.same(
    inactive.body.items.map((r: { role: string }) => r.role),
    ['liaison'],
    'the list filters on the status',
  );
  t.equal((await api('PUT', `/incident_roles/${active.id}`, { renounced_at: 'yesterday' })).status, 422);
  t.equal((await api('PUT', `/incident_roles/${active.id}`, { renounced_at: null })).body.status, 'Active', 'taking the role up again');
});

t.test("feedback summarize/{projectId}: the project's feedback through the AI layer's summarizer, with rating counts", async (t) => {
  const { post, api } = await setup(t);
  const project = await post('/projects', { name: 'Summarized' });
  const other = await post('/projects', { name: 'Elsewhere' });
  const given = [
    ['Very satisfied', 'The commander kept the status updates clear and regular.'],
    ['Somewhat dissatisfied', 'The status updates came late during the database failover.'],
    ['Very satisfied', 'Clear status updates; the runbook for the failover worked.'],
    ['Very satisfied', ''],
  ];
  for (const [rating, feedback] of given) await post('/feedback', { rating, feedback, project_id: project.id });
  await post('/feedback', { rating: 'Very dissatisfied', feedback: 'Nobody answered the pager at night.', project_id: other.id });

  const res = await api('GET', `/feedback/summarize/${project.id}`);
  t.equal(res.status, 200);
  t.equal(res.body.total, 4);
  t.same(res.body.ratings, {
    'Very satisfied': 3,
    'Somewhat satisfied': 0,
    'Neither satisfied nor dissatisfied': 0,
    'Somewhat dissatisfied': 1,
    'Very dissatisfied': 0,
  });
  t.equal(res.body.method, 'extractive', 'no model configured: the summarizer quotes the feedback');
  t.match(res.body.summary, /status updates/);
  t.notMatch(res.body.summary, /pager/, "another project's feedback stays out");

  const empty = await post('/projects', { name: 'Quiet' });
  t.match((await api('GET', `/feedback/summarize/${empty.id}`)).body, { total: 0, summary: 'No feedback has been given yet.' });
  const missing = await api('GET', '/feedback/summarize/99999');
  t.equal(missing.status, 404);
  t.equal(missing.body.detail[0].msg, "Project '99999' could not be found.");
  t.equal((await api('GET', '/feedback/summarize/abc')).status, 422);

  const service = await post('/services', { name: 'Payments' });
  await post('/servicefeedback', {
    rating: 'Lots of effort',
    feedback: 'Paging the payments service took three tries.',
    service_id: service.id,
    project_id: project.id,
  });
  const services = await api('GET', `/servicefeedback/summarize/${project.id}`);
  t.equal(services.status, 200);
  t.match(services.body, { total: 1, ratings: { 'Lots of effort': 1, 'No effort': 0 }, summary: /three tries/ });
});

t.test('OKRs are listed with progress computed from key results', async (t) => {
  const { api, database, orgId } = await setup(t);
  await database.db.insert(okrs).values([
    {
      organization_id: orgId,
      title: 'Faster response',
      key_results: [
        { title: 'MTTA under 5 min', target: 10, current: 5 },
        { title: 'Runbooks', target: 4, current: 8 },
      ],
    },
    { organization_id: orgId, title: 'Nothing measured yet' },
    { organization_id: orgId, title: 'Just started', key_results: [{ title: 'Drills', target: 3, current: 1 }] },
  ]);
  const list = await api('GET', '/okrs');
  t.equal(list.status, 200);
  t.same(
    list.body.items.map((o: { title: string; progress: number }) => [o.title, o.progress]),
    [
      ['Faster response', 75],
      ['Just started', 33],
      ['Nothing measured yet', 0],
    ],
    'mean of current/target capped at 100%',
  );
});

t.test('an OKR is created, read with its progress, changed and deleted through the API', async (t) => {
  const { api, post } = await setup(t);
  const okr = await post('/okrs', {
    title: 'Calmer on-call',
    description: 'Fewer pages at night',
    key_results: [
      { title: 'Night pages under 5 a week', target: 5, current: 2 },
      { title: 'Runbooks reviewed', target: 10, current: 10 },
    ],
  });
  t.match(
    okr,
    { title: 'Calmer on-call', progress: 70, key_results: [{ title: 'Night pages under 5 a week', target: 5, current: 2 }, {}] },
    'mean of 40% and 100%',
  );
  t.equal((await api('GET', `/okrs/${okr.id}`)).body.progress, 70, 'get reads the same progress');
  const changed = await api('PUT', `/okrs/${okr.id}`, { key_results: [{ title: 'Night pages under 5 a week', target: 5, current: 5 }] });
  t.equal(changed.body.progress, 100, 'progress follows the key results');
  const bad = await api('POST', '/okrs', { title: 'x', key_results: [{ title: 'No target', target: 0, current: 1 }] });
  t.equal(bad.status, 422, 'a target of 0 is refused');
  t.same(bad.body.detail[0].loc, ['body', 'key_results', 0, 'target']);
  t.equal((await api('POST', '/okrs', { title: 'x', progress: 50 })).status, 422, 'progress is not written');
  t.equal((await api('DELETE', `/okrs/${okr.id}`)).status, 204);
  t.equal((await api('GET', `/okrs/${okr.id}`)).status, 404);
});

t.test('search filter expressions are checked with the list filter grammar', async (t) => {
  const { post, api } = await setup(t);
  const bad = async (body: Record<string, unknown>, msg: RegExp) => {
    const res = await api('POST', '/search/filters', { name: 'Bad', ...body });
    t.equal(res.status, 422, JSON.stringify(body));
    t.match(res.body.detail[0].msg, msg);
    return res;
  };
  const unknownField = await bad({ expression: { and: [{ field: 'nope', op: '==', value: 1 }] } }, /Unknown filter field 'nope'/);
  t.same(unknownField.body.detail[0].loc, ['body', 'expression', 'and', 0, 'field']);
  await bad({ expression: { field: 'status', op: 'resembles', value: 'x' } }, /Unknown filter operator 'resembles'/);
  await bad({ expression: { field: 'reported_at', op: '>=', value: 'not a date' } }, /needs a date value/);
  await bad({ expression: 'status == Active' }, /expression must be a filter object or list/);
  await bad({ expression: {} }, /no conditions/);
  await bad({ subject: 'case', expression: { field: 'commander_email', op: '==', value: 'a@b.c' } }, /Unknown filter field 'commander_email'/);
  t.equal((await api('GET', '/search/filters')).body.total, 0, 'nothing saved');

  const ok = await post('/search/filters', {
    name: 'Open security',
    expression: {
      and: [
        { field: 'status', op: 'in', value: ['Active', 'Stable'] },
        { field: 'title', op: 'ilike', value: '%security%' },
      ],
    },
  });
  t.equal(ok.subject, 'incident');
  const caseFilter = await post('/search/filters', { name: 'Unassigned cases', subject: 'case', expression: { field: 'assignee_email', op: 'is_null' } });
  t.equal(caseFilter.subject, 'case');
  const switched = await api('PUT', `/search/filters/${caseFilter.id}`, { subject: 'incident' });
  t.equal(switched.status, 422, 'changing the subject re-checks the saved expression');
  const broken = await api('PUT', `/search/filters/${ok.id}`, { expression: { field: 'title', op: 'any', value: 'x' } });
  t.equal(broken.status, 422);
  t.same((await api('GET', `/search/filters/${ok.id}`)).body.expression, ok.expression, 'unchanged after a rejected update');

  // Services, individuals, teams and notifications follow filters; the filter lists them.
  await post('/services', { name: 'Unrelated' }); // so that service ids and filter ids differ
  const service = await post('/services', { name: 'Payments', filters: [ok.id] });
  const team = await post('/teams', { name: 'Security team', filters: [ok.id, caseFilter.id] });
  const followed = (await api('GET', `/search/filters/${ok.id}`)).body;
  t.same(
    [followed.services, followed.teams, followed.individuals, followed.notifications],
    [[{ id: service.id, name: 'Payments' }], [{ id: team.id, name: 'Security team' }], [], []],
  );
  const missing = await api('POST', '/notifications', { name: 'x', target: '#x', filters: [ok.id, 4242] });
  t.equal(missing.status, 422);
  t.equal(missing.body.detail[0].msg, "Search filter '4242' could not be found.");
});

t.test('forms are filled in against their form type JSON schema', async (t) => {
  const { post, api } = await setup(t);
  const invalidSchema = await api('POST', '/form_types', { name: 'Broken', form_schema: { type: 'objekt' } });
  t.equal(invalidSchema.status, 422);
  t.match(invalidSchema.body.detail[0].msg, /not a valid JSON schema/);
  const type = await post('/form_types', {
    name: 'Legal hold',
    form_schema: {
      type: 'object',
      required: ['matter'],
      properties: { matter: { type: 'string', minLength: 3 }, custodians: { type: 'integer', minimum: 1 } },
    },
  });
  const wrong = await api('POST', '/forms', { form_type_id: type.id, form_data: { matter: 'ab', custodians: 0 } });
  t.equal(wrong.status, 422);
  t.same(wrong.body.detail.map((d: { loc: unknown[] }) => d.loc).sort(), [
    ['body', 'form_data', 'custodians'],
    ['body', 'form_data', 'matter'],
  ]);
  t.equal((await api('POST', '/forms', { form_type_id: type.id })).status, 422, 'required property missing');
  const form = await post('/forms', { form_type_id: type.id, form_data: { matter: 'Acme v. Firewatch', custodians: 2 } });
  t.equal(form.status, 'Draft');
  t.equal((await api('PUT', `/forms/${form.id}`, { form_data: { matter: 'Acme v. Firewatch', custodians: -1 } })).status, 422);
  t.equal((await api('PUT', `/forms/${form.id}`, { status: 'Completed' })).body.status, 'Completed');
  t.equal((await api('GET', `/forms/${form.id}`)).body.form_data.custodians, 2, 'unchanged by the rejected update');
  const noType = await api('POST', '/forms', { form_type_id: 4242 });
  t.equal(noType.status, 422);
  t.equal(noType.body.detail[0].msg, "Form type '4242' could not be found.");
});

t.test('terms list the definitions that name them; cost models have no single GET', async (t) => {
  const { post, api } = await setup(t);
  const term = await post('/terms', { text: 'RTO' });
  const d1 = await post('/definitions', { text: 'Recovery time objective', terms: [term.id] });
  const d2 = await post('/definitions', { text: 'How long a restore may take', terms: [term.id] });
  t.same((await api('GET', `/terms/${term.id}`)).body.definitions, [
    { id: d1.id, text: 'Recovery time objective' },
    { id: d2.id, text: 'How long a restore may take' },
  ]);
  t.equal((await api('POST', '/definitions', { text: 'x', terms: [4242] })).status, 422);
  const model = await post('/cost_models', { name: 'Standard', activities: [{ plugin_event: 'page sent', response_time_seconds: 120 }] });
  t.same(model.activities, [{ plugin_event: 'page sent', response_time_seconds: 120, enabled: true }]);
  t.equal((await api('GET', `/cost_models/${model.id}`)).status, 404);
  const listed = (await api('GET', '/cost_models')).body.items.find((m: { id: number }) => m.id === model.id);
  t.equal(listed.activities.length, 1, 'activities come with the list');
});

t.test('incident and case types take templates of the matching template type only', async (t) => {
  const { post, api } = await setup(t);
  const review = await post('/documents', { name: 'PIR template', resource_type: 'dispatch-incident-review-document-template' });
  const runbook = await post('/documents', { name: 'DB runbook', resource_type: 'dispatch-incident-runbook' });
  const caseTemplate = await post('/documents', { name: 'Case template', resource_type: 'dispatch-case-document-template' });
  const wrong = await api('POST', '/incident_types', { name: 'Ops', review_template_document_id: runbook.id });
  t.equal(wrong.status, 422);
  t.same(wrong.body.detail[0].loc, ['body', 'review_template_document_id']);
  t.match(wrong.body.detail[0].msg, /is not a dispatch-incident-review-document-template/);
  const type = await post('/incident_types', { name: 'Ops', review_template_document_id: review.id });
  t.equal(type.review_template_document_id, review.id);
  t.equal((await api('PUT', `/incident_types/${type.id}`, { executive_template_document_id: review.id })).status, 422, 'checked on update too');
  t.equal((await api('POST', '/case_types', { name: 'Fraud', case_template_document_id: review.id })).status, 422);
  t.equal((await api('POST', '/case_types', { name: 'Fraud', case_template_document_id: caseTemplate.id, incident_type_id: type.id })).status, 201);
  const inUse = await api('DELETE', `/documents/${review.id}`);
  t.equal(inUse.status, 409, 'a template in use cannot be deleted');
});

t.test('a duplicate name in the same project is a 409 that names the fields', async (t) => {
  const { post, api } = await setup(t);
  await post('/incident_severities', { name: 'Critical' });
  const dup = await api('POST', '/incident_severities', { name: 'Critical' });
  t.equal(dup.status, 409);
  t.equal(dup.body.detail[0].msg, 'A record with the same project and name already exists.');
  const project = await post('/projects', { name: 'Elsewhere' });
  t.equal((await api('POST', '/incident_severities', { name: 'Critical', project_id: project.id })).status, 201, 'another project may reuse the name');
  const named = await api(
    'GET',
    `/incident_severities?filter=${encodeURIComponent(JSON.stringify({ and: [{ field: 'name', op: '==', value: 'Critical' }] }))}`,
  );
  t.same(
    named.body.items
      .map((i: { project_id: number | null }) => i.project_id)
      .filter((p: number | null) => p === null || p === project.id)
      .sort(),
    [project.id, null].sort(),
    'both are kept',
  );
});
