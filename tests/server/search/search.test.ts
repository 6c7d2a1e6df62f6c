import { sql } from 'drizzle-orm';
import t from 'tap';
import { incidentApp, type IncidentApp } from '../incidents/helpers.js';
import { rowsOf } from '../../helpers.js';
import { SEARCH_TYPES, search as searchService, specName, type SearchType } from '../../../server/search/service.js';
import { withTenant } from '../../../server/core/db/tenant.js';
import type { RequestContext } from '../../../server/core/context.js';

/**
 * Global search (`GET /search`, spec §7 and §9): every type, grouped with counts, exact names first,
 * words as prefixes, phrases and exclusions, and only what the caller may see.
 */

const search = async (app: IncidentApp, q: string, extra = '', token = app.token) => {
  const res = await app.api('GET', `/search?q=${encodeURIComponent(q)}${extra}`, undefined, token);
  if (res.status !== 200) throw new Error(`search ${q}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as {
    total: number;
    groups: { type: string; count: number }[];
    results: { type: string; id: string; title: string; link: string; headline: string; exact: boolean }[];
  };
};
const orgIdOf = async (app: IncidentApp, slug = 'default') =>
  rowsOf<{ id: number }>(await app.database.db.execute(sql`select id from organizations where slug = ${slug}`))[0]!.id;

/** One thing of every type holding the word `zebrafish` (and its own word), made the way each is made. */
async function seedEveryType(app: IncidentApp) {
  const { api, projectId, createIncident } = app;
  const ok = (res: { status: number; body: any }, what: string) => {
    if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const incident = await createIncident({ title: 'Zebrafish incident outage', description: 'incidentword' });
  await app.drain(); // its conversation and conference
  ok(await api('POST', `/iaos/${incident.id}/conversation/messages`, { text: 'zebrafish conversationword in the incident channel' }), 'message');
  ok(
    await api('POST', `/iaos/${incident.id}/add-resource`, {
      resource_type: 'jira-ticket',
      name: 'Zebrafish ticketword',
      weblink: 'https://jira.example.com/T-1',
    }),
    'ticket',
  );
  ok(await api('POST', '/cases', { title: 'Zebrafish case', description: 'caseword', project_id: projectId }), 'case');
  ok(await api('POST', '/tasks', { description: 'Zebrafish taskword follow-up', incident_id: incident.id, project_id: projectId }), 'task');
  const org = await orgIdOf(app);
  const db = app.database.db;
  const [{ id: tagTypeId }] = rowsOf<any>(await db.execute(sql`insert into tag_types (organization_id, name) values (${org}, 'Kind') returning id`));
  await db.execute(sql`insert into tags (organization_id, tag_type_id, name, description) values (${org}, ${tagTypeId}, 'zebrafish-tag', 'tagword')`);
  await db.execute(
    sql`insert into documents (organization_id, name, resource_type, description) values (${org}, 'Zebrafish runbook', 'dispatch-incident-runbook', 'documentword')`,
  );
  await db.execute(sql`insert into sources (organization_id, name, description) values (${org}, 'zebrafish-source', 'sourceword')`);
  await db.execute(sql`insert into queries (organization_id, name, text) values (${org}, 'Zebrafish query', 'select queryword')`);
  await db.execute(sql`insert into commands (organization_id, name, command_text) values (${org}, 'Zebrafish command', 'kubectl commandword')`);
  await db.execute(sql`insert into weblinks (organization_id, url, title) values (${org}, 'https://example.com/zebrafish', 'Zebrafish weblinkword')`);
  const [{ id: signalId }] = rowsOf<any>(
    await db.execute(
      sql`insert into signals (organization_id, project_id, name, ingest_key_hash) values (${org}, ${projectId}, 'Zebrafish alert', 'x') returning id`,
    ),
  );
  await db.execute(
    // Processed (a signal is found once processed; the processor would otherwise give it a case of its own).
    sql`insert into signal_instances (organization_id, signal_id, source, raw, processed_at) values (${org}, ${signalId}, 'datadog', '{"host": "db-01.prod.internal", "msg": "signalword"}', now())`,
  );
  await db.execute(sql`insert into commits (organization_id, commit_id, commit_message) values (${org}, 'abc123def', 'Zebrafish commitword fix')`);
  const [{ id: userId }] = rowsOf<any>(await db.execute(sql`select id from users where email = 'commander@example.com'`));
  const [{ id: chatId }] = rowsOf<any>(
    await db.execute(sql`insert into chats (organization_id, title, user_id) values (${org}, 'Zebrafish chat', ${userId}) returning id`),
  );
  await db.execute(sql`insert into chat_messages (organization_id, chat_id, role, text) values (${org}, ${chatId}, 'user', 'zebrafish chatword')`);
  for (const [kind, word] of [
    ['text', 'textword'],
    ['file', 'fileword'],
    ['video_transcript', 'videoword'],
  ]) {
    const [{ id: subId }] = rowsOf<any>(
      await db.execute(
        sql`insert into submissions (organization_id, project_id, kind, title, sensitivity_level) values (${org}, ${projectId}, ${kind}, ${'Zebrafish ' + kind}, 'internal') returning id`,
      ),
    );
    await db.execute(
      sql`insert into chunks (organization_id, project_id, submission_id, ordinal, text, sensitivity_level) values (${org}, ${projectId}, ${subId}, 0, ${'zebrafish ' + word}, 'internal')`,
    );
  }
  await db.execute(sql`insert into terms (organization_id, text) values (${org}, 'zebrafish')`);
  await db.execute(sql`insert into definitions (organization_id, text) values (${org}, 'Zebrafish: definitionword')`);
  await db.execute(sql`insert into services (organization_id, name, description) values (${org}, 'zebrafish-service', 'serviceword')`);
  await db.execute(sql`insert into teams (organization_id, name, notes) values (${org}, 'Zebrafish team', 'teamword')`);
  await db.execute(sql`insert into individuals (organization_id, name, email) values (${org}, 'Zebrafish Person', 'zebra@example.com')`);
  return { incident, org };
}

t.test('every type is found, grouped with counts, each with a passage and a link', async (t) => {
  const app = await incidentApp(t);
  await seedEveryType(app);
  const all = await search(app, 'zebrafish');
  const types = new Set(all.groups.map((g) => g.type));
  // WebCrawl and ECCSProject are names only: Firewatch keeps no such records.
  const kept = (Object.keys(SEARCH_TYPES) as SearchType[]).filter((type) => !['WebCrawl', 'ECCSProject'].includes(type));
  for (const type of kept) t.ok(types.has(specName(type)), `${specName(type)} found`);
  t.equal(
    all.total,
    all.groups.reduce((s, g) => s + g.count, 0),
    'total is the sum of the group counts',
  );
  t.equal(
    all.groups.find((g) => g.type === 'Conversation')?.count,
    5,
    "conversations: the incident's and the case's channels, the incident message, the chat and its message",
  );
  t.equal(all.groups.find((g) => g.type === 'Incident')?.count, 1);
  t.ok(all.results.length <= 25, 'one page of 25 at most');
  const task = all.results.find((r) => r.type === 'Task');
  t.match(task, { link: /^\/tasks\/\d+$/, headline: /«Zebrafish» taskword/ });
  t.match(
    all.results.find((r) => r.type === 'Incident'),
    { link: '/iaos/IAO-1/view', title: 'IAO-1: Zebrafish incident outage' },
  );

  // Each type's own word finds it alone.
  const words: Record<string, string> = {
    Incident: 'incidentword',
    Case: 'caseword',
    Task: 'taskword',
    Document: 'documentword',
    Tag: 'tagword',
    Source: 'sourceword',
    Query: 'queryword',
    Command: 'commandword',
    Weblink: 'weblinkword',
    SignalInstance: 'signalword',
    Commit: 'commitword',
    Ticket: 'ticketword',
    TextSubmission: 'textword',
    FileSubmissions: 'fileword',
    YouTubeTranscriptSubmission: 'videoword',
    Definition: 'definitionword',
    Service: 'serviceword',
    TeamContact: 'teamword',
  };
  for (const [type, word] of Object.entries(words)) {
    const res = await search(app, word);
    t.same(
      res.groups.map((g) => g.type),
      [type],
      `${word} finds the ${type}`,
    );
  }
  // A type filter: only that group's results, every group still counted.
  const onlyTasks = await search(app, 'zebrafish', '&type=Task');
  t.same([...new Set(onlyTasks.results.map((r) => r.type))], ['Task']);
  t.ok(onlyTasks.groups.length > 5, 'the counts of the other types stay, for their tabs');
  const two = await search(app, 'zebrafish', '&type=Task&type=Case');
  t.same([...new Set(two.results.map((r) => r.type))].sort(), ['Case', 'Task']);
});

t.test('what is written is found at once, and what is deleted or rolled back is not', async (t) => {
  const app = await incidentApp(t);
  const tag = await app.api('POST', '/tag_types', { name: 'Kind' });
  const created = await app.api('POST', '/tags', { name: 'okapi-cluster', tag_type_id: tag.body.id });
  t.equal(created.status, 201);
  t.same((await search(app, 'okapi')).groups, [{ type: 'Tag', label: 'Tags', count: 1 }]);
  await app.api('PUT', `/tags/${created.body.id}`, { name: 'narwhal-cluster' });
  t.equal((await search(app, 'okapi')).total, 0, 'the old name is gone');
  t.equal((await search(app, 'narwhal')).total, 1, 'the new name is found');
  await app.api('DELETE', `/tags/${created.body.id}`);
  t.equal((await search(app, 'narwhal')).total, 0);
  // A write that fails after the insert leaves nothing behind in the index.
  const org = await orgIdOf(app);
  await t.rejects(
    app.database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into services (organization_id, name) values (${org}, 'walrus-service')`);
      throw new Error('rolled back');
    }),
  );
  t.equal((await search(app, 'walrus')).total, 0);
});

t.test('an update that leaves the text alone keeps the entry and carries the rest: a task moved into a restricted case is hidden at once', async (t) => {
  const app = await incidentApp(t);
  const { api, projectId, login } = app;
  const member = await login('member@example.com', { role: 'Member' });
  const secret = await api('POST', '/cases', { title: 'Secret case', visibility: 'Restricted', project_id: projectId });
  const task = await api('POST', '/tasks', { description: 'Pangolin handover notes', project_id: projectId });
  t.equal(task.status, 201);
  t.equal((await search(app, 'pangolin', '', member)).total, 1, 'a member finds the task while it belongs to no case');
  const db = app.database.db;
  const org = await orgIdOf(app);
  const entry = async () =>
    rowsOf<{ case_id: number | null; updated_at: string; tsv: string }>(
      await db.execute(
        sql`select case_id, updated_at::text, tsv::text from search_entries where organization_id = ${org} and source = 'tasks' and source_id = ${String(task.body.id)}`,
      ),
    );
  const [before] = await entry();
  // Only the case changes (the text the entry indexes does not): the entry is updated, not deleted and
  // written again (which would compute its words anew). The transaction's own statistics count the rows.
  const written = async (tx: typeof db) =>
    rowsOf<{ ins: number; upd: number; del: number }>(
      await tx.execute(
        sql`select n_tup_ins::int as ins, n_tup_upd::int as upd, n_tup_del::int as del from pg_stat_xact_user_tables where relname = 'search_entries'`,
      ),
    )[0] ?? { ins: 0, upd: 0, del: 0 };
  await db.transaction(async (tx) => {
    const start = await written(tx as unknown as typeof db);
    await tx.execute(
      sql`update tasks set case_id = ${secret.body.id}, updated_at = now() + interval '1 minute' where organization_id = ${org} and id = ${task.body.id}`,
    );
    const end = await written(tx as unknown as typeof db);
    t.same({ ins: end.ins - start.ins, upd: end.upd - start.upd, del: end.del - start.del }, { ins: 0, upd: 1, del: 0 }, 'one entry updated in place');
  });
  const after = await entry();
  t.equal(after.length, 1, 'still one entry');
  t.equal(after[0]!.case_id, secret.body.id, 'the entry carries the new case');
  t.not(after[0]!.updated_at, before!.updated_at, 'and the new time');
  t.equal(after[0]!.tsv, before!.tsv, 'its words are the same');
  t.equal((await search(app, 'pangolin', '', member)).total, 0, 'the member outside the restricted case no longer finds it');
  t.equal((await search(app, 'pangolin')).total, 1, 'the owner still does');
  // A text change still re-indexes: the old word goes, the new one is found.
  await db.execute(sql`update tasks set description = 'Armadillo handover notes' where organization_id = ${org} and id = ${task.body.id}`);
  t.equal((await search(app, 'pangolin')).total, 0);
  t.equal((await search(app, 'armadillo')).total, 1);
  // Several rows in one statement, some changing text and some not: each entry right, none twice.
  const more = await Promise.all(['Ocelot one', 'Ocelot two', 'Ocelot three'].map((d) => api('POST', '/tasks', { description: d, project_id: projectId })));
  const ids = more.map((m) => m.body.id as number);
  await db.execute(
    sql`update tasks set description = case when id = ${ids[0]} then 'Margay one' else description end, case_id = ${secret.body.id} where organization_id = ${org} and id in (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})`,
  );
  t.equal((await search(app, 'ocelot')).total, 2);
  t.equal((await search(app, 'margay')).total, 1);
  t.equal((await search(app, 'ocelot', '', member)).total, 0);
  const counts = rowsOf<{ n: number }>(
    await db.execute(
      sql`select count(*)::int as n from search_entries where organization_id = ${org} and source = 'tasks' and source_id in (${sql.join(
        ids.map((id) => sql`${String(id)}`),
        sql`, `,
      )})`,
    ),
  );
  t.equal(counts[0]!.n, 3, 'one entry per task');
});

t.test('ingest: a new object is found inside its own transaction, by others only once it commits', async (t) => {
  const app = await incidentApp(t);
  const org = await orgIdOf(app);
  const userId = rowsOf<{ id: number }>(await app.database.db.execute(sql`select id from users where email = 'commander@example.com'`))[0]!.id;
  const scope = { orgId: org, userId, role: 'Owner' as const };
  const ctxOf = (tx: unknown) => ({ tx, orgId: org, userId, role: 'Owner' }) as unknown as RequestContext;
  // PGlite has one connection: another transaction cannot run while this one is open, so the check
  // that the object is invisible elsewhere before the commit runs on PostgreSQL only.
  const concurrent = !!process.env.DATABASE_URL;
  await withTenant(app.database.db, scope, async (tx) => {
    await tx.execute(sql`insert into services (organization_id, name, description) values (${org}, 'quokka-gateway', 'ingested in its own transaction')`);
    const inside = await searchService(ctxOf(tx), 'quokka', [], 1);
    t.same(
      inside.results.map((r) => [r.type, r.title]),
      [['Service', 'quokka-gateway']],
      'the writer finds it before it commits',
    );
    if (concurrent) t.equal((await search(app, 'quokka')).total, 0, 'another request does not see it before the commit');
  });
  t.same(
    (await search(app, 'quokka')).results.map((r) => [r.type, r.title]),
    [['Service', 'quokka-gateway']],
    'found by the next request once committed',
  );
});

t.test('ranking: an exact name first; prefixes, phrases, exclusions and or', async (t) => {
  const app = await incidentApp(t);
  for (let i = 1; i <= 12; i++)
    await app.createIncident({
      title: `Payment gateway degraded ${i}`,
      description: i === 4 ? 'disk full on host db-01.prod.internal' : 'full disk cleanup later',
    });
  const exact = await search(app, 'IAO-4');
  t.equal(exact.results[0]!.title, 'IAO-4: Payment gateway degraded 4', 'IAO-4 itself first');
  t.ok(exact.results[0]!.exact);
  const lower = await search(app, 'iao-12');
  t.equal(lower.results[0]!.title, 'IAO-12: Payment gateway degraded 12', 'case does not matter');
  t.equal((await search(app, 'IAO-1')).results[0]!.title, 'IAO-1: Payment gateway degraded 1', 'IAO-1 before IAO-10, 11, 12');

  const prefix = await search(app, 'paym gatew', '&type=Incident');
  t.equal(prefix.groups[0]!.count, 12, 'words typed halfway match');
  const phrase = await search(app, '"disk full"', '&type=Incident');
  t.same(
    phrase.results.map((r) => r.title),
    ['IAO-4: Payment gateway degraded 4'],
    'a phrase keeps its order',
  );
  const loose = await search(app, 'disk full', '&type=Incident');
  t.equal(loose.groups[0]!.count, 12, 'the same words unquoted match in any order');
  const negated = await search(app, 'payment -cleanup', '&type=Incident');
  t.same(
    negated.results.map((r) => r.title),
    ['IAO-4: Payment gateway degraded 4'],
    '-word excludes',
  );
  const host = await search(app, 'db-01.prod.internal', '&type=Incident');
  t.same(
    host.results.map((r) => r.title),
    ['IAO-4: Payment gateway degraded 4'],
    'a host name',
  );
  t.match(host.results[0]!.headline, /db-01\.prod\.internal/);
  const either = await search(app, 'nonexistentword or cleanup', '&type=Incident');
  t.equal(either.groups[0]!.count, 11, 'a or b');
  t.equal((await search(app, '')).total, 0, 'an empty search finds nothing and is no error');
  t.equal((await search(app, '-payment')).total, 0, 'only exclusions find nothing');
  const page2 = await search(app, 'payment', '&page=2');
  t.ok(page2.results.length > 0, 'a second page');
  const page1 = await search(app, 'payment');
  t.equal(page1.results.length, 25);
  t.notOk(
    page2.results.some((r) => page1.results.some((p) => p.type === r.type && p.id === r.id)),
    'pages do not overlap',
  );
});

t.test('restricted incidents and cases, submissions by level, private chats, other organizations', async (t) => {
  const app = await incidentApp(t);
  const { api, createIncident, projectId, login } = app;
  const member = await login('member@example.com', { role: 'Member' });
  const participant = await login('participant@example.com', { role: 'Member' });
  const secret = await createIncident({ title: 'Quokka breach', visibility: 'Restricted', description: 'quokka' });
  await app.drain();
  await api('POST', `/iaos/${secret.id}/conversation/messages`, { text: 'quokka details' });
  await api('POST', '/tasks', { description: 'Quokka task', incident_id: secret.id, project_id: projectId });
  await api('POST', `/iaos/${secret.id}/roles`, { email: 'participant@example.com', role: 'participant' });
  await api('POST', '/cases', { title: 'Quokka case', visibility: 'Restricted', project_id: projectId });

  const owner = await search(app, 'quokka');
  t.ok(
    ['Incident', 'Task', 'Conversation', 'Case'].every((type) => owner.groups.some((g) => g.type === type)),
    'the owner sees them all',
  );
  const outsider = await search(app, 'quokka', '', member);
  t.equal(outsider.total, 0, 'a member outside them sees nothing, counts included');
  t.equal((await search(app, secret.name, '', member)).total, 0, 'not even by its exact name');
  const inside = await search(app, 'quokka', '', participant);
  t.ok(inside.groups.some((g) => g.type === 'Incident') && inside.groups.some((g) => g.type === 'Task'), 'a participant sees the incident and its task');
  t.notOk(
    inside.groups.some((g) => g.type === 'Case'),
    'but not the restricted case they are not part of',
  );

  // Submissions: restricted ones only for admins and their uploader; chats only for their owner.
  const org = await orgIdOf(app);
  const db = app.database.db;
  const [{ id: subId }] = rowsOf<any>(
    await db.execute(
      sql`insert into submissions (organization_id, project_id, kind, title, sensitivity_level) values (${org}, ${projectId}, 'text', 'Salaries', 'restricted') returning id`,
    ),
  );
  await db.execute(
    sql`insert into chunks (organization_id, project_id, submission_id, ordinal, text, sensitivity_level) values (${org}, ${projectId}, ${subId}, 0, 'capybara salary table', 'restricted')`,
  );
  const [{ id: userId }] = rowsOf<any>(await db.execute(sql`select id from users where email = 'commander@example.com'`));
  await db.execute(sql`insert into chats (organization_id, title, user_id) values (${org}, 'my capybara chat', ${userId})`);
  t.same((await search(app, 'capybara')).groups.map((g) => g.type).sort(), ['Conversation', 'TextSubmission']);
  t.equal((await search(app, 'capybara', '', member)).total, 0, 'a member sees neither');

  // Another organization's things are never found, even by exact name.
  const other = await app.organization('acme');
  const res = await app.request({ method: 'GET', url: `/api/v1/acme/search?q=${encodeURIComponent('quokka')}`, token: other.token });
  t.equal(res.status, 200);
  t.equal(res.body.total, 0);
  const byName = await app.request({ method: 'GET', url: `/api/v1/acme/search?q=IAO-1`, token: other.token });
  t.equal(byName.body.total, 0);
  const theirs = await app.request({ method: 'POST', url: '/api/v1/acme/services', token: other.token, payload: { name: 'quokka-service' } });
  t.equal(theirs.status, 201);
  t.notOk(
    (await search(app, 'quokka')).groups.some((g) => g.type === 'Service'),
    "acme's service is not found from default",
  );
});

t.test('bad input: a 4xx in the error shape', async (t) => {
  const app = await incidentApp(t);
  const cases: [string, number, RegExp][] = [
    [`/search?q=${'a'.repeat(501)}`, 422, /500 characters/],
    ['/search?q=a%00b', 422, /./],
    ['/search?q=x&type=Nope', 422, /Must be one of/],
    ['/search?q=x&page=0', 422, /./],
    ['/search?q=x&page=abc', 422, /./],
    ['/search?q=x&unknown=1', 422, /./],
  ];
  for (const [url, status, msg] of cases) {
    const res = await app.api('GET', url);
    t.equal(res.status, status, url);
    t.match(res.body?.detail?.[0]?.msg, msg, url);
    t.ok(Array.isArray(res.body?.detail?.[0]?.loc), `${url}: loc`);
  }
  t.equal((await app.request({ method: 'GET', url: '/api/v1/default/search?q=x' })).status, 401, 'signed out');
  t.equal((await search(app, '"unclosed phrase')).total, 0, 'an unclosed quote is a phrase, not an error');
  t.equal((await search(app, '!!! && | :* <-> ()')).total, 0, 'tsquery syntax is just text');
});
