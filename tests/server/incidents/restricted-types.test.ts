import type { AddressInfo } from 'node:net';
import t from 'tap';
import { incidentApp } from './helpers.js';
import { SocketClient } from '../ai/socket-client.js';

/**
 * An incident type whose visibility is Restricted (the seeded "Security") makes its incidents
 * Restricted on every path that creates or retypes one; a Member who takes no part then never meets
 * it: not by id, not in lists, search or chat answers.
 */

const MARK = 'PLATYPUSLEAK';

t.test('a Restricted incident type restricts its incidents however they are made', async (t) => {
  const app = await incidentApp(t);
  const { api, createIncident, projectId, login, ticket } = app;
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const reporter = await login('reporter@example.com', { role: 'Member' });
  const outsider = await login('outsider@example.com', { role: 'Member' });
  const key = (await api('POST', '/apikeys', { project_id: projectId, description: 'script' })).body.key as string;
  const types = (await api('GET', '/incident_types?itemsPerPage=-1')).body.items as { id: number; name: string; visibility: string }[];
  const security = types.find((x) => x.name === 'Security')!;
  const open = types.find((x) => x.visibility === 'Open')!;
  t.equal(security.visibility, 'Restricted', 'the seeded Security type is Restricted');

  // The report form's body (a Member, no visibility given), the API with Open asked for, an API key.
  const reported = await createIncident({ title: `${MARK} reported`, description: `${MARK} form`, incident_type_id: security.id }, reporter);
  const asked = await createIncident({ title: `${MARK} asked open`, incident_type_id: security.id, visibility: 'Open' }, reporter);
  const scripted = await createIncident({ title: `${MARK} by key`, incident_type_id: security.id }, key);
  for (const [how, row] of [
    ['the report form', reported],
    ['the API asking for Open', asked],
    ['an API key', scripted],
  ] as const)
    t.equal(row.visibility, 'Restricted', `created through ${how}: Restricted`);
  t.equal((await api('GET', `/iaos/${reported.id}`, undefined, reporter)).status, 200, 'its reporter takes part and sees it');

  // Retyping: to the Restricted type restricts; back to an Open type does not open it again.
  const plain = await createIncident({ title: `${MARK} retyped`, description: `${MARK} retype`, incident_type_id: open.id });
  t.equal(plain.visibility, 'Open');
  t.equal((await api('GET', `/iaos/${plain.id}`, undefined, outsider)).status, 200, 'open: every member sees it');
  t.equal((await api('PUT', `/iaos/${plain.id}`, { incident_type_id: security.id })).status, 200);
  t.equal((await api('GET', `/iaos/${plain.id}`)).body.visibility, 'Restricted', 'retyped to Security: Restricted');
  t.equal((await api('PUT', `/iaos/${plain.id}`, { incident_type_id: open.id })).status, 200);
  t.equal((await api('GET', `/iaos/${plain.id}`)).body.visibility, 'Restricted', 'retyped to an Open type: still Restricted');

  // A case escalated into the Restricted type.
  const c = (await api('POST', '/cases', { title: `${MARK} case`, project_id: projectId })).body;
  const escalated = await api('PUT', `/cases/${c.id}/escalate`, { incident_type_id: security.id });
  t.equal(escalated.status, 200);
  const incidentId = (await api('GET', `/cases/${c.id}`)).body.incident_id as number;
  t.equal((await api('GET', `/iaos/${incidentId}`)).body.visibility, 'Restricted', 'escalated into Security: Restricted');

  const hidden = [reported.id, asked.id, scripted.id, plain.id, incidentId];
  for (const id of hidden) t.equal((await api('GET', `/iaos/${id}`, undefined, outsider)).status, 404, `a Member not on incident ${id} gets 404`);
  const list = (await api('GET', '/iaos?itemsPerPage=-1', undefined, outsider)).body.items as { id: number }[];
  t.same(
    list.filter((i) => hidden.includes(i.id)),
    [],
    'none is in her list',
  );
  const found = await api('GET', `/search?q=${MARK}`, undefined, outsider);
  t.equal(found.status, 200);
  t.notMatch(JSON.stringify(found.body), /PLATYPUSLEAK (reported|asked|by key|retyped)/, 'nor in search');

  const ws = await SocketClient.open(`ws://127.0.0.1:${(app.app.server.address() as AddressInfo).port}/api/v1/default/ws?ticket=${await ticket(outsider)}`);
  t.teardown(() => ws.close());
  const answer = await ws.request('chat', { project_id: projectId, text: `What happened with ${MARK}?` }, 'chat_done');
  t.notOk(
    answer.data.sources.some((s: { object_type: string }) => s.object_type === 'incident'),
    'nor cited in her chat answers',
  );
  t.notMatch(answer.data.answer, /PLATYPUSLEAK (reported|asked|by key|retyped)|PLATYPUSLEAK (form|retype)/, 'nor quoted in them');
});
