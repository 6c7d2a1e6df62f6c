import t from 'tap';
import { fixture, signalApp } from '../signals/helpers.js';

/**
 * A case type whose visibility is Restricted (the seeded "Security alert") makes its cases Restricted
 * however they are made (the API, a signal) or retyped; a Member who takes no part gets 404.
 */
t.test('a Restricted case type restricts its cases on create, from signals and on retype', async (t) => {
  const s = await signalApp(t);
  const { api, projectId, login } = s;
  const outsider = await login('outsider@example.com', { role: 'Member' });
  const reporter = await login('reporter@example.com', { role: 'Member' });
  const types = (await api('GET', '/case_types?itemsPerPage=-1')).body.items as { id: number; name: string; visibility: string }[];
  const security = types.find((x) => x.name === 'Security alert')!;
  const open = types.find((x) => x.name === 'Default')!;
  t.equal(security.visibility, 'Restricted', 'the seeded Security alert type is Restricted');

  const made = async (body: Record<string, unknown>, as?: string) => {
    const res = await api('POST', '/cases', { title: 'Phishing mail reported', project_id: projectId, ...body }, as);
    t.equal(res.status, 201);
    return res.body as { id: number; visibility: string };
  };
  const reported = await made({ case_type_id: security.id }, reporter);
  const askedOpen = await made({ case_type_id: security.id, visibility: 'Open' });
  t.equal(reported.visibility, 'Restricted', 'reported by a Member: Restricted');
  t.equal(askedOpen.visibility, 'Restricted', 'asking for Open does not override the type');
  t.equal((await api('GET', `/cases/${reported.id}`, undefined, reporter)).status, 200, 'its reporter still sees it');

  const plain = await made({ case_type_id: open.id });
  t.equal(plain.visibility, 'Open');
  t.equal((await api('PUT', `/cases/${plain.id}`, { case_type_id: security.id })).status, 200);
  t.equal((await api('GET', `/cases/${plain.id}`)).body.visibility, 'Restricted', 'retyped to Security alert: Restricted');
  t.equal((await api('PUT', `/cases/${plain.id}`, { case_type_id: open.id })).status, 200);
  t.equal((await api('GET', `/cases/${plain.id}`)).body.visibility, 'Restricted', 'retyped to an Open type: still Restricted');

  // A signal definition whose case type is made Restricted opens Restricted cases.
  t.equal((await api('PUT', `/case_types/${s.caseType.id}`, { visibility: 'Restricted' })).status, 200);
  const trigger = await s.ingest('/signals/pagerduty/v2/enqueue', fixture('pagerduty-trigger.json', s.key));
  t.equal(trigger.status, 202);
  await s.drain();
  const [instance] = (await api('GET', `/signals/${s.signal.id}/instances`)).body.items as { id: number }[];
  const fromSignal = await s.caseOf(instance!.id);
  t.equal(fromSignal.visibility, 'Restricted', 'a case a signal opens with a Restricted type: Restricted');

  const hidden = [reported.id, askedOpen.id, plain.id, fromSignal.id as number];
  for (const id of hidden) t.equal((await api('GET', `/cases/${id}`, undefined, outsider)).status, 404, `a Member not on case ${id} gets 404`);
  const list = (await api('GET', '/cases?itemsPerPage=-1', undefined, outsider)).body.items as { id: number }[];
  t.same(
    list.filter((c) => hidden.includes(c.id)),
    [],
    'none is in her list',
  );
});
