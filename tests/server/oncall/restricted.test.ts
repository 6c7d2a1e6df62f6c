import t from 'tap';
import { oncallApp } from './helpers.js';

/**
 * The on-call routes that reach an incident or a case (paging one, acknowledging or resolving its
 * page, the handoff prefills) keep a restricted incident or case to its participants and Admins, as
 * tests/server/incidents/restricted.test.ts does for the incident's own routes: anyone else gets 404
 * and changes nothing. (The pages' own list and record are walked there, with every linked resource.)
 */
const MARK = 'WOMBATSECRET';

t.test('on-call routes on a restricted incident or case: 404 for those who take no part', async (t) => {
  const o = await oncallApp(t);
  const { api, login } = o;
  const outsider = await login('outsider@example.com', { role: 'Member' });
  const insider = await login('insider@example.com', { role: 'Member' });
  const admin = await login('admin@example.com', { role: 'Admin' });
  const key = (await api('POST', '/apikeys', { project_id: o.projectId, description: 'script' })).body.key as string;

  const secret = await o.createIncident({ title: `${MARK} vault sealed`, visibility: 'Restricted' });
  await o.ok('POST', `/iaos/${secret.id}/roles`, { email: 'insider@example.com', role: 'participant' });
  const secretCase = await o.ok('POST', '/cases', { title: `${MARK} case`, project_id: o.projectId, visibility: 'Restricted' });
  // A task of the restricted incident handed to the outsider: their shift's prefill must not show it.
  await o.ok('POST', '/tasks', { description: `${MARK} rotate the vault keys`, incident_id: secret.id, owner_email: 'outsider@example.com' });
  const policy = await o.ok('POST', '/oncall/escalation_policies', {
    name: 'Vault',
    steps: [{ timeout_minutes: 5, targets: [{ type: 'person', email: 'vault@example.com' }] }],
  });
  const schedule = await o.ok('POST', '/oncall/schedules', o.weekly(['outsider@example.com', 'insider@example.com']));
  const page = (body: Record<string, unknown>) => ({ title: `${MARK} page`, escalation_policy_id: policy.id, ...body });
  const onIncident = await o.ok('POST', '/oncall/pages', page({ incident_id: secret.id }));
  const onCase = await o.ok('POST', '/oncall/pages', page({ case_id: secretCase.id }));
  await o.drainOncall();
  const timeline = async () => (await api('GET', `/iaos/${secret.id}`)).body.events.length as number;
  const eventsBefore = await timeline();

  /** Every route that takes an incident, a case or a page, with the calls that must answer 404. */
  const walk: [string, string, Record<string, unknown>?][] = [
    ['POST', '/oncall/pages', page({ incident_id: secret.id })],
    ['POST', '/oncall/pages', page({ case_id: secretCase.id })],
    ['POST', `/oncall/pages/${onIncident.id}/acknowledge`],
    ['POST', `/oncall/pages/${onCase.id}/acknowledge`],
    ['POST', `/oncall/pages/${onIncident.id}/resolve`],
    ['POST', `/oncall/pages/${onCase.id}/resolve`],
    ['GET', `/oncall/pages/${onIncident.id}`],
    ['GET', `/oncall/pages/${onCase.id}`],
    ['GET', `/oncall/handoffs/prefill?incident_id=${secret.id}`],
  ];
  for (const [who, token] of [
    ['a Member who takes no part', outsider],
    ['an API key', key],
  ] as const) {
    await t.test(`${who} gets 404 and changes nothing`, async (t) => {
      for (const [method, path, body] of walk) {
        const res = await api(method, path, body, token);
        t.equal(res.status, 404, `${method} ${path}${body?.incident_id ? ' (incident)' : body?.case_id ? ' (case)' : ''}`);
        t.notOk(JSON.stringify(res.body).includes(MARK), 'and nothing of it in the answer');
      }
      // Their own shift's handoff: the restricted incident's task is not among theirs.
      for (const path of [`/oncall/handoffs/prefill_from_schedule?schedule_id=${schedule.id}`, '/oncall/handoffs/prefill']) {
        const res = await api('GET', path, undefined, token);
        t.equal(res.status, 200, path);
        t.notOk(JSON.stringify(res.body).includes(MARK), `${path}: nothing of the restricted incident`);
      }
    });
  }
  const states = async () => Promise.all([onIncident.id, onCase.id].map(async (id) => (await api('GET', `/oncall/pages/${id}`)).body.state as string));
  t.same(await states(), ['triggered', 'triggered'], 'both pages are still triggered');
  t.equal(await timeline(), eventsBefore, 'nothing was added to the timeline');
  t.equal(
    (await api('GET', `/oncall/pages?filter=${encodeURIComponent(JSON.stringify([{ field: 'incident_id', op: '==', value: secret.id }]))}`)).body.total,
    1,
    'no page was added',
  );

  // The participant acknowledges the incident's page; an Admin resolves the case's.
  const acked = await api('POST', `/oncall/pages/${onIncident.id}/acknowledge`, undefined, insider);
  t.match([acked.status, acked.body], [200, { state: 'acknowledged', changed: true }], 'a participant acknowledges');
  t.equal((await api('POST', '/oncall/pages', page({ incident_id: secret.id }), insider)).status, 201, 'and may page for it');
  t.equal((await api('POST', `/oncall/pages/${onCase.id}/acknowledge`, undefined, insider)).status, 404, "but not the case's page, not theirs");
  t.match((await api('POST', `/oncall/pages/${onCase.id}/resolve`, undefined, admin)).body, { state: 'resolved', changed: true }, 'an Admin resolves it');
  t.match((await api('GET', `/oncall/handoffs/prefill?incident_id=${secret.id}`, undefined, insider)).body, { incidents: [secret.name] });

  // The walk covers every documented on-call route that takes an incident, a case or a page.
  const paths = (await o.request({ method: 'GET', url: '/api/v1/docs/json' })).body.paths as Record<string, Record<string, any>>;
  const reaching = Object.entries(paths)
    .filter(([p]) => p.startsWith('/api/v1/{organization}/oncall/'))
    .flatMap(([p, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => {
          const names = [
            ...(op.parameters ?? []).map((x: { name: string }) => x.name),
            ...Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {}),
          ];
          return names.includes('incident_id') || names.includes('case_id') || /\/oncall\/pages\/\{id\}/.test(p);
        })
        .map(([m]) => `${m.toUpperCase()} ${p.replace('/api/v1/{organization}', '')}`),
    );
  const walked = new Set(walk.map(([m, p]) => `${m} ${p.split('?')[0]!.replace(/\/\d+(?=\/|$)/, '/{id}')}`));
  t.ok(reaching.length >= 5, `${reaching.length} on-call routes take an incident, a case or a page`);
  t.same(
    reaching.filter((r) => !walked.has(r)),
    [],
    'every one is walked',
  );
});
