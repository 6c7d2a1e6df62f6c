import t from 'tap';
import { incidentApp } from '../incidents/helpers.js';

t.test("spec §3: an entity answers regular_expression, jpath and default, its entity type's", async (t) => {
  const { api, projectId } = await incidentApp(t);
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await api(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Record<string, any>;
  };
  const host = await ok('POST', '/entity_type', { name: 'Host', jpath: '$.host', regular_expression: '^[a-z0-9.-]+$', default: true, project_id: projectId });
  const plain = await ok('POST', '/entity_type', { name: 'Ticket', project_id: projectId });
  const entity = await ok('POST', '/entity', { value: 'api-1.example.com', entity_type_id: host.id, project_id: projectId });
  const bare = await ok('POST', '/entity', { value: 'T-1', entity_type_id: plain.id, project_id: projectId });

  const record = await ok('GET', `/entity/${entity.id}`);
  t.match(record, { name: 'api-1.example.com', regular_expression: '^[a-z0-9.-]+$', jpath: '$.host', default: true }, 'the record');
  t.match(await ok('GET', `/entity/${bare.id}`), { regular_expression: null, jpath: null, default: false }, 'a type without them');
  const listed = (await ok('GET', '/entity?sortBy=value')).items as Record<string, any>[];
  t.same(
    listed.map((e) => [e.name, e.regular_expression, e.jpath, e.default]),
    [
      ['api-1.example.com', '^[a-z0-9.-]+$', '$.host', true],
      ['T-1', null, null, false],
    ],
    'the list answers them too',
  );

  // They follow the type: changed there, the entity answers the new ones.
  await ok('PUT', `/entity_type/${host.id}`, { jpath: '$.instance', default: false });
  t.match(await ok('GET', `/entity/${entity.id}`), { jpath: '$.instance', default: false, regular_expression: '^[a-z0-9.-]+$' });

  // A record read and sent back whole is accepted; the type's fields are not changed through the entity.
  const back = await api('PUT', `/entity/${entity.id}`, { ...record, description: 'web tier' });
  t.equal(back.status, 200, JSON.stringify(back.body));
  t.equal(back.body.description, 'web tier');
  t.equal(back.body.jpath, '$.instance', "the type's jpath, not the stale one sent back");
  t.equal((await ok('GET', `/entity_type/${host.id}`)).jpath, '$.instance');
});
